package io.nrtcluster.election;

import io.nrtcluster.common.Experimental;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Who leads what, by host, as the hosts' own records ({@link HostRecord}) say: an immutable
 * snapshot, cheap to read at every election step. A host is live while its record exists (it is
 * ephemeral); a host without a record counts as leading nothing.
 *
 * <p>The records trail the primaries by the moment a host takes to rewrite its record after a role
 * change, so counts are a preference, never a safety input: the election still lets only a most
 * up-to-date member win ({@link ElectionDecision#choose}), and the rebalancing moves nothing while a
 * host's record disagrees with an index's primary.
 */
@Experimental
public final class Placement {
  /** No host known: every count is 0. */
  public static final Placement EMPTY = new Placement(Map.of());

  private final SortedMap<Integer, SortedSet<String>> primariesByHost;

  private Placement(Map<Integer, SortedSet<String>> primariesByHost) {
    this.primariesByHost = Collections.unmodifiableSortedMap(new TreeMap<>(primariesByHost));
  }

  /** The placement the records {@code hosts} say (a later record of the same node replaces an earlier one). */
  public static Placement of(Collection<HostRecord> hosts) {
    Map<Integer, SortedSet<String>> m = new HashMap<>();
    for (HostRecord h : hosts) {
      m.put(h.nodeId(), h.primaries());
    }
    return new Placement(m);
  }

  /** The live hosts, by node id, with the indexes each leads. */
  public SortedMap<Integer, SortedSet<String>> primariesByHost() {
    return primariesByHost;
  }

  /** The node ids of the live hosts, ascending. */
  public Set<Integer> hosts() {
    return primariesByHost.keySet();
  }

  /** The indexes host {@code nodeId} leads (empty when it has no record). */
  public SortedSet<String> primariesOf(int nodeId) {
    SortedSet<String> s = primariesByHost.get(nodeId);
    return s == null ? Collections.emptySortedSet() : s;
  }

  /** How many indexes host {@code nodeId} leads. */
  public int count(int nodeId) {
    return primariesOf(nodeId).size();
  }

  /**
   * Every live host's count of primaries other than {@code index}: what an election of {@code
   * index} weighs (a host whose record still names the index, a primary that just resigned it, is
   * not counted for it).
   */
  public Map<Integer, Integer> countsExcluding(String index) {
    Map<Integer, Integer> out = new HashMap<>();
    primariesByHost.forEach((id, set) -> out.put(id, set.size() - (set.contains(index) ? 1 : 0)));
    return out;
  }

  /** The hosts whose records name {@code index} as theirs (one, when the records are current). */
  public SortedSet<Integer> leadersOf(String index) {
    SortedSet<Integer> out = new TreeSet<>();
    primariesByHost.forEach((id, set) -> {
      if (set.contains(index)) {
        out.add(id);
      }
    });
    return out;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Placement p && p.primariesByHost.equals(primariesByHost);
  }

  @Override
  public int hashCode() {
    return primariesByHost.hashCode();
  }

  @Override
  public String toString() {
    return primariesByHost.toString();
  }
}

package io.nrtcluster.election;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.Experimental;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The primary moves that bring every live host within one primary of every other: a pure function
 * of the {@link Placement} and of what each index's znodes say ({@link IndexView}), without I/O,
 * clock or state, so every host that reads the same computes the same plan. Nodes run it to hand
 * their own primaries off ({@code node}'s rebalancer), operators to see or run it ({@code
 * ClusterAdmin.rebalancePlan}, {@code bin/nrt rebalance}). It lives in election, beside the
 * election's own choice ({@link ElectionDecision#choose}), because both judge who may lead.
 *
 * <p>Guarantees: a move goes only to a live host (one with a record) whose member of that index is a
 * {@link Role#REPLICA} that may lead ({@link MemberInfo#eligible()}, no corrupt file) and is caught up
 * (it searches the primary's generation, at most {@code maxLagVersions} versions behind what the
 * primary's member record says it searches); never for an index without a primary, with a
 * suspicion of any node, or with a hand-off or a designated successor under way; each index moves at
 * most once per plan; each move takes a primary from a host holding at least two more than its
 * target, so the plan ends (the sum of the squared counts falls with every move) and never makes
 * the spread worse. Counts are the hosts' records, except that the indexes given are counted where
 * their primary znode says (authoritative, for whoever read them).
 *
 * <p>It is greedy: the most loaded host gives to the least loaded one that can take one of its
 * indexes (ties to the lower node id, indexes in name order). A host that hosts few indexes may
 * stay below the others: no move can reach it.
 */
@Experimental
public final class RebalancePlan {
  /** How far behind the primary's version a target may be and still count as caught up. */
  public static final long CAUGHT_UP_VERSIONS = 5;

  /**
   * One index's state as its znodes say.
   *
   * @param index the index
   * @param primary its primary znode's content, or null when there is none
   * @param members its live members
   * @param suspected whether any node records a suspicion of its primary
   * @param handingOff whether a hand-off request or a designated successor is there
   * @param inSync its in-sync record ({@link InSyncRecord}), or null when none is known (no primary
   *     wrote one, or an older caller): then every member counts as in sync
   */
  public record IndexView(String index, PrimaryInfo primary, List<MemberInfo> members, boolean suspected, boolean handingOff,
      InSyncRecord inSync) {
    public IndexView {
      Checks.safeName("index", index);
      members = List.copyOf(members);
    }

    /** A view without an in-sync record: every member counts as in sync. */
    public IndexView(String index, PrimaryInfo primary, List<MemberInfo> members, boolean suspected, boolean handingOff) {
      this(index, primary, members, suspected, handingOff, null);
    }

    /** The member record of {@code nodeId}, or null. */
    public MemberInfo member(int nodeId) {
      for (MemberInfo m : members) {
        if (m.nodeId() == nodeId) {
          return m;
        }
      }
      return null;
    }
  }

  /** Move the primary of {@code index} from host {@code from} to host {@code to}. */
  public record Move(String index, int from, int to) {
    @Override
    public String toString() {
      return index + ": node " + from + " -> node " + to;
    }
  }

  private final SortedMap<Integer, Integer> before;
  private final SortedMap<Integer, Integer> after;
  private final List<Move> moves;

  private RebalancePlan(SortedMap<Integer, Integer> before, SortedMap<Integer, Integer> after, List<Move> moves) {
    this.before = Collections.unmodifiableSortedMap(before);
    this.after = Collections.unmodifiableSortedMap(after);
    this.moves = List.copyOf(moves);
  }

  /** {@link #compute(Placement, Collection, long)} with {@link #CAUGHT_UP_VERSIONS}. */
  public static RebalancePlan compute(Placement placement, Collection<IndexView> indexes) {
    return compute(placement, indexes, CAUGHT_UP_VERSIONS);
  }

  /** The plan for the live hosts of {@code placement} and the {@code indexes} whose primaries may move. */
  public static RebalancePlan compute(Placement placement, Collection<IndexView> indexes, long maxLagVersions) {
    Checks.inRange("maxLagVersions", maxLagVersions, 0, Long.MAX_VALUE);
    Set<String> given = new HashSet<>();
    indexes.forEach(v -> given.add(v.index()));
    SortedMap<Integer, Integer> count = new TreeMap<>();
    for (int host : placement.hosts()) {
      int others = (int) placement.primariesOf(host).stream().filter(i -> !given.contains(i)).count();
      count.put(host, others);
    }
    for (IndexView v : indexes) {
      if (v.primary() != null && count.containsKey(v.primary().nodeId())) {
        count.merge(v.primary().nodeId(), 1, Integer::sum);
      }
    }
    SortedMap<Integer, Integer> start = new TreeMap<>(count);
    List<IndexView> movable = indexes.stream().filter(RebalancePlan::movable)
        .sorted(Comparator.comparing(IndexView::index)).toList();
    List<Move> moves = new ArrayList<>();
    Set<String> moved = new HashSet<>();
    Move next;
    while ((next = nextMove(count, movable, moved, maxLagVersions)) != null) {
      moves.add(next);
      moved.add(next.index());
      count.merge(next.from(), -1, Integer::sum);
      count.merge(next.to(), 1, Integer::sum);
    }
    return new RebalancePlan(start, count, moves);
  }

  private static Move nextMove(Map<Integer, Integer> count, List<IndexView> movable, Set<String> moved, long maxLag) {
    List<Integer> givers = count.keySet().stream()
        .sorted(Comparator.comparing((Integer h) -> -count.get(h)).thenComparing(h -> h)).toList();
    List<Integer> takers = count.keySet().stream()
        .sorted(Comparator.comparing((Integer h) -> count.get(h)).thenComparing(h -> h)).toList();
    for (int from : givers) {
      for (int to : takers) {
        if (count.get(from) - count.get(to) < 2) {
          break;
        }
        for (IndexView v : movable) {
          if (v.primary().nodeId() == from && !moved.contains(v.index()) && caughtUp(v, to, maxLag)) {
            return new Move(v.index(), from, to);
          }
        }
      }
    }
    return null;
  }

  /**
   * Whether the primary of {@code v} may be moved now: it has one (with its member record), nobody
   * suspects it, and no hand-off or successor designation is under way.
   */
  public static boolean movable(IndexView v) {
    if (v.primary() == null || v.suspected() || v.handingOff()) {
      return false;
    }
    MemberInfo p = v.member(v.primary().nodeId());
    return p != null && p.role() == Role.PRIMARY;
  }

  /**
   * Whether {@code nodeId} could take over {@code v}'s primary role by a quick hand-off: its member
   * is a replica that may lead, searches the primary's generation, is at most {@code
   * maxLagVersions} behind the primary's reported version, and is in the index's in-sync set in its
   * current incarnation (when the view has a record: a graceful promotion refuses any other target).
   */
  public static boolean caughtUp(IndexView v, int nodeId, long maxLagVersions) {
    PrimaryInfo p = v.primary();
    if (p == null || p.nodeId() == nodeId) {
      return false;
    }
    MemberInfo primary = v.member(p.nodeId());
    MemberInfo t = v.member(nodeId);
    return primary != null && t != null && t.role() == Role.REPLICA && t.eligible() && t.integrity().corruptFiles().isEmpty()
        && t.primaryGen() == p.primaryGen() && t.searchingVersion() >= primary.searchingVersion() - maxLagVersions
        && (v.inSync() == null || v.inSync().holds(t));
  }

  /** Primaries per live host before the moves, by node id. */
  public SortedMap<Integer, Integer> before() {
    return before;
  }

  /** Primaries per live host once every move is done, by node id. */
  public SortedMap<Integer, Integer> after() {
    return after;
  }

  /** The moves, in the order the plan chose them. */
  public List<Move> moves() {
    return moves;
  }

  /** Whether nothing needs to (or can) move. */
  public boolean isEmpty() {
    return moves.isEmpty();
  }

  /** The moves whose primary is on host {@code nodeId} (what that host carries out). */
  public List<Move> movesFrom(int nodeId) {
    return moves.stream().filter(m -> m.from() == nodeId).toList();
  }

  @Override
  public String toString() {
    return "primaries per host " + before + " -> " + after + ", moves " + moves;
  }
}

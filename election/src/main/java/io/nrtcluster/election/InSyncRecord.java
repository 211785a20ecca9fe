package io.nrtcluster.election;

import io.nrtcluster.common.Experimental;
import io.nrtcluster.common.PropertiesCodec;
import io.nrtcluster.common.ProtocolException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * An index's in-sync set as ZooKeeper keeps it ({@code /nrtcluster/<cluster>/<index>/insync}): the
 * primary that wrote it and the replicas it counts as holding every version it acknowledged as
 * replicated, each named with the incarnation (the run of its index, {@link MemberInfo#incarnation})
 * that installed what it holds. Only the primary of the current epoch writes it, in a transaction
 * that checks its epoch ({@link IndexElection#replaceInSync}); the election reads it.
 *
 * <p>The rule it carries ({@link #electable}): only a node it names, in the named incarnation, may
 * win an election, because only such a node holds every replicated acknowledgement (a replica that
 * lacks a version leaves the set before the primary acknowledges that version). When none of the
 * named nodes is alive in its named incarnation and every one of them is alive in another (they
 * all restarted, as in a whole-cluster restart), no node holds more than its commit, and every
 * eligible member may win (the newest commit does); otherwise nobody wins until one comes back (an
 * operator's forced promotion overrides, accepting the loss).
 *
 * @param epoch the primary generation of the primary that wrote it
 * @param primary that primary's node id
 * @param primaryIncarnation that primary's incarnation
 * @param members in-sync replicas: node id to incarnation (never the primary itself)
 * @param departed the last departure of each replica that left the set, by node id
 */
@Experimental
public record InSyncRecord(long epoch, int primary, long primaryIncarnation, Map<Integer, Long> members,
    Map<Integer, Departure> departed) {
  /** Most departures kept: a record stays small. */
  static final int MAX_DEPARTED = 16;

  public InSyncRecord {
    members = Map.copyOf(new TreeMap<>(members));
    members.keySet().forEach(id -> {
      if (id == primary) {
        throw new IllegalArgumentException("the primary (node " + primary + ") is never one of its in-sync replicas");
      }
    });
    TreeMap<Integer, Departure> d = new TreeMap<>(departed);
    d.keySet().removeAll(members.keySet());
    while (d.size() > MAX_DEPARTED) {
      d.remove(d.entrySet().stream().min((a, b) -> Long.compare(a.getValue().atMillis(), b.getValue().atMillis()))
          .orElseThrow().getKey());
    }
    departed = Map.copyOf(d);
  }

  /**
   * Why and when a replica left the set.
   *
   * @param reason why
   * @param version the version it lacked (LAGGED) or -1
   * @param atMillis wall-clock millis of the departure
   */
  public record Departure(OutOfSyncReason reason, long version, long atMillis) {}

  /** The record with its ZooKeeper data version, which the next write and every claim check. */
  public record Stored(InSyncRecord record, int zkVersion) {}

  /** The first record of a primary: no replica is known to be in sync with it yet. */
  public static InSyncRecord start(long epoch, int primary, long primaryIncarnation) {
    return new InSyncRecord(epoch, primary, primaryIncarnation, Map.of(), Map.of());
  }

  /** Every node this record names (the primary and its in-sync replicas), node id to incarnation. */
  public Map<Integer, Long> named() {
    TreeMap<Integer, Long> all = new TreeMap<>(members);
    all.put(primary, primaryIncarnation);
    return all;
  }

  /** Whether {@code m} is named here in its current incarnation. */
  public boolean holds(MemberInfo m) {
    Long inc = named().get(m.nodeId());
    return inc != null && inc == m.incarnation();
  }

  /** This record with {@code nodeId} in the set at {@code incarnation}. */
  public InSyncRecord with(int nodeId, long incarnation) {
    Map<Integer, Long> m = new TreeMap<>(members);
    m.put(nodeId, incarnation);
    return new InSyncRecord(epoch, primary, primaryIncarnation, m, departed);
  }

  /** This record without {@code nodeId}, which left for {@code why}. */
  public InSyncRecord without(int nodeId, Departure why) {
    Map<Integer, Long> m = new TreeMap<>(members);
    m.remove(nodeId);
    Map<Integer, Departure> d = new TreeMap<>(departed);
    d.put(nodeId, why);
    return new InSyncRecord(epoch, primary, primaryIncarnation, m, d);
  }

  /**
   * The members that may win an election under this record (see the class comment): the live ones
   * it names in their named incarnation; when there are none and every named node is live in
   * another incarnation, all of {@code live}; otherwise none. A null record (an index that never had
   * a primary write one) restricts nothing.
   */
  public static List<MemberInfo> electable(InSyncRecord record, List<MemberInfo> live) {
    if (record == null) {
      return live;
    }
    List<MemberInfo> holders = live.stream().filter(record::holds).toList();
    if (!holders.isEmpty()) {
      return holders;
    }
    boolean allRestarted = record.named().keySet().stream().allMatch(id -> live.stream().anyMatch(m -> m.nodeId() == id));
    return allRestarted ? live : List.of();
  }

  /**
   * The record for people, e.g. {@code in-sync: primary 1, replicas [2, 3]; left: 4 LAGGED (lacked
   * version 17) 12 s ago} ({@code left: none} when no replica departed); times relative to {@code
   * nowMillis}.
   */
  public String describe(long nowMillis) {
    StringBuilder b = new StringBuilder("in-sync: primary ").append(primary).append(", replicas ")
        .append(members.keySet().stream().sorted().toList()).append("; left: ");
    if (departed.isEmpty()) {
      return b.append("none").toString();
    }
    List<String> left = new ArrayList<>();
    new TreeMap<>(departed).forEach((id, d) -> left.add(id + " " + d.reason()
        + (d.reason() == OutOfSyncReason.LAGGED && d.version() >= 0 ? " (lacked version " + d.version() + ")" : "")
        + (d.atMillis() > 0 ? " " + Math.max(0, (nowMillis - d.atMillis()) / 1000) + " s ago" : "")));
    return b.append(String.join(", ", left)).toString();
  }

  byte[] encode() {
    Properties p = new Properties();
    RecordFormat.stamp(p);
    p.setProperty("epoch", Long.toString(epoch));
    p.setProperty("primary", Integer.toString(primary));
    p.setProperty("primaryIncarnation", Long.toString(primaryIncarnation));
    List<String> ids = new ArrayList<>();
    members.forEach((id, inc) -> {
      ids.add(Integer.toString(id));
      p.setProperty("member." + id, Long.toString(inc));
    });
    p.setProperty("members", String.join(",", ids));
    departed.forEach((id, d) -> {
      p.setProperty("departed." + id + ".reason", d.reason().name());
      p.setProperty("departed." + id + ".version", Long.toString(d.version()));
      p.setProperty("departed." + id + ".millis", Long.toString(d.atMillis()));
    });
    return PropertiesCodec.encode(p);
  }

  /** The record in {@code data}, or null for an empty znode (created, never written by a primary). */
  static InSyncRecord decode(byte[] data) throws ProtocolException {
    if (data == null || data.length == 0) {
      return null;
    }
    Properties p = PropertiesCodec.decode(data);
    try {
      RecordFormat.of(p);
      Map<Integer, Long> members = new TreeMap<>();
      String list = p.getProperty("members", "").trim();
      if (!list.isEmpty()) {
        for (String id : list.split(",")) {
          members.put(Integer.parseInt(id.trim()), Long.parseLong(p.getProperty("member." + id.trim())));
        }
      }
      Map<Integer, Departure> departed = new TreeMap<>();
      for (String key : p.stringPropertyNames()) {
        if (key.startsWith("departed.") && key.endsWith(".reason")) {
          String id = key.substring("departed.".length(), key.length() - ".reason".length());
          departed.put(Integer.parseInt(id), new Departure(OutOfSyncReason.named(p.getProperty(key)),
              Long.parseLong(p.getProperty("departed." + id + ".version", "-1")),
              Long.parseLong(p.getProperty("departed." + id + ".millis", "0"))));
        }
      }
      return new InSyncRecord(Long.parseLong(p.getProperty("epoch")), Integer.parseInt(p.getProperty("primary")),
          Long.parseLong(p.getProperty("primaryIncarnation")), members, departed);
    } catch (RuntimeException e) {
      throw new ProtocolException("malformed in-sync record: " + e);
    }
  }
}

package io.nrtcluster.examples.search;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import io.nrtcluster.election.InSyncRecord;
import io.nrtcluster.election.MemberInfo;
import io.nrtcluster.node.ClusterNode;
import io.nrtcluster.node.NrtHost;
import io.nrtcluster.node.NodeStatus;
import java.io.IOException;
import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code GET /status}: this node (id, HTTP URL, replication address) and, per index, its role,
 * versions, whether it takes writes and why not, the points-in-time it holds for paging, the primary (with its HTTP URL), every live
 * member as ZooKeeper has them (each with whether it is in the in-sync set), and the in-sync set itself
 * ({@code inSync}: the replicas that hold every replicated acknowledgement, and why each that left did).
 */
final class StatusHandler implements Router.Route {
  private final ObjectMapper json;
  private final NrtHost host;
  private final URI http;
  private final Map<String, HostedIndex> indexes;
  private final HttpAddressBook addresses;

  StatusHandler(ObjectMapper json, NrtHost host, URI http, Map<String, HostedIndex> indexes, HttpAddressBook addresses) {
    this.json = json;
    this.host = host;
    this.http = http;
    this.indexes = indexes;
    this.addresses = addresses;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("node", host.nodeId());
    reply.put("http", http.toString());
    reply.put("replication", host.address().toString());
    Map<String, Object> byIndex = new LinkedHashMap<>();
    for (HostedIndex index : indexes.values()) {
      byIndex.put(index.name(), index(index));
    }
    reply.put("indexes", byIndex);
    Exchanges.sendJson(exchange, 200, reply, json);
  }

  private Map<String, Object> index(HostedIndex index) {
    ClusterNode node = index.node();
    NodeStatus s = node.status();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("role", s.role().name());
    // From the same snapshot as the role: a primary that refuses writes (below its disk floor,
    // fenced, ...) says so and why, rather than a writable that a write's 507 contradicts.
    m.put("writable", s.writable());
    m.put("notWritable", s.notWritable());
    m.put("primaryGen", s.primaryGen());
    m.put("searchingVersion", s.searchingVersion());
    m.put("commitVersion", s.commitVersion());
    m.put("heldVersions", index.searchers().heldVersions());
    // Whether this node may lead, and the corrupt files it has not copied again yet (none: []).
    m.put("integrity", s.integrity());
    Map<String, Object> primary = new LinkedHashMap<>();
    primary.put("replication", s.primaryAddress());
    primary.put("http", addresses.httpOf(s.primaryAddress()).map(URI::toString).orElse(null));
    m.put("primary", s.primaryAddress() == null ? null : primary);
    m.put("inSync", inSync(node.cachedInSyncSet()));
    // From this node's cache, never a live read: a status page must answer while ZooKeeper is
    // unreachable, which is exactly when an operator needs it.
    try {
      List<Map<String, Object>> members = new ArrayList<>();
      InSyncRecord record = node.cachedInSyncSet();
      for (MemberInfo mi : node.cachedMembers()) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("nodeId", mi.nodeId());
        row.put("role", mi.role().name());
        row.put("searchingVersion", mi.searchingVersion());
        row.put("writable", mi.writable());
        row.put("notWritable", mi.notWritable());
        row.put("replication", mi.address());
        row.put("http", addresses.httpOf(mi).map(URI::toString).orElse(null));
        row.put("inSync", record == null || record.holds(mi));
        members.add(row);
      }
      m.put("members", members);
    } catch (RuntimeException e) {
      m.put("members", null);
      m.put("membersError", e.toString());
    }
    return m;
  }

  /**
   * The in-sync set: its primary, the replicas in it ({@code members}), and why and when each replica
   * that left did ({@code departed}: reason LAGGED with the version it lacked, or RESTARTED); null
   * when no primary recorded one (every member counts as in sync).
   */
  private static Map<String, Object> inSync(InSyncRecord record) {
    if (record == null) {
      return null;
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("epoch", record.epoch());
    out.put("primary", record.primary());
    out.put("members", new TreeMap<>(record.members()).keySet().stream().toList());
    List<Map<String, Object>> departed = new ArrayList<>();
    new TreeMap<>(record.departed()).forEach((id, d) -> {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("nodeId", id);
      row.put("reason", d.reason().name());
      row.put("version", d.version());
      row.put("at", d.atMillis() > 0 ? Instant.ofEpochMilli(d.atMillis()).toString() : null);
      departed.add(row);
    });
    out.put("departed", departed);
    return out;
  }
}

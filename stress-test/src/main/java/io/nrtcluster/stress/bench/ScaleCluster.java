package io.nrtcluster.stress.bench;

import io.nrtcluster.common.ProtocolException;
import io.nrtcluster.election.PrimaryInfo;
import io.nrtcluster.election.Role;
import io.nrtcluster.election.ZkLayout;
import io.nrtcluster.stress.AgentException;
import io.nrtcluster.stress.JsonClient;
import io.nrtcluster.stress.NodeProcess;
import io.nrtcluster.stress.ProcessCluster;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.KeeperException;

/**
 * The scale figure's node processes: {@code nodes} benchmark nodes ({@link BenchNodeMain} with
 * {@code --indexes}), each hosting every index of cluster {@code cluster}, on the run's ZooKeeper.
 * Started, killed and restarted through the same {@link NodeProcess} and {@link ProcessCluster} as
 * the other figures' nodes; roles and versions come from the nodes ({@code /scale-status}), the
 * placement of primaries from ZooKeeper's primary znodes, read directly (so it shows whatever the
 * election decided, however it decided it).
 */
final class ScaleCluster implements Closeable {
  /** Opening a node's indexes one after the other takes a while on a busy machine. */
  static final Duration START = Duration.ofMinutes(10);
  private static final Duration CALL = Duration.ofSeconds(10);

  private final String cluster;
  private final int indexes;
  private final List<NodeProcess> nodes = new ArrayList<>();
  private final ProcessCluster processes;
  private final CuratorFramework zk;

  ScaleCluster(BenchConfig config, String zooKeeper, Path dir, String cluster, int indexes, int nodeCount) {
    this.cluster = cluster;
    this.indexes = indexes;
    for (int id = 1; id <= nodeCount; id++) {
      Path nodeDir = dir.resolve("node-" + id);
      nodes.add(new NodeProcess(id, nodeDir, BenchNodes.command(config, config.scale().heapMb(), nodeDir, id, List.of(
          "--zk", zooKeeper, "--cluster", cluster, "--indexes", Integer.toString(indexes),
          "--session-timeout-ms", Integer.toString(config.sessionTimeoutMs()), "--merge-wait-ms", "0"))));
    }
    processes = new ProcessCluster(nodes, START);
    zk = CuratorFrameworkFactory.newClient(zooKeeper, 30_000, 15_000, new RetryNTimes(10, 500));
    zk.start();
  }

  String cluster() {
    return cluster;
  }

  int indexes() {
    return indexes;
  }

  List<NodeProcess> nodes() {
    return nodes;
  }

  NodeProcess node(int id) {
    return processes.node(id);
  }

  /** Starts every node that is down, all at once, and waits until each serves (has opened its indexes). */
  void startAll() throws IOException {
    processes.startAll();
  }

  /** Starts node {@code p} again on its directory and waits until it serves. */
  void start(NodeProcess p) throws IOException {
    processes.start(p);
  }

  /** Every index's state on every node that is up, by node id; a node that does not answer is left out. */
  Map<Integer, List<BenchApi.IndexState>> states() {
    Map<Integer, List<BenchApi.IndexState>> out = new HashMap<>();
    for (NodeProcess p : nodes) {
      if (p.state() == NodeProcess.State.UP) {
        try {
          out.put(p.id(), client(p).get("/scale-status", CALL, BenchApi.ScaleStatus.class).indexes());
        } catch (AgentException e) {
          // Not answering now (starting, busy): counts as not searching.
        }
      }
    }
    return out;
  }

  /**
   * Whether every index has one primary and every other node that is up searches as its replica: the
   * primary's generation, at the primary's version or newer.
   */
  boolean allSearching() {
    return notSearching(null) == null;
  }

  /**
   * Null when every index has one primary and node {@code only} (every node that is up, when null)
   * searches as its replica (or is its primary); else what is missing: how many indexes, the first
   * few with every node's state of them.
   */
  String notSearching(Integer only) {
    Map<Integer, List<BenchApi.IndexState>> states = states();
    Set<Integer> up = upIds();
    if (!states.keySet().containsAll(up)) {
      return "nodes " + up + " are up but only " + states.keySet() + " answer";
    }
    List<String> missing = new ArrayList<>();
    for (int i = 0; i < indexes; i++) {
      if (!searching(i, states, only)) {
        StringJoiner each = new StringJoiner(", ", ScaleEndpoints.indexName(i) + " [", "]");
        for (Map.Entry<Integer, List<BenchApi.IndexState>> e : new TreeMap<>(states).entrySet()) {
          BenchApi.IndexState st = e.getValue().get(i);
          each.add("N" + e.getKey() + " " + st.role() + " gen " + st.gen() + " v" + st.version());
        }
        missing.add(each.toString());
      }
    }
    if (missing.isEmpty()) {
      return null;
    }
    return missing.size() + " indexes not searching everywhere, e.g. "
        + String.join("; ", missing.subList(0, Math.min(3, missing.size())));
  }

  private static boolean searching(int i, Map<Integer, List<BenchApi.IndexState>> states, Integer only) {
    BenchApi.IndexState primary = null;
    for (List<BenchApi.IndexState> s : states.values()) {
      if (s.get(i).role() == Role.PRIMARY) {
        if (primary != null) {
          return false;
        }
        primary = s.get(i);
      }
    }
    if (primary == null) {
      return false;
    }
    for (Map.Entry<Integer, List<BenchApi.IndexState>> e : states.entrySet()) {
      BenchApi.IndexState r = e.getValue().get(i);
      if ((only == null || only.equals(e.getKey())) && r != primary
          && (r.role() != Role.REPLICA || r.gen() != primary.gen() || r.version() < primary.version())) {
        return false;
      }
    }
    return true;
  }

  /** Waits (bounded by {@code timeout}) until {@link #allSearching}; returns when it was first seen, in nanoTime. */
  long awaitAllSearching(Duration timeout) throws IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!allSearching()) {
      if (System.nanoTime() - deadline > 0) {
        throw new IOException("waited " + timeout.toSeconds() + " s in vain for every index of " + cluster
            + " to have a primary and every node searching: " + notSearching(null));
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
    }
    return System.nanoTime();
  }

  /** Who ZooKeeper names as primary of each index now (index number to node id; absent: none). */
  Map<Integer, Integer> primaries() throws IOException {
    Map<Integer, Integer> out = new HashMap<>();
    for (int i = 0; i < indexes; i++) {
      try {
        byte[] data = zk.getData().forPath(ZkLayout.of(cluster, ScaleEndpoints.indexName(i)).primary());
        out.put(i, PrimaryInfo.decode(data).nodeId());
      } catch (KeeperException.NoNodeException none) {
        // No primary at this moment (an election or a hand-off in progress).
      } catch (ProtocolException e) {
        throw new IOException("index " + i + ": " + e.getMessage(), e);
      } catch (Exception e) {
        throw new IOException("reading the primary of index " + i + " from ZooKeeper failed: " + e, e);
      }
    }
    return out;
  }

  /** Primaries per node among {@code nodeIds} (every one listed, 0 when it holds none). */
  static Map<Integer, Integer> perNode(Map<Integer, Integer> primaries, Set<Integer> nodeIds) {
    Map<Integer, Integer> counts = new TreeMap<>();
    nodeIds.forEach(id -> counts.put(id, 0));
    primaries.values().forEach(id -> counts.merge(id, 1, Integer::sum));
    return counts;
  }

  /** The ids of the nodes that are up. */
  Set<Integer> upIds() {
    Set<Integer> ids = new TreeSet<>();
    nodes.stream().filter(p -> p.state() == NodeProcess.State.UP).forEach(p -> ids.add(p.id()));
    return ids;
  }

  /**
   * Writes to each index of {@code pending} on every node but {@code except} until each was acknowledged
   * once (bounded by {@code timeout}); returns when each was first acknowledged (nanoTime, taken in the
   * node that acknowledged it). An index not acknowledged in time is absent.
   */
  Map<Integer, Long> awaitWritable(Set<Integer> pending, NodeProcess except, Duration timeout) {
    Set<Integer> left = new TreeSet<>(pending);
    Map<Integer, Long> acked = new HashMap<>();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!left.isEmpty() && System.nanoTime() - deadline < 0) {
      for (NodeProcess p : nodes) {
        if (p == except || p.state() != NodeProcess.State.UP || left.isEmpty()) {
          continue;
        }
        StringJoiner list = new StringJoiner(",");
        left.forEach(i -> list.add(Integer.toString(i)));
        try {
          for (BenchApi.Acked a : client(p).post("/scale-probe?indexes=" + list, null, CALL, BenchApi.ProbeReply.class).acked()) {
            if (left.remove(a.index())) {
              acked.put(a.index(), a.nanos());
            }
          }
        } catch (AgentException e) {
          // Busy or briefly unreachable: ask again.
        }
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
    return acked;
  }

  /** Process CPU nanos node {@code p} spent between two nanoTime instants (its agent samples it). */
  long cpuNanos(NodeProcess p, long fromNanos, long toNanos) throws AgentException {
    return client(p).get("/cpu?from=" + fromNanos + "&to=" + toNanos, CALL, BenchApi.CpuReply.class).cpuNanos();
  }

  /** Threads and memory of node {@code p}, after a full GC when {@code gc}. */
  BenchApi.JvmReply jvm(NodeProcess p, boolean gc) throws AgentException {
    return client(p).get("/jvm?gc=" + (gc ? 1 : 0), Duration.ofMinutes(1), BenchApi.JvmReply.class);
  }

  /** Starts the refresh load (a document and a refresh every {@code refreshMs} per index) on every node that is up. */
  void startRefreshLoad(long refreshMs) throws AgentException {
    for (NodeProcess p : nodes) {
      if (p.state() == NodeProcess.State.UP) {
        client(p).post("/scale-refresh-start?refreshMs=" + refreshMs, null, CALL, Map.class);
      }
    }
  }

  /** Stops the refresh load everywhere; the refreshes every node made between {@code fromNanos} and {@code toNanos}. */
  List<BenchApi.RefreshLoadReply> stopRefreshLoad(long fromNanos, long toNanos) throws AgentException {
    List<BenchApi.RefreshLoadReply> out = new ArrayList<>();
    for (NodeProcess p : nodes) {
      if (p.state() == NodeProcess.State.UP) {
        out.add(client(p).post("/scale-refresh-stop?from=" + fromNanos + "&to=" + toNanos, null, Duration.ofSeconds(30),
            BenchApi.RefreshLoadReply.class));
      }
    }
    return out;
  }

  /** Writes the harness's marker znode: the zxid that bounds a window of {@link ZkWriteCensus}. */
  ZkWriteCensus.Mark mark() throws IOException {
    return ZkWriteCensus.mark(zk);
  }

  /** {@link ZkWriteCensus#capacity} of the run's ZooKeeper server, for {@code d}. */
  double zooKeeperCapacity(Duration d) throws IOException {
    return ZkWriteCensus.capacity(zk, d);
  }

  private static JsonClient client(NodeProcess p) {
    return new JsonClient("S" + p.id(), p.httpHost(), p.httpPort());
  }

  /** Stops every node gracefully (each index commits and resigns), all at once, and closes the ZooKeeper client. */
  @Override
  public void close() {
    List<Thread> stopping = new ArrayList<>();
    for (NodeProcess p : nodes) {
      stopping.add(Thread.ofPlatform().name("bench-stop-N" + p.id()).start(() -> p.stopGracefully(60_000)));
    }
    for (Thread t : stopping) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        processes.killAll();
        break;
      }
    }
    zk.close();
  }
}

package io.nrtcluster.stress.bench;

import io.nrtcluster.election.Role;
import io.nrtcluster.stress.NodeProcess;
import io.nrtcluster.stress.ProcessCluster;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

/**
 * The processes of a benchmark run: a ZooKeeper server (in the harness's JVM), two single-node
 * baselines (merge-on-refresh wait 0 and 500 ms) and a three-node cluster of one index (node 1 starts
 * first, so it is the first primary), started and waited for through a {@link ProcessCluster}. A run
 * of the scale figure alone starts only the ZooKeeper server ({@link ScaleCluster} starts its own nodes).
 */
final class BenchNodes implements Closeable {
  private static final long START_MS = 120_000;
  private static final Duration START = Duration.ofMillis(START_MS);
  private final TestingServer zk;
  private final Path zooKeeperDir;
  final NodeProcess standalone;
  final NodeProcess standaloneMergeWait;
  final List<NodeProcess> cluster = new ArrayList<>();
  private final ProcessCluster processes;

  BenchNodes(BenchConfig config) throws Exception {
    Path out = config.out();
    zooKeeperDir = out.resolve("zookeeper");
    zk = new TestingServer(new InstanceSpec(zooKeeperDir.toFile(), -1, -1, -1, true, 1, 500, -1), true);
    if (!config.runsOneIndexFigures()) {
      // The scale figure starts its own node processes: none of these would be used.
      standalone = null;
      standaloneMergeWait = null;
      processes = null;
      return;
    }
    standalone = start(new NodeProcess(101, out.resolve("standalone"), command(config, out.resolve("standalone"),
        101, "--standalone", "--merge-wait-ms", "0")));
    standaloneMergeWait = start(new NodeProcess(102, out.resolve("standalone-mergewait500"),
        command(config, out.resolve("standalone-mergewait500"), 102, "--standalone", "--merge-wait-ms", "500")));
    for (int id = 1; id <= 3; id++) {
      Path dir = out.resolve("node-" + id);
      List<String> args = new ArrayList<>(List.of("--zk", zk.getConnectString(),
          "--session-timeout-ms", Integer.toString(config.sessionTimeoutMs()), "--merge-wait-ms", "0"));
      if (config.runs(BenchFigure.DELAY) || config.runs(BenchFigure.DURABILITY)) {
        args.add("--link-delay-switch");
      }
      cluster.add(new NodeProcess(id, dir, command(config, dir, id, args.toArray(String[]::new))));
    }
    processes = new ProcessCluster(cluster, START).startWithFirstAsPrimary();
    processes.awaitRoles(START);
  }

  private static List<String> command(BenchConfig config, Path dir, int id, String... args) {
    return command(config, config.heapMb(), dir, id, List.of(args));
  }

  /** The command line of benchmark node {@code id} in {@code dir} with a heap of {@code heapMb}: {@link BenchNodeMain} and {@code args}. */
  static List<String> command(BenchConfig config, int heapMb, Path dir, int id, List<String> args) {
    // Each thread's CPU every 100 ms (the profile's default is every 10 s): enough to split a one-second
    // pre-copy's CPU between the event loop, the copy threads and the rest (figure 3).
    List<String> cmd = NodeProcess.java(dir, heapMb, config.profile()
        ? List.of("-XX:StartFlightRecording=filename=" + dir.resolve("node.jfr")
            + ",settings=profile,dumponexit=true,jdk.ThreadCPULoad#period=100ms")
        : List.of());
    cmd.add(BenchNodeMain.class.getName());
    cmd.addAll(List.of("--data", dir.toString(), "--id", Integer.toString(id)));
    cmd.addAll(args);
    return cmd;
  }

  static NodeProcess start(NodeProcess p) throws IOException {
    p.start(START_MS);
    return p;
  }

  static BenchClient client(NodeProcess p) {
    return new BenchClient("B" + p.id(), p.httpPort());
  }

  /** Waits (bounded) until node {@code p} has {@code role}. */
  static void awaitRole(NodeProcess p, Role role) throws IOException {
    ProcessCluster.awaitRole(p, role, START);
  }

  /** Waits (bounded) until every cluster node that is up searches {@code version} or newer. */
  void awaitVersion(long version) throws IOException {
    processes.awaitAllAt(version, START);
  }

  /** Restarts any cluster node that died and waits (bounded) for one primary and two replicas. */
  static void awaitAll(BenchNodes nodes) throws IOException {
    for (NodeProcess p : nodes.cluster) {
      if (!p.alive()) {
        p.kill();
        start(p);
      }
    }
    nodes.processes.awaitRoles(START);
  }

  /** The cluster node that says it is primary now, waiting (bounded) for one. */
  NodeProcess primary() throws IOException {
    return processes.awaitPrimary(Duration.ofSeconds(60));
  }

  /** The cluster nodes other than {@code primary} that are up, by id. */
  List<NodeProcess> replicasOf(NodeProcess primary) {
    return processes.replicasOf(primary);
  }

  String zooKeeper() {
    return zk.getConnectString();
  }

  /** Where the ZooKeeper server keeps its data, transaction logs included. */
  Path zooKeeperDir() {
    return zooKeeperDir;
  }

  /** Stops the baselines and the one-index cluster (gracefully), keeping the ZooKeeper server. */
  void stopNodes() {
    List<NodeProcess> all = new ArrayList<>(cluster);
    if (standalone != null) {
      all.add(standalone);
      all.add(standaloneMergeWait);
    }
    for (NodeProcess p : all) {
      p.stopGracefully(30_000);
    }
  }

  @Override
  public void close() throws IOException {
    stopNodes();
    zk.close();
  }
}

package io.nrtcluster.stress.bench;

import io.nrtcluster.stress.AgentException;
import io.nrtcluster.stress.NodeProcess;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

/**
 * The processes of a benchmark run: a ZooKeeper server (in the harness's JVM), two single-node
 * baselines (merge-on-refresh wait 0 and 500 ms) and a three-node cluster (node 1 starts first, so
 * it is the first primary).
 */
final class BenchNodes implements Closeable {
  private static final long START_MS = 120_000;
  private final TestingServer zk;
  final NodeProcess standalone;
  final NodeProcess standaloneMergeWait;
  final List<NodeProcess> cluster = new ArrayList<>();

  BenchNodes(BenchConfig config) throws Exception {
    Path out = config.out();
    zk = new TestingServer(new InstanceSpec(out.resolve("zookeeper").toFile(), -1, -1, -1, true, 1, 500, -1), true);
    standalone = start(new NodeProcess(101, out.resolve("standalone"), command(config, out.resolve("standalone"),
        101, "--standalone", "--merge-wait-ms", "0")));
    standaloneMergeWait = start(new NodeProcess(102, out.resolve("standalone-mergewait500"),
        command(config, out.resolve("standalone-mergewait500"), 102, "--standalone", "--merge-wait-ms", "500")));
    for (int id = 1; id <= 3; id++) {
      Path dir = out.resolve("node-" + id);
      cluster.add(new NodeProcess(id, dir, command(config, dir, id, "--zk", zk.getConnectString(),
          "--session-timeout-ms", Integer.toString(config.sessionTimeoutMs()), "--merge-wait-ms", "0")));
    }
    start(cluster.get(0));
    awaitRole(cluster.get(0), "PRIMARY");
    start(cluster.get(1));
    start(cluster.get(2));
    awaitRole(cluster.get(1), "REPLICA");
    awaitRole(cluster.get(2), "REPLICA");
  }

  private static List<String> command(BenchConfig config, Path dir, int id, String... args) {
    List<String> cmd = NodeProcess.java(dir, config.heapMb(), config.profile()
        ? List.of("-XX:StartFlightRecording=filename=" + dir.resolve("node.jfr") + ",settings=profile,dumponexit=true")
        : List.of());
    cmd.add(BenchNodeMain.class.getName());
    cmd.addAll(List.of("--data", dir.toString(), "--id", Integer.toString(id)));
    cmd.addAll(List.of(args));
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
  static void awaitRole(NodeProcess p, String role) throws IOException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_MS);
    while (System.nanoTime() < deadline) {
      try {
        if (role.equals(client(p).status().role())) {
          return;
        }
      } catch (AgentException e) {
        // starting
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
    throw new IOException("N" + p.id() + " did not become " + role + " within " + START_MS + " ms");
  }

  /** Waits (bounded) until every cluster node that is up searches {@code version} or newer. */
  void awaitVersion(long version) throws IOException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_MS);
    while (System.nanoTime() < deadline) {
      boolean all = true;
      for (NodeProcess p : cluster) {
        if (p.state() == NodeProcess.State.UP) {
          try {
            all &= client(p).status().version() >= version;
          } catch (AgentException e) {
            all = false;
          }
        }
      }
      if (all) {
        return;
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
    throw new IOException("the replicas did not reach version " + version + " within " + START_MS + " ms");
  }

  /** Restarts any cluster node that died and waits (bounded) for one primary and two replicas. */
  static void awaitAll(BenchNodes nodes) throws IOException {
    for (NodeProcess p : nodes.cluster) {
      if (!p.alive()) {
        p.kill();
        start(p);
      }
    }
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_MS);
    while (System.nanoTime() < deadline) {
      int primaries = 0;
      int replicas = 0;
      for (NodeProcess p : nodes.cluster) {
        try {
          String role = client(p).status().role();
          primaries += "PRIMARY".equals(role) ? 1 : 0;
          replicas += "REPLICA".equals(role) ? 1 : 0;
        } catch (AgentException e) {
          // not up yet
        }
      }
      if (primaries == 1 && replicas == nodes.cluster.size() - 1) {
        return;
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
    }
    throw new IOException("the cluster did not settle on one primary within " + START_MS + " ms");
  }

  /** The cluster node that says it is primary now, waiting (bounded) for one. */
  NodeProcess primary() throws IOException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      for (NodeProcess p : cluster) {
        if (p.state() == NodeProcess.State.UP) {
          try {
            if ("PRIMARY".equals(BenchNodes.client(p).status().role())) {
              return p;
            }
          } catch (AgentException e) {
            // try the next
          }
        }
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
    throw new IOException("no primary");
  }

  /** The cluster nodes other than {@code primary} that are up, by id. */
  List<NodeProcess> replicasOf(NodeProcess primary) {
    return cluster.stream().filter(p -> p != primary && p.state() == NodeProcess.State.UP).toList();
  }

  String zooKeeper() {
    return zk.getConnectString();
  }

  @Override
  public void close() throws IOException {
    List<NodeProcess> all = new ArrayList<>(cluster);
    all.add(standalone);
    all.add(standaloneMergeWait);
    for (NodeProcess p : all) {
      p.stopGracefully(30_000);
    }
    zk.close();
  }
}

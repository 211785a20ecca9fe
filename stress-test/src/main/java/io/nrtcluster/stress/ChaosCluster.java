package io.nrtcluster.stress;

import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.node.ClusterAdmin;
import io.nrtcluster.node.IndexStatus;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The system under test: a three-server ZooKeeper ensemble and the node processes of one index, plus
 * an operator's {@link ClusterAdmin} for asking ZooKeeper who leads and for promotions.
 */
final class ChaosCluster implements Closeable {
  static final String CLUSTER = "chaos";
  static final String INDEX = "docs";
  private static final Logger LOG = LoggerFactory.getLogger(ChaosCluster.class);
  private static final long START_TIMEOUT_MS = 90_000;

  private final ZkEnsemble zk;
  private final List<NodeProcess> nodes;
  private final ClusterAdmin admin;

  private ChaosCluster(ZkEnsemble zk, List<NodeProcess> nodes, ClusterAdmin admin) {
    this.zk = zk;
    this.nodes = nodes;
    this.admin = admin;
  }

  /** Starts the ensemble and every node (node ids 1..n), each in {@code dir/node-<id>}. */
  static ChaosCluster start(ChaosConfig config, Path dir) throws Exception {
    ZkEnsemble zk = new ZkEnsemble(dir.resolve("zookeeper"), 3);
    List<NodeProcess> nodes = new ArrayList<>();
    ClusterAdmin admin = null;
    try {
      admin = ClusterAdmin.connect(zk.connectString(), Duration.ofSeconds(30));
      for (int id = 1; id <= config.nodes(); id++) {
        Path nodeDir = dir.resolve("node-" + id);
        nodes.add(new NodeProcess(id, nodeDir, NodeProcess.command(id, nodeDir, zk.connectString(), CLUSTER, INDEX,
            config.sessionTimeout().toMillis(), config.seed() * 31 + id, config.nodeHeapMb(),
            config.dropEveryNthWrite())));
      }
      ChaosCluster cluster = new ChaosCluster(zk, List.copyOf(nodes), admin);
      // The first node alone, so it is the first primary; the rest together.
      nodes.get(0).start(START_TIMEOUT_MS);
      cluster.startAll();
      return cluster;
    } catch (Exception e) {
      for (NodeProcess n : nodes) {
        n.kill();
      }
      if (admin != null) {
        admin.close();
      }
      zk.close();
      throw e;
    }
  }

  List<NodeProcess> nodes() {
    return nodes;
  }

  NodeProcess node(int id) {
    return nodes.get(id - 1);
  }

  ZkEnsemble zooKeeper() {
    return zk;
  }

  ClusterAdmin admin() {
    return admin;
  }

  /** Starts every node that is down, in parallel. */
  void startAll() throws IOException {
    List<NodeProcess> down = nodes.stream().filter(n -> n.state() == NodeProcess.State.DOWN).toList();
    Parallel.forEach(down, "chaos-start", n -> n.start(START_TIMEOUT_MS));
  }

  /** The primary ZooKeeper names now, or null (none, or ZooKeeper unreachable). */
  NodeProcess primary() {
    try {
      IndexStatus s = admin.status(CLUSTER, INDEX);
      return s.primaryNodeId() > 0 && s.primaryNodeId() <= nodes.size() ? node(s.primaryNodeId()) : null;
    } catch (NrtClusterException e) {
      LOG.debug("no primary known: {}", e.toString());
      return null;
    }
  }

  /** Nodes that are up and not the given primary. */
  List<NodeProcess> replicasOf(NodeProcess primary) {
    List<NodeProcess> out = new ArrayList<>();
    for (NodeProcess n : nodes) {
      if (n != primary && n.state() == NodeProcess.State.UP) {
        out.add(n);
      }
    }
    return out;
  }

  /** Kills every node process at once (SIGKILL). */
  void killAll() {
    try {
      Parallel.forEach(nodes, "chaos-kill", NodeProcess::kill);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() throws IOException {
    for (NodeProcess n : nodes) {
      if (n.alive()) {
        n.kill();
      }
    }
    admin.close();
    zk.close();
  }
}

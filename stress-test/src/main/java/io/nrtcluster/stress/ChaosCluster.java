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
import java.util.function.BiFunction;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The system under test: a three-server ZooKeeper ensemble and the node processes of one index (a
 * {@link ProcessCluster}, which finds the primary as ZooKeeper names it), plus an operator's
 * {@link ClusterAdmin} for asking ZooKeeper who leads and for promotions; with the object store on,
 * the {@link ChaosStore} every node opens its index through.
 */
final class ChaosCluster implements Closeable {
  static final String CLUSTER = "chaos";
  static final String INDEX = "docs";
  private static final Logger LOG = LoggerFactory.getLogger(ChaosCluster.class);
  private static final long START_TIMEOUT_MS = 90_000;

  private final ZooKeeperServers zk;
  private final ProcessCluster processes;
  private final ClusterAdmin admin;
  private final Links links;
  private final Closeable network;
  private final Disks disks;
  /** Null without the object store. */
  private final ChaosStore store;

  private ChaosCluster(ZooKeeperServers zk, List<NodeProcess> nodes, ClusterAdmin admin, Links links, Closeable network,
      Disks disks, ChaosStore store) {
    this.zk = zk;
    this.store = store;
    this.admin = admin;
    this.links = links;
    this.network = network;
    this.disks = disks;
    this.processes = new ProcessCluster(nodes, Duration.ofMillis(START_TIMEOUT_MS)).primaryLocator(c -> zooKeepersPrimary());
  }

  /** Starts the ensemble and every node (node ids 1..n), each in {@code dir/node-<id>}. */
  static ChaosCluster start(ChaosConfig config, Path dir) throws Exception {
    if (config.network() == NetworkMode.NAMESPACES) {
      return NamespaceHosts.start(config, dir);
    }
    return start(config, new ZkEnsemble(dir.resolve("zookeeper"), 3), dir, id -> "127.0.0.1", (id, command) -> command,
        LOOPBACK_LINKS, () -> {}, "127.0.0.1");
  }

  /** Loopback has no links of its own to cut: the configuration refuses link faults before this is reached. */
  private static final Links LOOPBACK_LINKS = new Links() {
    @Override
    public void apply(LinkFault fault) throws IOException {
      throw new IOException("cannot " + fault.kind().key() + " on loopback: links can only be cut between hosts in "
          + "network namespaces");
    }

    @Override
    public void healAll() {}
  };

  /**
   * Starts the nodes (ids 1..n, each in {@code dir/node-<id>}, listening on {@code address(id)},
   * their command lines passed through {@code wrap}) against the running ensemble {@code zk}, with
   * the object store (if the configuration has one) listening on {@code storeHost}, an address of
   * this machine every node reaches; on failure kills what it started and closes {@code zk} and
   * {@code network}, which is otherwise closed last by {@link #close()}.
   */
  static ChaosCluster start(ChaosConfig config, ZooKeeperServers zk, Path dir, IntFunction<String> address,
      BiFunction<Integer, List<String>, List<String>> wrap, Links links, Closeable network,
      String storeHost) throws Exception {
    List<NodeProcess> nodes = new ArrayList<>();
    ClusterAdmin admin = null;
    Disks disks = Disks.PLAIN;
    ChaosStore store = null;
    try {
      if (config.storage() == StorageMode.TMPFS) {
        disks = Disks.tmpfs(dir, INDEX, config.nodes(), (long) config.diskMb() << 20);
      }
      if (config.objectStore()) {
        store = ChaosStore.start(storeHost, config.backupMode(), dir);
      }
      List<String> storeArgs = store == null ? List.of() : store.nodeArgs();
      admin = ClusterAdmin.connect(zk.connectString(), Duration.ofSeconds(30));
      for (int id = 1; id <= config.nodes(); id++) {
        Path nodeDir = dir.resolve("node-" + id);
        List<String> command = new ArrayList<>(NodeProcess.command(id, nodeDir, zk.connectString(), CLUSTER,
            INDEX, config.sessionTimeout().toMillis(), config.seed() * 31 + id, config.nodeHeapMb(),
            config.dropEveryNthWrite(), config.ackUnpublishedEvery(), address.apply(id)));
        command.addAll(storeArgs);
        nodes.add(new NodeProcess(id, nodeDir, wrap.apply(id, command)));
      }
      ChaosCluster cluster = new ChaosCluster(zk, List.copyOf(nodes), admin, links, network, disks, store);
      // The first node alone, so it is the first primary; the rest together.
      cluster.processes.startWithFirstAsPrimary();
      return cluster;
    } catch (Exception e) {
      for (NodeProcess n : nodes) {
        n.kill();
      }
      if (admin != null) {
        admin.close();
      }
      try {
        if (store != null) {
          store.close();
        }
        zk.close();
      } finally {
        try {
          disks.close();
        } finally {
          network.close();
        }
      }
      throw e;
    }
  }

  List<NodeProcess> nodes() {
    return processes.nodes();
  }

  NodeProcess node(int id) {
    return processes.node(id);
  }

  /** The node processes, for waiting on them. */
  ProcessCluster processes() {
    return processes;
  }

  ZooKeeperServers zooKeeper() {
    return zk;
  }

  /** Fills and frees the nodes' disks (only with tmpfs storage). */
  Disks disks() {
    return disks;
  }

  /** Cuts and slows links between hosts (only in namespace mode). */
  Links links() {
    return links;
  }

  ClusterAdmin admin() {
    return admin;
  }

  /** The object store the nodes back up to and bootstrap from; null when the run has none. */
  ChaosStore store() {
    return store;
  }

  /** Starts every node that is down, in parallel. */
  void startAll() throws IOException {
    processes.startAll();
  }

  /** The primary ZooKeeper names now, if it is up; or null (none, or ZooKeeper unreachable). */
  NodeProcess primary() {
    return processes.primary();
  }

  /**
   * Who ZooKeeper names primary now, and at which generation, as a client of the cluster sees it;
   * null when ZooKeeper does not answer.
   */
  WriteRoute.View view() {
    long at = System.nanoTime();
    try {
      IndexStatus s = admin.status(CLUSTER, INDEX);
      return s.primaryNodeId() > 0 && s.primaryNodeId() <= nodes().size()
          ? new WriteRoute.View(s.primaryNodeId(), s.primaryGen(), at) : WriteRoute.View.none(at);
    } catch (NrtClusterException e) {
      LOG.debug("no view of the primary: {}", e.toString());
      return null;
    }
  }

  private NodeProcess zooKeepersPrimary() {
    try {
      IndexStatus s = admin.status(CLUSTER, INDEX);
      return s.primaryNodeId() > 0 && s.primaryNodeId() <= nodes().size() ? node(s.primaryNodeId()) : null;
    } catch (NrtClusterException e) {
      LOG.debug("no primary known: {}", e.toString());
      return null;
    }
  }

  /** Nodes that are up and not the given primary. */
  List<NodeProcess> replicasOf(NodeProcess primary) {
    return processes.replicasOf(primary);
  }

  /** Kills every node process at once (SIGKILL). */
  void killAll() {
    processes.killAll();
  }

  @Override
  public void close() throws IOException {
    for (NodeProcess n : processes.nodes()) {
      if (n.alive()) {
        n.kill();
      }
    }
    try {
      admin.close();
      if (store != null) {
        store.close();
      }
      zk.close();
    } finally {
      try {
        disks.close();
      } finally {
        network.close();
      }
    }
  }
}

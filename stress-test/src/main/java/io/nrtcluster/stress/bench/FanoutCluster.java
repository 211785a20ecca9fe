package io.nrtcluster.stress.bench;

import io.nrtcluster.primary.CopyTreeConfig;
import io.nrtcluster.stress.NodeProcess;
import io.nrtcluster.stress.ProcessCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The node processes of one tree setting of figure 12 ({@link FanoutFigure}): a primary (node 1,
 * started first) and {@code replicas} replicas, one index opened with {@code --copy-tree}, in a
 * cluster of its own on the run's ZooKeeper server. A smaller replica count is reached by stopping
 * the replicas past it (the highest ids first: with the tree on they are the leaves).
 */
final class FanoutCluster implements AutoCloseable {
  private static final Duration START = Duration.ofMinutes(2);
  /** The merged segment of the warm-up (at most). */
  private static final long WARM_UP_MERGE_BYTES = 128L << 20;

  private final boolean tree;
  private final List<NodeProcess> procs;
  private final ProcessCluster cluster;

  private FanoutCluster(boolean tree, List<NodeProcess> procs, ProcessCluster cluster) {
    this.tree = tree;
    this.procs = procs;
    this.cluster = cluster;
  }

  /** {@code --copy-tree}'s value for {@code tree}. */
  static String spec(CopyTreeConfig tree) {
    return tree.enabled() ? tree.directReplicas() + "," + tree.fanOut() + "," + tree.parentWait().toMillis() : "off";
  }

  /** Starts the primary, then {@code replicas} replicas, of the copy tree {@code tree} (or every replica direct). */
  static FanoutCluster start(BenchConfig config, BenchNodes nodes, Path dir, boolean tree, int replicas,
      Consumer<String> out) throws IOException {
    String name = tree ? "tree" : "off";
    String spec = spec(tree ? FanoutFigure.TREE : CopyTreeConfig.OFF);
    List<NodeProcess> procs = new ArrayList<>();
    for (int id = 1; id <= 1 + replicas; id++) {
      Path d = dir.resolve(name).resolve("node-" + id);
      List<String> args = List.of("--zk", nodes.zooKeeper(), "--cluster", "fanout-" + name, "--session-timeout-ms",
          Integer.toString(config.sessionTimeoutMs()), "--merge-wait-ms", "0", "--copy-tree", spec);
      procs.add(new NodeProcess(id, d, BenchNodes.command(config, config.heapMb(), d, id, args)));
    }
    out.accept("bench: figure 12: a primary and " + replicas + " replicas, --copy-tree " + spec);
    FanoutCluster c = new FanoutCluster(tree, procs, new ProcessCluster(procs, START));
    try {
      c.cluster.startWithFirstAsPrimary();
      c.cluster.awaitRoles(START);
      FollowerFigure.awaitWritable(c.primary());
    } catch (IOException | RuntimeException e) {
      c.close();
      throw e;
    }
    return c;
  }

  boolean tree() {
    return tree;
  }

  ProcessCluster processes() {
    return cluster;
  }

  NodeProcess primary() {
    return procs.get(0);
  }

  /**
   * Fresh JVMs compile (C2) and size their heaps first: {@code warmUpSec} of the paced load, then a
   * bulk load and a forced merge of a smaller segment (its pre-copy down the tree), none measured.
   */
  void warmUp(BenchConfig config) throws IOException {
    BenchClient p = BenchNodes.client(primary());
    p.load(LoadRunner.Mode.NRT, FanoutFigure.DOCS_PER_SEC, FanoutFigure.REFRESH_MS, config.warmUpSec(), 1);
    long bytes = Math.min(config.copyBytes(), WARM_UP_MERGE_BYTES);
    p.bulk(bytes, Math.max(1 << 20, bytes / 8));
    p.forceMerge();
  }

  /** Stops the replicas past the first {@code replicas} (highest id first); returns those left. */
  List<NodeProcess> keep(int replicas) {
    for (int i = procs.size() - 1; i > replicas; i--) {
      procs.get(i).stopGracefully(30_000);
    }
    return procs.subList(1, replicas + 1);
  }

  /**
   * Stops every process (replicas first) and deletes their index data (a replica stopped for a
   * smaller count keeps its copy of a large merged segment), keeping their logs.
   */
  @Override
  public void close() throws IOException {
    for (int i = procs.size() - 1; i >= 0; i--) {
      procs.get(i).stopGracefully(30_000);
    }
    for (NodeProcess n : procs) {
      deleteTree(n.dir().resolve("bench"));
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    List<Path> all;
    try (Stream<Path> walk = Files.walk(dir)) {
      all = walk.sorted(Comparator.reverseOrder()).toList();
    }
    for (Path p : all) {
      Files.deleteIfExists(p);
    }
  }
}

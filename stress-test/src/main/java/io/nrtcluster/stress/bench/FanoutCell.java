package io.nrtcluster.stress.bench;

import io.nrtcluster.stress.AgentException;
import io.nrtcluster.stress.NodeProcess;
import io.nrtcluster.stress.ProcessCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * One cell of figure 12 ({@link FanoutFigure}): with the primary's replicas up and its copy tree
 * planned, a paced load (the lag of each replica), then a bulk load and a forced merge (the merge
 * pre-copy down to every replica), with the copy counters of every node before, between and after.
 */
final class FanoutCell {
  private static final Duration WAIT = Duration.ofMinutes(5);

  private FanoutCell() {}

  /** Every node's copy status at one moment: the primary's and each replica's by node id. */
  record Snapshot(BenchApi.CopyTreeStatus primary, Map<Integer, BenchApi.CopyTreeStatus> replicas) {
    /** Bytes the primary sent all its peers. */
    long primarySent() {
      return primary.bytesSentByPeer().values().stream().mapToLong(Long::longValue).sum();
    }
  }

  /**
   * What one cell measured.
   *
   * @param sources each replica's copy source during the cell (-1: the primary)
   * @param levels each replica's level in the copy tree
   * @param lags each replica's lags (nanos) over the measured window, by node id
   * @param before the counters before the paced load
   * @param afterLoad after it, every replica searching its last refresh
   * @param end after the forced merge, every replica searching the merged version
   * @param merge the forced merge and its pre-copy
   * @param mergedFiles the merged segment's files on the primary (for the raw baselines)
   */
  record Measured(int replicas, boolean tree, Map<Integer, Integer> sources, Map<Integer, Integer> levels,
      Map<Integer, List<Long>> lags, Snapshot before, Snapshot afterLoad, Snapshot end, BenchApi.MergeReply merge,
      List<Path> mergedFiles) {

    /** The first replica (by id) that copies from the primary: its bytes are the cell's new index data. */
    int firstDirect() {
      return sources.entrySet().stream().filter(e -> e.getValue() == -1).mapToInt(Map.Entry::getKey).min()
          .orElseThrow();
    }
  }

  static Measured measure(BenchConfig config, ProcessCluster cluster, NodeProcess primary, List<NodeProcess> replicas,
      boolean tree, Consumer<String> out) throws IOException, InterruptedException {
    BenchClient p = BenchNodes.client(primary);
    String name = replicas.size() + " replica(s), copy tree " + (tree ? "on" : "off");
    p.deleteAll();
    cluster.awaitAllAt(p.status().version(), WAIT);
    // Every cell's load starts on a clean page cache, not during the writeback of the cell before.
    RawSpeed.flushPageCache();
    Map<Integer, Integer> sources = awaitTree(primary, replicas, tree);
    Map<Integer, Integer> levels = Map.copyOf(BenchNodes.client(primary).copyTree().copyLevels());
    for (NodeProcess r : replicas) {
      BenchNodes.client(r).visible();
    }
    out.accept("bench: figure 12: " + name + ": " + FanoutFigure.DOCS_PER_SEC + " docs/s, " + FanoutFigure.REFRESH_MS
        + " ms refresh, copy sources " + sources);
    Snapshot before = snapshot(primary, replicas);
    BenchApi.LoadReply load = p.load(LoadRunner.Mode.NRT, FanoutFigure.DOCS_PER_SEC, FanoutFigure.REFRESH_MS,
        config.warmupSec(), FanoutFigure.windowSec(config));
    if (!load.refreshes().isEmpty()) {
      cluster.awaitAllAt(load.refreshes().get(load.refreshes().size() - 1)[0], WAIT);
    }
    Map<Integer, List<Long>> lags = new LinkedHashMap<>();
    for (NodeProcess r : replicas) {
      lags.put(r.id(), VisibilityLag.lags(load.refreshes(), List.of(BenchNodes.client(r).visible().versions())));
    }
    Snapshot afterLoad = snapshot(primary, replicas);
    out.accept("bench: figure 12: " + name + ": a " + (config.copyBytes() >> 20) + " MiB merged segment");
    p.bulk(config.copyBytes(), Math.max(1 << 20, config.copyBytes() / 8));
    cluster.awaitAllAt(p.status().version(), WAIT);
    // As figure 3: the pre-copy does not pay for the writeback of the bulk load before it.
    RawSpeed.flushPageCache();
    BenchApi.MergeReply merge = p.forceMerge();
    if (merge.preCopyNanos() <= 0 || merge.succeeded() != replicas.size()) {
      throw new IOException("the forced merge did not pre-copy to " + replicas.size() + " replica(s): " + merge);
    }
    cluster.awaitAllAt(p.status().version(), WAIT);
    Snapshot end = snapshot(primary, replicas);
    Map<Integer, Integer> after = end.primary().copySources();
    if (!after.equals(sources)) {
      // Reported, not fatal: the levels below are those planned when the cell started.
      out.accept("bench: figure 12: " + name + ": the copy tree changed during the cell, from " + sources + " to " + after);
    }
    return new Measured(replicas.size(), tree, sources, levels, lags, before, afterLoad, end, merge,
        mergedFiles(primary, merge));
  }

  private static Snapshot snapshot(NodeProcess primary, List<NodeProcess> replicas) throws AgentException {
    Map<Integer, BenchApi.CopyTreeStatus> r = new LinkedHashMap<>();
    for (NodeProcess n : replicas) {
      r.put(n.id(), BenchNodes.client(n).copyTree());
    }
    return new Snapshot(BenchNodes.client(primary).copyTree(), r);
  }

  /**
   * Waits (bounded) until the primary's copy tree holds exactly {@code replicas}, as planned (tree
   * off: every one from the primary; on: one from the primary, the others from a replica) and every
   * replica was told its source; returns the tree.
   */
  private static Map<Integer, Integer> awaitTree(NodeProcess primary, List<NodeProcess> replicas, boolean tree)
      throws IOException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    List<Integer> ids = replicas.stream().map(NodeProcess::id).toList();
    while (true) {
      Map<Integer, Integer> sources = BenchNodes.client(primary).copyTree().copySources();
      long direct = sources.values().stream().filter(s -> s == -1).count();
      boolean planned = sources.keySet().equals(Set.copyOf(ids)) && direct == (tree ? 1 : ids.size());
      if (planned && told(replicas, sources)) {
        return Map.copyOf(sources);
      }
      if (System.nanoTime() > deadline) {
        throw new IOException("the copy tree of " + ids + " was not planned within " + WAIT + ": " + sources);
      }
      sleep();
    }
  }

  private static boolean told(List<NodeProcess> replicas, Map<Integer, Integer> sources) throws AgentException {
    for (NodeProcess r : replicas) {
      if (BenchNodes.client(r).copyTree().copySource() != sources.get(r.id())) {
        return false;
      }
    }
    return true;
  }

  private static void sleep() throws IOException {
    try {
      Thread.sleep(50);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while waiting for the copy tree", e);
    }
  }

  /** The files of the merged segment {@code merge} produced, in the primary's index directory. */
  private static List<Path> mergedFiles(NodeProcess primary, BenchApi.MergeReply merge) throws IOException {
    String segment = merge.files().get(0);
    List<Path> files = new ArrayList<>();
    try (Stream<Path> all = Files.list(primary.dir().resolve("bench").resolve("index"))) {
      all.filter(f -> {
        String n = f.getFileName().toString();
        return n.startsWith(segment + ".") || n.startsWith(segment + "_");
      }).forEach(files::add);
    }
    return files;
  }
}

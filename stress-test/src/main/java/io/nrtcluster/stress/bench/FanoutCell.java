package io.nrtcluster.stress.bench;

import io.nrtcluster.stress.AgentException;
import io.nrtcluster.stress.NodeProcess;
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
 * One replica count of figure 12 ({@link FanoutFigure}), both tree settings side by side: with each
 * cluster's replicas up and its copy tree planned, a paced load (the lag of each replica), then a
 * bulk load and a forced merge (the merge pre-copy down to every replica), with the copy counters of
 * every node before, between and after.
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

  /** The two settings' cells of one replica count, measured side by side. */
  record Pair(Measured off, Measured on) {}

  /** One setting's cell while it is measured. */
  private static final class Side {
    final FanoutCluster cluster;
    final List<NodeProcess> replicas;
    final String name;
    final Map<Integer, List<Long>> lags = new LinkedHashMap<>();
    Map<Integer, Integer> sources;
    Map<Integer, Integer> levels;
    Snapshot before;
    Snapshot afterLoad;
    Snapshot end;
    BenchApi.MergeReply merge;

    Side(FanoutCluster cluster, int replicas) {
      this.cluster = cluster;
      this.replicas = cluster.keep(replicas);
      this.name = replicas + " replica(s), copy tree " + (cluster.tree() ? "on" : "off");
    }

    BenchClient primary() {
      return BenchNodes.client(cluster.primary());
    }

    Measured measured() throws IOException {
      return new Measured(replicas.size(), cluster.tree(), sources, levels, lags, before, afterLoad, end, merge,
          mergedFiles(cluster.primary(), merge));
    }
  }

  /**
   * Both settings' cells of {@code replicas} replicas: each cluster emptied and its tree planned,
   * then the paced load in four windows, tree off, on, on, off (each setting's two windows sit
   * symmetrically in time, so a drift of the machine, such as another process's load or the disk's
   * writeback, weighs on both alike), then each one's bulk load and forced merge ({@code offFirst}:
   * the tree-off cluster's first).
   */
  static Pair measure(BenchConfig config, FanoutCluster off, FanoutCluster on, int replicas, boolean offFirst,
      Consumer<String> out) throws IOException, InterruptedException {
    Side o = new Side(off, replicas);
    Side t = new Side(on, replicas);
    for (Side s : List.of(o, t)) {
      BenchClient p = s.primary();
      p.deleteAll();
      s.cluster.processes().awaitAllAt(p.status().version(), WAIT);
      s.sources = awaitTree(s.cluster.primary(), s.replicas, s.cluster.tree());
      s.levels = Map.copyOf(p.copyTree().copyLevels());
      for (NodeProcess r : s.replicas) {
        BenchNodes.client(r).visible();
        s.lags.put(r.id(), new ArrayList<>());
      }
      out.accept("bench: figure 12: " + s.name + ": copy sources " + s.sources);
    }
    // The windows start on a clean page cache, not during the writeback of the cell before.
    RawSpeed.flushPageCache();
    o.before = snapshot(o);
    t.before = snapshot(t);
    out.accept("bench: figure 12: " + replicas + " replica(s): " + FanoutFigure.DOCS_PER_SEC + " docs/s, "
        + FanoutFigure.REFRESH_MS + " ms refresh, windows tree off, on, on, off");
    for (Side s : List.of(o, t, t, o)) {
      window(config, s);
    }
    o.afterLoad = snapshot(o);
    t.afterLoad = snapshot(t);
    for (Side s : offFirst ? List.of(o, t) : List.of(t, o)) {
      mergeStep(config, s, out);
    }
    return new Pair(o.measured(), t.measured());
  }

  /** One measured window of the paced load on {@code s}: each replica's lags added to its list. */
  private static void window(BenchConfig config, Side s) throws IOException {
    BenchApi.LoadReply load = s.primary().load(LoadRunner.Mode.NRT, FanoutFigure.DOCS_PER_SEC, FanoutFigure.REFRESH_MS,
        config.warmupSec(), config.cellSec());
    if (!load.refreshes().isEmpty()) {
      s.cluster.processes().awaitAllAt(load.refreshes().get(load.refreshes().size() - 1).version(), WAIT);
    }
    for (NodeProcess r : s.replicas) {
      s.lags.get(r.id()).addAll(VisibilityLag.lags(load.refreshes(), List.of(BenchNodes.client(r).visible().versions())));
    }
  }

  /** A bulk load of {@code copyBytes} and a forced merge on {@code s}, pre-copied to every replica. */
  private static void mergeStep(BenchConfig config, Side s, Consumer<String> out) throws IOException, InterruptedException {
    out.accept("bench: figure 12: " + s.name + ": a " + (config.copyBytes() >> 20) + " MiB merged segment");
    BenchClient p = s.primary();
    p.bulk(config.copyBytes(), Math.max(1 << 20, config.copyBytes() / 8));
    s.cluster.processes().awaitAllAt(p.status().version(), WAIT);
    // As figure 3: the pre-copy does not pay for the writeback of the bulk load before it.
    RawSpeed.flushPageCache();
    s.merge = p.forceMerge();
    if (s.merge.preCopyNanos() <= 0 || s.merge.succeeded() != s.replicas.size()) {
      throw new IOException("the forced merge did not pre-copy to " + s.replicas.size() + " replica(s): " + s.merge);
    }
    s.cluster.processes().awaitAllAt(p.status().version(), WAIT);
    s.end = snapshot(s);
    Map<Integer, Integer> after = s.end.primary().copySources();
    if (!after.equals(s.sources)) {
      // Reported, not fatal: the levels are those planned when the cell started.
      out.accept("bench: figure 12: " + s.name + ": the copy tree changed during the cell, from " + s.sources + " to "
          + after);
    }
  }

  private static Snapshot snapshot(Side s) throws AgentException {
    return snapshot(s.cluster.primary(), s.replicas);
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

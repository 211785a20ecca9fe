package io.nrtcluster.stress.bench;

import io.nrtcluster.primary.CopyTreeConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Figure 12: fan-out. Two clusters of node processes of their own, up at once: a primary and 4
 * replicas with every replica copying from the primary (copy tree off: the baseline), and the same
 * with the copy tree {@link #TREE} (one replica from the primary, at most two children per parent);
 * 4, then 2, then 1 replica (the replicas past a count stopped). Per replica count ({@link
 * FanoutCell}): a paced load of {@link #DOCS_PER_SEC} with a refresh every {@link #REFRESH_MS} in
 * four windows, tree off, on, on, off (each replica's lag, by level of the tree), then in each
 * cluster a bulk load and a forced merge, whose merged segment is pre-copied down to every replica;
 * over the whole cell, the bytes the primary's transport sent per byte of new index data (the bytes
 * a replica that copies from the primary received). The pre-copy per replica is set against as many
 * raw transfers of the same files at once as there are replicas ({@link RawSpeed}, as figure 3),
 * measured once per replica count, after the merges.
 */
final class FanoutFigure {
  static final int DOCS_PER_SEC = 1_000;
  static final int REFRESH_MS = 1_000;
  /** The tree measured: one replica from the primary, two children per parent, a 2 s wait for a parent. */
  static final CopyTreeConfig TREE = new CopyTreeConfig(1, 2, Duration.ofSeconds(2));
  /** Replica counts, in the order measured (each one stops the replicas past it in both clusters). */
  static final List<Integer> REPLICA_COUNTS = List.of(4, 2, 1);
  static final double SENT_TARGET = 1.25;
  static final double LAG_P50_TARGET = 1.10;
  static final double PRE_COPY_TARGET = 0.9;

  private FanoutFigure() {}

  /** A raw baseline: each of {@code streams} transfers of the merged files at once (MiB/s). */
  private record Raw(double loopbackMiBPerSec, double diskMiBPerSec) {
    double floor() {
      return Math.min(loopbackMiBPerSec, diskMiBPerSec);
    }
  }

  static FanoutReport run(BenchConfig config, BenchNodes nodes, Consumer<String> out, BenchTable table) throws Exception {
    Path dir = config.out().resolve("fanout");
    Map<Integer, Raw> raw = new HashMap<>();
    List<FanoutCell.Measured> off = new ArrayList<>();
    List<FanoutCell.Measured> on = new ArrayList<>();
    int most = REPLICA_COUNTS.get(0);
    // Both clusters up at once, so that their windows can alternate (the one not measured idles).
    try (FanoutCluster offCluster = FanoutCluster.start(config, nodes, dir, false, most, out);
        FanoutCluster onCluster = FanoutCluster.start(config, nodes, dir, true, most, out)) {
      out.accept("bench: figure 12: warming up both clusters (" + config.warmUpSec() + " s of load and a merge each)");
      offCluster.warmUp(config);
      onCluster.warmUp(config);
      boolean offFirst = true;
      for (int replicas : REPLICA_COUNTS) {
        FanoutCell.Pair pair = FanoutCell.measure(config, offCluster, onCluster, replicas, offFirst, out);
        off.add(pair.off());
        on.add(pair.on());
        out.accept("bench: figure 12: raw loopback and disk baselines, " + replicas + " at once");
        raw.put(replicas, baseline(pair.off().mergedFiles(), replicas, dir.resolve("rawcopy")));
        offFirst = !offFirst;
      }
    }
    List<FanoutReport.Cell> cells = new ArrayList<>();
    boolean sentMet = true;
    boolean lagMet = true;
    boolean preCopyMet = true;
    for (int replicas : REPLICA_COUNTS.reversed()) {
      FanoutCell.Measured o = of(off, replicas);
      FanoutCell.Measured t = of(on, replicas);
      Dist offLag = levelLags(o).get(1);
      FanoutReport.Cell offCell = cell(o, offLag, raw.get(replicas));
      FanoutReport.Cell onCell = cell(t, offLag, raw.get(replicas));
      cells.add(offCell);
      cells.add(onCell);
      if (replicas == 4) {
        sentMet = onCell.sentPerNewByte() >= 0 && onCell.sentPerNewByte() <= SENT_TARGET;
      }
      FanoutReport.Level first = onCell.levels().get(0);
      if (replicas > TREE.directReplicas()) {
        // With no more replicas than direct ones both settings plan the same: that pair is an A/A control.
        lagMet &= first.p50VsTreeOff() >= 0 && first.p50VsTreeOff() <= LAG_P50_TARGET;
      }
      if (replicas == 2) {
        preCopyMet = offCell.preCopy().slowestVsRaw() >= PRE_COPY_TARGET && onCell.preCopy().slowestVsRaw() >= PRE_COPY_TARGET;
      }
      rows(table, offCell, onCell, offLag);
      out.accept(String.format(Locale.ROOT, "bench: figure 12: %d replica(s): primary sent %.2f (off) / %.2f (on) bytes per "
          + "new byte; level-1 lag p50 %.0f ms off, %.0f ms on; pre-copy slowest %.0f / %.0f MiB/s against raw %.0f MiB/s, "
          + "wall %.1f / %.1f s", replicas, offCell.sentPerNewByte(), onCell.sentPerNewByte(), offLag.p50(),
          first.lagMs().p50(), offCell.preCopy().slowestMiBPerSec(), onCell.preCopy().slowestMiBPerSec(),
          raw.get(replicas).floor(), offCell.preCopy().wallSec(), onCell.preCopy().wallSec()));
    }
    return new FanoutReport(DOCS_PER_SEC, REFRESH_MS, config.warmupSec(), windowSec(config), config.copyBytes(),
        TREE.directReplicas(), TREE.fanOut(), TREE.parentWait().toMillis(), List.copyOf(cells), SENT_TARGET, LAG_P50_TARGET,
        PRE_COPY_TARGET, sentMet, lagMet, preCopyMet,
        "two clusters of node processes of their own on loopback, up at once: a primary and 4 replicas, then 2, then 1 "
        + "(the others stopped), one with every replica copying from the primary (tree off), one with the copy tree on; "
        + "per replica count a paced load in four windows of measuredSec / 2, tree off, on, on, off (lag: start of the "
        + "primary's refresh of a version to a replica first searching it or newer, pooled per level), then in each "
        + "cluster a bulk load of preCopyBytes and a forced merge pre-copied to every replica; bytes: what the primary's "
        + "transport sent its peers over the whole cell (load, bulk load, merge) over the file bytes its first direct "
        + "replica received; pre-copy per replica: the segment's bytes over its time from the pre-copy's start to that "
        + "replica done (its completion seen by a 2 ms watch on the replica), against rawStreams raw loopback transfers and "
        + "raw disk writes of the same files at once (the lower; measured once per replica count after the merges, on "
        + "the tree-off cluster's files); wallSec: the whole pre-copy, every level; with 1 replica both settings plan the same (one direct "
        + "replica): that pair is an A/A control of the lag comparison, left out of lagTargetMet");
  }

  /**
   * Each setting's measured time per replica count: two windows of the other figures' {@link
   * BenchConfig#cellSec}, 30 s in the full run, so that each replica's lag has 30 samples at one
   * refresh a second.
   */
  static int windowSec(BenchConfig config) {
    return 2 * config.cellSec();
  }

  private static FanoutCell.Measured of(List<FanoutCell.Measured> cells, int replicas) {
    return cells.stream().filter(c -> c.replicas() == replicas).findFirst().orElseThrow();
  }

  /**
   * Raw loopback, then raw disk speed of {@code streams} transfers of {@code files} at once, each
   * after a page-cache flush, the disk writes onto a cache left as the merge leaves it (as figure 3).
   */
  private static Raw baseline(List<Path> files, int streams, Path dir) throws IOException, InterruptedException {
    RawSpeed.flushPageCache();
    double loopback = RawSpeed.loopback(files, streams);
    RawSpeed.flushPageCache();
    Path mergeOutput = dir.resolve("merge-output");
    RawSpeed.dirtyLikeAMerge(files, mergeOutput);
    double disk = RawSpeed.diskWrite(files, dir, streams);
    RawSpeed.delete(files, mergeOutput);
    return new Raw(loopback / (1 << 20), disk / (1 << 20));
  }

  /** Each level's lags, every replica of the level pooled, by level. */
  private static Map<Integer, Dist> levelLags(FanoutCell.Measured m) {
    Map<Integer, List<Long>> pooled = new TreeMap<>();
    for (Map.Entry<Integer, List<Long>> e : m.lags().entrySet()) {
      pooled.computeIfAbsent(m.levels().getOrDefault(e.getKey(), 1), l -> new ArrayList<>()).addAll(e.getValue());
    }
    Map<Integer, Dist> out = new TreeMap<>();
    pooled.forEach((level, lags) -> out.put(level, Dist.ofNanos(lags)));
    return out;
  }

  private static FanoutReport.Cell cell(FanoutCell.Measured m, Dist offLag, Raw raw) {
    int direct = m.firstDirect();
    long newData = m.end().replicas().get(direct).bytesCopied() - m.before().replicas().get(direct).bytesCopied();
    long sent = m.end().primarySent() - m.before().primarySent();
    long loadNewData = m.afterLoad().replicas().get(direct).bytesCopied() - m.before().replicas().get(direct).bytesCopied();
    long loadSent = m.afterLoad().primarySent() - m.before().primarySent();
    List<FanoutReport.Level> levels = new ArrayList<>();
    for (Map.Entry<Integer, Dist> e : levelLags(m).entrySet()) {
      int count = (int) m.levels().entrySet().stream().filter(l -> l.getValue().equals(e.getKey())).count();
      Dist d = e.getValue();
      levels.add(new FanoutReport.Level(e.getKey(), Math.max(1, count), d, Dist.ratio(d.p50(), offLag.p50()),
          Dist.ratio(d.p99(), offLag.p99())));
    }
    BenchApi.MergeReply merge = m.merge();
    List<FanoutReport.Replica> detail = new ArrayList<>();
    double slowest = Double.MAX_VALUE;
    double fastest = -1;
    for (int id : m.lags().keySet()) {
      BenchApi.CopyTreeStatus before = m.before().replicas().get(id);
      BenchApi.CopyTreeStatus beforeMerge = m.afterLoad().replicas().get(id);
      BenchApi.CopyTreeStatus end = m.end().replicas().get(id);
      long from = merge.preCopyFromNanos();
      boolean done = end.preCopiesCompleted() > beforeMerge.preCopiesCompleted() && end.lastPreCopyDoneNanos() > from;
      double sec = done ? (end.lastPreCopyDoneNanos() - from) / 1e9 : -1;
      double mibPerSec = done ? merge.preCopyBytes() / (double) (1 << 20) / sec : -1;
      slowest = Math.min(slowest, mibPerSec);
      fastest = Math.max(fastest, mibPerSec);
      detail.add(new FanoutReport.Replica(id, m.sources().get(id), m.levels().getOrDefault(id, 1),
          end.bytesCopied() - before.bytesCopied(), end.bytesFromPeers() - before.bytesFromPeers(),
          end.peerFallbacks() - before.peerFallbacks(), round(sec), round(mibPerSec)));
    }
    FanoutReport.PreCopy preCopy = new FanoutReport.PreCopy(merge.preCopyBytes(), merge.succeeded(),
        round(merge.mergeNanos() / 1e9), round(merge.preCopyNanos() / 1e9), round(slowest), round(fastest), m.replicas(),
        round(raw.loopbackMiBPerSec()), round(raw.diskMiBPerSec()), slowest < 0 ? -1 : Dist.ratio(slowest, raw.floor()));
    return new FanoutReport.Cell(m.replicas(), m.tree(), newData, sent, Dist.ratio(sent, newData), loadNewData, loadSent,
        Dist.ratio(loadSent, loadNewData), List.copyOf(levels), preCopy, List.copyOf(detail));
  }

  private static double round(double v) {
    return Math.round(v * 1000) / 1000.0;
  }

  private static void rows(BenchTable table, FanoutReport.Cell off, FanoutReport.Cell on, Dist offLag) {
    int r = off.replicas();
    double mib = 1 << 20;
    table.row("fan-out: primary bytes sent / new index bytes (" + r + " replica(s), tree off)", off.primaryBytesSent() / mib,
        off.newDataBytes() / mib, "MiB", "");
    table.row("fan-out: primary bytes sent / new index bytes (" + r + " replica(s), tree on)", on.primaryBytesSent() / mib,
        on.newDataBytes() / mib, "MiB", r == 4 ? "<= " + SENT_TARGET : "");
    for (FanoutReport.Level l : on.levels()) {
      String target = r <= TREE.directReplicas() ? "A/A control" : l.level() == 1 ? "<= " + LAG_P50_TARGET : "";
      table.row("fan-out: lag p50, tree on level " + l.level() + " / tree off (" + r + " replica(s))", l.lagMs().p50(),
          offLag.p50(), "ms", target);
      table.row("fan-out: lag p99, tree on level " + l.level() + " / tree off (" + r + " replica(s))", l.lagMs().p99(),
          offLag.p99(), "ms", "");
    }
    for (FanoutReport.Cell c : List.of(off, on)) {
      table.row("fan-out: pre-copy, slowest replica / raw " + r + " at once (" + r + " replica(s), tree "
          + (c.tree() ? "on" : "off") + ")", c.preCopy().slowestMiBPerSec(),
          Math.min(c.preCopy().rawLoopbackMiBPerSec(), c.preCopy().rawDiskMiBPerSec()), "MiB/s", r == 2 ? ">= " + PRE_COPY_TARGET : "");
    }
    table.row("fan-out: pre-copy wall time, tree on / off (" + r + " replica(s))", on.preCopy().wallSec(),
        off.preCopy().wallSec(), "s", "");
  }
}

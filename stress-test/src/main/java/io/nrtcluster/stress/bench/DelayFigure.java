package io.nrtcluster.stress.bench;

import io.nrtcluster.stress.NodeProcess;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * Figure 8: replica lag with a delay on every link between the cluster nodes (the transport's
 * "linkDelay" fault point, the same each way), 1,000 docs/s and a 100 ms refresh, against the same
 * load without delay in the same run; with the versions the replicas installed per second against
 * the refreshes per second, and the target: lag p50 at most the lag without delay plus three round
 * trips.
 */
final class DelayFigure {
  static final int DOCS_PER_SEC = 1_000;
  static final int REFRESH_MS = 100;

  private DelayFigure() {}

  static BenchReport.LinkDelay run(BenchConfig config, BenchNodes nodes, Consumer<String> out, BenchTable table)
      throws Exception {
    int delay = config.linkDelayMs();
    Cell bare = cell(config, nodes, out, 0);
    Cell delayed = cell(config, nodes, out, delay);
    setDelay(nodes, 0);
    double rttMs = 2.0 * delay;
    double bound = bare.lag.p50() + 3 * rttMs;
    String cellName = DOCS_PER_SEC + " docs/s, " + REFRESH_MS + " ms, " + rttMs + " ms round trip";
    table.row("lag p50 with delay / (p50 without + 3 RTT) (" + cellName + ")", delayed.lag.p50(), bound, "ms", "<= 1");
    table.row("versions installed per s / refreshes per s (" + cellName + ")", delayed.installedPerSec,
        delayed.refreshesPerSec, "/s", "~ 1");
    out.accept(String.format(Locale.ROOT, "bench: link delay %d ms each way: lag p50 %.1f ms p99 %.1f ms (without: p50 %.1f "
        + "p99 %.1f); %.2f versions installed/s per replica, %.2f refreshes/s", delay, delayed.lag.p50(), delayed.lag.p99(),
        bare.lag.p50(), bare.lag.p99(), delayed.installedPerSec, delayed.refreshesPerSec));
    return new BenchReport.LinkDelay(delay, rttMs, DOCS_PER_SEC, REFRESH_MS, bare.lag, delayed.lag,
        bare.installedPerSec, delayed.installedPerSec, delayed.refreshesPerSec, bound, delayed.lag.p50() <= bound,
        bare.phases, delayed.phases,
        "one-way delay on every cluster link (fault point linkDelay on each node); lag from the start of the primary's "
        + "refresh to a replica searching it; installed/s: distinct versions each replica searched during the load, "
        + "averaged over replicas");
  }

  private record Cell(Dist lag, double installedPerSec, double refreshesPerSec, BenchReport.PhaseBreakdown phases) {}

  private static Cell cell(BenchConfig config, BenchNodes nodes, Consumer<String> out, int delay) throws Exception {
    setDelay(nodes, delay);
    NodeProcess primary = nodes.primary();
    out.accept("bench: figure 8: " + DOCS_PER_SEC + " docs/s, " + REFRESH_MS + " ms refresh, link delay " + delay + " ms");
    List<List<BenchApi.Seen>> ignored = new ArrayList<>();
    for (NodeProcess p : nodes.cluster) {
      ignored.add(BenchNodes.client(p).visible().versions());
    }
    BenchApi.LoadReply load = BenchNodes.client(primary).load(LoadRunner.Mode.NRT, DOCS_PER_SEC, REFRESH_MS,
        config.warmupSec(), config.cellSec());
    if (!load.refreshes().isEmpty()) {
      nodes.awaitVersion(load.refreshes().get(load.refreshes().size() - 1).version());
    }
    List<List<BenchApi.Seen>> visible = new ArrayList<>();
    List<List<BenchApi.CopySteps>> phases = new ArrayList<>();
    double installed = 0;
    List<NodeProcess> replicas = nodes.replicasOf(primary);
    for (NodeProcess p : replicas) {
      BenchApi.VisibleReply v = BenchNodes.client(p).visible();
      visible.add(v.versions());
      phases.add(v.phases());
      installed += v.versions().stream().filter(x -> x.nanos() >= load.fromNanos() && x.nanos() <= load.toNanos()).count();
    }
    double seconds = (load.toNanos() - load.fromNanos()) / 1e9;
    Dist lag = Dist.ofNanos(VisibilityLag.lags(load.refreshes(), visible));
    return new Cell(lag, round(installed / Math.max(1, replicas.size()) / seconds), round(load.refreshes().size() / seconds),
        LagPhases.of(DOCS_PER_SEC, REFRESH_MS, load.refreshes(), phases));
  }

  private static double round(double v) {
    return Math.round(v * 100) / 100.0;
  }

  /** Sets the one-way delay of every link of every live cluster node (0: none). */
  static void setDelay(BenchNodes nodes, int ms) throws Exception {
    for (NodeProcess p : nodes.cluster) {
      if (p.alive()) {
        BenchNodes.client(p).linkDelay(ms);
      }
    }
  }
}

package io.nrtcluster.stress.bench;

import io.nrtcluster.node.Durability;
import io.nrtcluster.stress.NodeProcess;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * Figure 11: write-to-acknowledgement latency of {@code refresh} with {@link Durability#LOCAL}
 * against {@link Durability#REPLICATED}, one primary and two replicas, 1,000 docs/s and a 100 ms
 * refresh; once without and once with a one-way delay on every cluster link (figure 8's fault
 * point).
 *
 * <p>Write-to-acknowledgement of one refresh: from the start of the {@code addDocument} call of the
 * oldest document it covers to the refresh call's return ({@link LoadRunner}). A refresh starts every
 * 100 ms on its own thread whether or not the previous one returned (as a service's concurrent
 * requests with a refresh would), so an acknowledgement that takes longer than the interval delays
 * no later refresh (one refresher calling them in turn made writes wait for the previous
 * acknowledgement too: over delayed links that doubled the figure). The two levels run in
 * alternating windows of equal length on the same processes (LOCAL, REPLICATED, REPLICATED, LOCAL,
 * ...: each level as often first as second), so a drift of the shared machine's load over the
 * figure's minutes falls on both alike.
 *
 * <p>The target: replicated p50 at most local p50 plus one round trip between nodes (twice the link
 * delay plus a loopback TCP round trip measured here) plus the replica's install time (copy-state,
 * files and searcher p50s of figure 1's steps, measured on the replicas during the LOCAL windows).
 */
final class DurabilityFigure {
  static final int DOCS_PER_SEC = 1_000;
  static final int REFRESH_MS = 100;
  /** Measured windows of each level per cell. */
  static final int WINDOWS_PER_LEVEL = 4;
  static final String WINDOWS = "alternating windows of equal length on the same processes, in the order LOCAL, "
      + "REPLICATED, REPLICATED, LOCAL, ... (each level as often first as second of a pair), so a drift of the shared "
      + "machine's load falls on both levels alike; each window has its own unmeasured warm-up";

  private DurabilityFigure() {}

  static BenchReport.AckLatency run(BenchConfig config, BenchNodes nodes, Consumer<String> out, BenchTable table)
      throws Exception {
    int windowSec = Math.max(3, (config.cellSec() + 1) / 2);
    warmUp(config, nodes, out);
    List<BenchReport.AckCell> cells = new ArrayList<>();
    try {
      for (int delay : List.of(0, config.linkDelayMs())) {
        cells.add(cell(config, nodes, out, table, delay, windowSec));
      }
    } finally {
      DelayFigure.setDelay(nodes, 0);
    }
    return new BenchReport.AckLatency(DOCS_PER_SEC, REFRESH_MS, WINDOWS, List.copyOf(cells),
        "write-to-acknowledgement: from the start of the addDocument call of the oldest document a refresh covers (the "
        + "oldest whose call returned before the refresh began) to the refresh call's return; a refresh starts every "
        + REFRESH_MS + " ms on its own thread (overlapping when one takes longer); refresh call: the call alone; one "
        + "primary, two replicas; bound: local p50 + (2 x one-way delay + loopback TCP round trip p50) + "
        + "(copy-state + files + searcher p50s of the replicas during the LOCAL windows)");
  }

  /** A fresh JVM compiles for its first seconds: load both paths, unmeasured, before the first window. */
  private static void warmUp(BenchConfig config, BenchNodes nodes, Consumer<String> out) throws Exception {
    int seconds = Math.max(1, config.warmUpSec() / 2);
    out.accept("bench: figure 11: warming up (" + seconds + " s of each level, not measured)");
    for (Durability d : Durability.values()) {
      BenchNodes.client(nodes.primary()).load(LoadRunner.Mode.NRT, d, true, DOCS_PER_SEC, REFRESH_MS, 0, seconds);
    }
    drain(nodes);
  }

  private static BenchReport.AckCell cell(BenchConfig config, BenchNodes nodes, Consumer<String> out, BenchTable table,
      int delay, int windowSec) throws Exception {
    DelayFigure.setDelay(nodes, delay);
    Dist loopback = LoopbackPing.measure(200);
    Level local = new Level();
    Level replicated = new Level();
    for (int pair = 0; pair < WINDOWS_PER_LEVEL; pair++) {
      boolean localFirst = pair % 2 == 0;
      window(config, nodes, out, delay, windowSec, localFirst ? Durability.LOCAL : Durability.REPLICATED,
          localFirst ? local : replicated);
      window(config, nodes, out, delay, windowSec, localFirst ? Durability.REPLICATED : Durability.LOCAL,
          localFirst ? replicated : local);
    }
    Dist localAck = Dist.ofNanos(local.writeToAck);
    Dist replicatedAck = Dist.ofNanos(replicated.writeToAck);
    BenchReport.PhaseBreakdown localSteps = LagPhases.of(DOCS_PER_SEC, REFRESH_MS, local.refreshes, local.phases);
    BenchReport.PhaseBreakdown replicatedSteps = LagPhases.of(DOCS_PER_SEC, REFRESH_MS, replicated.refreshes,
        replicated.phases);
    BenchReport.AckBound bound = BenchReport.AckBound.of(localAck.p50(), delay, loopback.p50(), localSteps);
    BenchReport.AckCell cell = new BenchReport.AckCell(delay, WINDOWS_PER_LEVEL, windowSec, localAck, replicatedAck,
        Dist.ofNanos(local.calls), Dist.ofNanos(replicated.calls), Dist.ratio(replicatedAck.p50(), localAck.p50()),
        Dist.ratio(replicatedAck.p99(), localAck.p99()), replicated.refused, Dist.ofNanos(local.slowestInstall), bound,
        bound.met(replicatedAck.p50()), localSteps, replicatedSteps);
    rows(table, cell);
    out.accept(String.format(Locale.ROOT, "bench: figure 11, link delay %d ms: write-to-ack p50/p99 LOCAL %.1f/%.1f ms, "
        + "REPLICATED %.1f/%.1f ms; refresh call p50 LOCAL %.1f ms, REPLICATED %.1f ms; bound %.1f = local %.1f + round trip "
        + "%.1f + install %.1f (copy-state %.1f, files %.1f, searcher %.1f): %s; LOCAL return to the slower replica's "
        + "switch p50 %.1f ms; %d REPLICATED refused", delay,
        localAck.p50(), localAck.p99(), replicatedAck.p50(), replicatedAck.p99(), cell.localRefreshCallMs().p50(),
        cell.replicatedRefreshCallMs().p50(), bound.boundMs(), bound.localP50Ms(), bound.roundTripMs(), bound.installMs(),
        localSteps.copyStateMs().p50(), localSteps.filesMs().p50(), localSteps.searcherMs().p50(),
        cell.targetMet() ? "met" : "missed", cell.localSlowestInstallAfterReturnMs().p50(), replicated.refused));
    return cell;
  }

  /** Figure 11's rows of the console table for one cell. */
  static void rows(BenchTable table, BenchReport.AckCell c) {
    String name = DOCS_PER_SEC + " docs/s, " + REFRESH_MS + " ms, " + (c.oneWayDelayMs() == 0 ? "no link delay"
        : c.oneWayDelayMs() + " ms each way");
    table.row("write-to-ack p50 REPLICATED / LOCAL (" + name + ")", c.replicatedWriteToAckMs().p50(),
        c.localWriteToAckMs().p50(), "ms", "");
    table.row("write-to-ack p99 REPLICATED / LOCAL (" + name + ")", c.replicatedWriteToAckMs().p99(),
        c.localWriteToAckMs().p99(), "ms", "");
    table.row("refresh call p50 REPLICATED / LOCAL (" + name + ")", c.replicatedRefreshCallMs().p50(),
        c.localRefreshCallMs().p50(), "ms", "");
    BenchReport.AckBound b = c.bound();
    table.text("write-to-ack p50 REPLICATED / bound (" + name + ")",
        String.format(Locale.ROOT, "%.1f ms", c.replicatedWriteToAckMs().p50()),
        String.format(Locale.ROOT, "%.1f + %.1f RTT + %.1f install = %.1f ms", b.localP50Ms(), b.roundTripMs(),
            b.installMs(), b.boundMs()),
        String.format(Locale.ROOT, "%.3f", Dist.ratio(c.replicatedWriteToAckMs().p50(), b.boundMs())),
        "<= 1 " + (c.targetMet() ? "met" : "missed"));
  }

  /** What the windows of one level measured, together. */
  private static final class Level {
    final List<Long> writeToAck = new ArrayList<>();
    final List<Long> calls = new ArrayList<>();
    final List<BenchApi.Refresh> refreshes = new ArrayList<>();
    final List<List<BenchApi.CopySteps>> phases = new ArrayList<>();
    /** Per version: its refresh's return to the slower replica's searcher switch. */
    final List<Long> slowestInstall = new ArrayList<>();
    long refused;
  }

  /**
   * Per refresh {version, start, end}: from its return to the moment the slower of the replicas
   * switched to a searcher of that version or a newer one (0 when both already had); versions some
   * replica never reported are left out. In a LOCAL window that is the wait a REPLICATED
   * acknowledgement adds, less the install report's way back to the primary.
   *
   * @param phases each replica's copies of one window, in order
   */
  static List<Long> slowestInstallAfterReturn(List<BenchApi.Refresh> refreshes, List<List<BenchApi.CopySteps>> phases) {
    List<Long> out = new ArrayList<>();
    for (BenchApi.Refresh r : refreshes) {
      long slowest = Long.MIN_VALUE;
      boolean every = !phases.isEmpty();
      for (List<BenchApi.CopySteps> replica : phases) {
        BenchApi.CopySteps first = null;
        for (BenchApi.CopySteps p : replica) {
          if (p.version() >= r.version() && p.searcherNanos() >= 0) {
            first = p;
            break;
          }
        }
        if (first == null) {
          every = false;
          break;
        }
        slowest = Math.max(slowest, first.searcherNanos());
      }
      if (every) {
        out.add(Math.max(0, slowest - r.endNanos()));
      }
    }
    return out;
  }

  private static void window(BenchConfig config, BenchNodes nodes, Consumer<String> out, int delay, int windowSec,
      Durability durability, Level level) throws Exception {
    out.accept("bench: figure 11, link delay " + delay + " ms: " + durability + " window, " + windowSec + " s");
    drain(nodes);
    NodeProcess primary = nodes.primary();
    BenchApi.LoadReply load = BenchNodes.client(primary).load(LoadRunner.Mode.NRT, durability, true, DOCS_PER_SEC, REFRESH_MS,
        config.warmupSec(), windowSec);
    if (!load.refreshes().isEmpty()) {
      nodes.awaitVersion(load.refreshes().get(load.refreshes().size() - 1).version());
    }
    for (BenchApi.Ack a : load.acks()) {
      if (a.oldestWriteNanos() >= 0) {
        level.writeToAck.add(a.endNanos() - a.oldestWriteNanos());
      }
      level.calls.add(a.endNanos() - a.startNanos());
    }
    level.refreshes.addAll(load.refreshes());
    level.refused += load.refused();
    List<List<BenchApi.CopySteps>> phases = new ArrayList<>();
    for (NodeProcess p : nodes.replicasOf(primary)) {
      BenchApi.VisibleReply v = BenchNodes.client(p).visible();
      phases.add(v.phases() == null ? List.of() : v.phases());
    }
    level.phases.addAll(phases);
    level.slowestInstall.addAll(slowestInstallAfterReturn(load.refreshes(), phases));
  }

  /** Forgets what every cluster node searched so far, so a window's copy steps are its own. */
  private static void drain(BenchNodes nodes) throws Exception {
    for (NodeProcess p : nodes.cluster) {
      if (p.alive()) {
        BenchNodes.client(p).visible();
      }
    }
  }
}

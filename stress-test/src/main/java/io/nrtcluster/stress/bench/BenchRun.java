package io.nrtcluster.stress.bench;

import com.sun.management.OperatingSystemMXBean;
import io.nrtcluster.stress.AgentException;
import io.nrtcluster.stress.NodeProcess;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The benchmarks side by side: every figure with its baseline measured in the same run on the same
 * machine, printed as a table and written to {@code bench.json}, with lag plots.
 */
public final class BenchRun {
  private final BenchConfig config;
  private final Consumer<String> out;
  private final BenchTable table = new BenchTable();
  private BenchReport.VisibilityLag visibilityLag;
  private BenchReport.CommitBased commitBased;
  private BenchReport.ReplicaCpu replicaCpu;
  private BenchReport.SearchWhileCopying searchWhileCopying;
  private BenchReport.CopyThroughput copyThroughput;
  private BenchReport.Failover failover;
  private final List<BenchReport.PhaseBreakdown> lagPhases = new ArrayList<>();
  private BenchReport.LinkDelay linkDelay;
  private BenchReport.Scale scale;
  private BenchReport.Bootstrap bootstrap;
  private BenchReport.AckLatency ackLatency;
  private BenchReport.Followers followers;
  private FanoutReport fanout;
  /** Per cell: label -> (local, nrt, commit) lag samples for the plots. */
  private final Map<String, List<List<Long>>> plotData = new LinkedHashMap<>();

  /** This run's place among several ({@link BenchRuns}): odd runs measure each grid cell's cluster first. */
  private final int runIndex;

  private BenchRun(BenchConfig config, Consumer<String> out, int runIndex) {
    this.config = config;
    this.out = out;
    this.runIndex = runIndex;
  }

  /** Runs every figure and writes the results; returns what it wrote to bench.json. */
  public static BenchReport run(BenchConfig config, Consumer<String> out) throws Exception {
    return run(config, out, 0);
  }

  /**
   * Run number {@code runIndex} (from 0) of several: each grid cell measures its single-node baseline
   * first in even runs and the cluster first in odd ones, so that an order bias (the same load
   * measured later reads differently) falls on both sides across the runs.
   */
  public static BenchReport run(BenchConfig config, Consumer<String> out, int runIndex) throws Exception {
    Files.createDirectories(config.out());
    return new BenchRun(config, out, runIndex).run();
  }

  private BenchReport run() throws Exception {
    Instant started = Instant.now();
    Provenance atStart = Provenance.of(Path.of(""), started);
    out.accept(config.runsOneIndexFigures()
        ? "bench: starting a ZooKeeper server, two single-node baselines and a 3-node cluster in " + config.out()
        : "bench: starting a ZooKeeper server in " + config.out());
    try (BenchNodes nodes = new BenchNodes(config)) {
      if (config.runs(BenchFigure.GRID) || config.runs(BenchFigure.SEARCH)) {
        warmUp(nodes);
      }
      if (config.runs(BenchFigure.GRID)) {
        grid(nodes);
      }
      if (config.runs(BenchFigure.SEARCH)) {
        searchWhileCopying = SearchFigure.run(config, nodes, out, table);
      }
      if (config.runs(BenchFigure.COPY)) {
        copyThroughput = CopyFigure.run(config, nodes, out, table);
      }
      if (config.profile()) {
        dumpProfiles(nodes);
      }
      if (config.runs(BenchFigure.DELAY)) {
        linkDelay = DelayFigure.run(config, nodes, out, table);
      }
      if (config.runs(BenchFigure.DURABILITY)) {
        ackLatency = DurabilityFigure.run(config, nodes, out, table);
      }
      if (config.runs(BenchFigure.FAILOVER)) {
        failover = FailoverFigure.run(config, nodes, out, table);
      }
      if (config.runs(BenchFigure.SCALE)) {
        // Its own node processes, with the machine to themselves: the one-index ones stop first.
        nodes.stopNodes();
        scale = ScaleFigure.run(config, nodes, out, table);
      }
      if (config.runs(BenchFigure.BOOTSTRAP)) {
        // Its own node processes and store, with the machine to themselves.
        nodes.stopNodes();
        bootstrap = BootstrapFigure.run(config, nodes, out, table);
      }
      if (config.runs(BenchFigure.FANOUT)) {
        // Its own primary and replica processes, with the machine to themselves.
        nodes.stopNodes();
        fanout = FanoutFigure.run(config, nodes, out, table);
      }
      if (config.runs(BenchFigure.FOLLOWERS)) {
        // Its own primary process and store.
        nodes.stopNodes();
        followers = FollowerFigure.run(config, nodes, out, table);
      }
    }
    BenchReport result = new BenchReport(atStart.endedIn(Path.of("")), machine(), config, new BenchReport.Figures(visibilityLag, commitBased, replicaCpu,
        searchWhileCopying, copyThroughput, failover, lagPhases.isEmpty() ? null : List.copyOf(lagPhases), linkDelay, scale,
        bootstrap, ackLatency, followers, fanout));
    result.writeTo(config.out().resolve("bench.json"));
    for (Map.Entry<String, List<List<Long>>> e : plotData.entrySet()) {
      LagChart.write(e.getKey(), e.getValue(), config.out().resolve("lag-" + e.getKey().replaceAll("[^0-9a-z]+", "-") + ".png"));
    }
    out.accept(table.render());
    out.accept("bench.json and lag plots in " + config.out());
    return result;
  }

  private static BenchReport.Machine machine() {
    var os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    return new BenchReport.Machine(Runtime.getRuntime().availableProcessors(), os.getTotalMemorySize(),
        Runtime.version().toString() + " (" + System.getProperty("java.vendor") + ")",
        System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"));
  }

  /**
   * Runs the first cell's load, unmeasured, on the baselines and the cluster: a fresh JVM spends its
   * first seconds compiling (C2) and sizing its heap, which would be charged to whichever figure came
   * first.
   */
  private void warmUp(BenchNodes nodes) throws Exception {
    int docsPerSec = config.docsPerSec().get(0);
    int refreshMs = config.refreshMs().get(0);
    out.accept("bench: warming up the JVMs (" + config.warmUpSec() + " s of load each, not measured)");
    BenchNodes.client(nodes.standalone).load(LoadRunner.Mode.NRT, docsPerSec, refreshMs, config.warmUpSec(), 1);
    BenchNodes.client(nodes.standaloneMergeWait).load(LoadRunner.Mode.NRT, docsPerSec, refreshMs, config.warmUpSec(), 1);
    BenchNodes.client(nodes.primary()).load(LoadRunner.Mode.NRT, docsPerSec, refreshMs, config.warmUpSec(), 1);
    drain(nodes);
  }

  /** A grid cell's load on the cluster, every replica caught up with its last refresh after. */
  private BenchApi.LoadReply nrtLoad(BenchNodes nodes, NodeProcess primary, String cell, int docsPerSec, int refreshMs)
      throws Exception {
    out.accept("bench: " + cell + ": NRT replication");
    drain(nodes);
    BenchApi.LoadReply nrt = BenchNodes.client(primary).load(LoadRunner.Mode.NRT, docsPerSec, refreshMs,
        config.warmupSec(), config.cellSec());
    awaitLastRefresh(nodes, nrt);
    return nrt;
  }

  /** Figures 1, 2 and 4 over the grid of rates and refresh intervals. */
  private void grid(BenchNodes nodes) throws Exception {
    List<BenchReport.LagCellResult> lagCells = new ArrayList<>();
    List<BenchReport.CommitCell> commitCells = new ArrayList<>();
    BenchReport.CpuCell cpu = null;
    List<BenchReport.CpuCell> cpuCells = new ArrayList<>();
    double worstP50 = 0;
    double worstP99 = 0;
    double worstCommitP50 = Double.MAX_VALUE;
    double worstCommitP99 = Double.MAX_VALUE;
    boolean first = true;
    for (int docsPerSec : config.docsPerSec()) {
      for (int refreshMs : config.refreshMs()) {
        String cell = docsPerSec + " docs/s, " + refreshMs + " ms";
        NodeProcess primary = nodes.primary();
        NodeProcess cpuReplica = nodes.replicasOf(primary).get(0);
        try {
          boolean clusterFirst = runIndex % 2 == 1;
          BenchApi.LoadReply nrt = null;
          if (clusterFirst) {
            nrt = nrtLoad(nodes, primary, cell, docsPerSec, refreshMs);
          }
          out.accept("bench: " + cell + ": single-node baseline");
          BenchApi.LoadReply local = BenchNodes.client(nodes.standalone).load(LoadRunner.Mode.NRT, docsPerSec, refreshMs,
              config.warmupSec(), config.cellSec());
          Dist localDist = Dist.ofNanos(VisibilityLag.refreshTimes(local.refreshes()));
          Dist localWaitDist = null;
          if (first) {
            out.accept("bench: " + cell + ": single-node baseline with maxFullFlushMergeWaitMillis=500");
            BenchApi.LoadReply waiting = BenchNodes.client(nodes.standaloneMergeWait).load(LoadRunner.Mode.NRT, docsPerSec,
                refreshMs, config.warmupSec(), config.cellSec());
            localWaitDist = Dist.ofNanos(VisibilityLag.refreshTimes(waiting.refreshes()));
          }
          if (!clusterFirst) {
            nrt = nrtLoad(nodes, primary, cell, docsPerSec, refreshMs);
          }
          List<List<BenchApi.CopySteps>> copyPhases = new ArrayList<>();
          List<Long> nrtLags = VisibilityLag.lags(nrt.refreshes(), visible(nodes, primary, copyPhases));
          BenchReport.PhaseBreakdown steps = LagPhases.of(docsPerSec, refreshMs, nrt.refreshes(), copyPhases);
          lagPhases.add(steps);
          out.accept(String.format(Locale.ROOT, "bench: %s: lag steps p50 (ms): refresh %.1f, point %.1f, copy-state %.1f, "
              + "files %.1f, searcher %.1f, report %.1f", cell, steps.refreshStepMs().p50(), steps.pointMs().p50(),
              steps.copyStateMs().p50(), steps.filesMs().p50(), steps.searcherMs().p50(), steps.reportMs().p50()));
          Dist nrtDist = Dist.ofNanos(nrtLags);
          long replicaCpuNanos = BenchNodes.client(cpuReplica).cpuNanos(nrt.fromNanos(), nrt.toNanos());
          BenchReport.CpuCell cpuCell = new BenchReport.CpuCell(docsPerSec, refreshMs, nrt.cpuNanos() / 1e9,
              replicaCpuNanos / 1e9, local.cpuNanos() / 1e9, Dist.ratio(replicaCpuNanos, nrt.cpuNanos()),
              Dist.ratio(replicaCpuNanos, local.cpuNanos()));
          cpuCells.add(cpuCell);
          if (cpu == null || cpuCell.ratio() > cpu.ratio()) {
            cpu = cpuCell;
          }
          BenchReport.LagCell lagCell = new BenchReport.LagCell(docsPerSec, refreshMs, local.docs(), nrt.docs(),
              config.cellSec(), localDist, localWaitDist, nrtDist, Dist.ratio(nrtDist.p50(), localDist.p50()),
              Dist.ratio(nrtDist.p99(), localDist.p99()));
          lagCells.add(lagCell);
          worstP50 = Math.max(worstP50, lagCell.p50Ratio());
          worstP99 = Math.max(worstP99, lagCell.p99Ratio());
          List<Long> commitLags = List.of();
          if (first || config.commitCells()) {
            out.accept("bench: " + cell + ": commit-based replication");
            drain(nodes);
            BenchApi.LoadReply commit = BenchNodes.client(primary).load(LoadRunner.Mode.COMMIT, docsPerSec, refreshMs,
                config.warmupSec(), config.cellSec());
            awaitLastRefresh(nodes, commit);
            commitLags = VisibilityLag.lags(commit.refreshes(), visible(nodes, primary));
            Dist commitDist = Dist.ofNanos(commitLags);
            BenchReport.CommitCell c = new BenchReport.CommitCell(docsPerSec, refreshMs, commitDist, nrtDist,
                Dist.ratio(commitDist.p50(), nrtDist.p50()), Dist.ratio(commitDist.p99(), nrtDist.p99()));
            commitCells.add(c);
            worstCommitP50 = Math.min(worstCommitP50, c.p50Ratio());
            worstCommitP99 = Math.min(worstCommitP99, c.p99Ratio());
            table.row("commit-based lag p50 / NRT p50 (" + cell + ")", commitDist.p50(), nrtDist.p50(), "ms", "> 1");
          }
          table.row("replica lag p50 / local refresh p50 (" + cell + ")", nrtDist.p50(), localDist.p50(), "ms", "<= 1.2");
          table.row("replica lag p99 / local refresh p99 (" + cell + ")", nrtDist.p99(), localDist.p99(), "ms", "<= 1.5");
          plotData.put(cell, List.of(VisibilityLag.refreshTimes(local.refreshes()), nrtLags, commitLags));
          out.accept(String.format(Locale.ROOT, "bench: %s: local refresh p50 %.1f ms p99 %.1f ms; replica lag p50 %.1f ms "
              + "p99 %.1f ms", cell, localDist.p50(), localDist.p99(), nrtDist.p50(), nrtDist.p99()));
          first = false;
        } catch (IOException e) {
          // One cell that overloads the machine (for example a primary losing its ZooKeeper session) must
          // not lose the others: record it, wait for a primary, go on.
          out.accept("bench: " + cell + " failed: " + e.getMessage());
          lagCells.add(new BenchReport.FailedCell(docsPerSec, refreshMs, e.getMessage()));
          BenchNodes.awaitAll(nodes);
        }
      }
    }
    if (cpu == null) {
      throw new IOException("no cell of the grid completed");
    }
    visibilityLag = new BenchReport.VisibilityLag(worstP50, worstP99, 1.2, 1.5,
        "top-level ratios are the worst cell's; each cell measured the " + (runIndex % 2 == 1 ? "cluster" : "baseline")
        + " first in this run (runs alternate); baseline: the same load on a single-node application "
        + "(DirectoryReader.openIfChanged(reader, writer)); primary default maxFullFlushMergeWaitMillis=0",
        List.copyOf(lagCells));
    commitBased = new BenchReport.CommitBased(worstCommitP50, worstCommitP99,
        "commit-based visibility lag over NRT visibility lag (how many times slower); top-level: the "
        + "cell where NRT gains least",
        List.copyOf(commitCells));
    replicaCpu = new BenchReport.ReplicaCpu(cpu.ratio(), cpu.docReplicationRatio(), 0.15,
        cpu.docsPerSec() + " docs/s, " + cpu.refreshMs() + " ms",
        "process CPU seconds over the measured part of each cell; ratio: a replica over the primary; "
        + "docReplicationRatio: a replica over a node indexing every document itself (the single-node baseline under "
        + "the same load); top level: the cell with the highest ratio",
        List.copyOf(cpuCells));
    for (BenchReport.CpuCell c : cpuCells) {
      String cell = c.docsPerSec() + " docs/s, " + c.refreshMs() + " ms";
      table.row("replica CPU / primary CPU (" + cell + ")", c.replicaCpuSec(), c.primaryCpuSec(), "s", "<= 0.15");
      table.row("replica CPU / doc-replication node CPU (" + cell + ")", c.replicaCpuSec(), c.docReplicationNodeCpuSec(),
          "s", "");
    }
  }

  private static void drain(BenchNodes nodes) throws AgentException {
    for (NodeProcess p : nodes.cluster) {
      BenchNodes.client(p).visible();
    }
  }

  /**
   * Replicas that fell behind during a load still count: wait until they search its last version, so
   * every refresh has a visibility time (late ones after the load ended).
   */
  private static void awaitLastRefresh(BenchNodes nodes, BenchApi.LoadReply load) throws IOException {
    if (!load.refreshes().isEmpty()) {
      nodes.awaitVersion(load.refreshes().get(load.refreshes().size() - 1).version());
    }
  }

  private static List<List<BenchApi.Seen>> visible(BenchNodes nodes, NodeProcess primary) throws AgentException {
    return visible(nodes, primary, new ArrayList<>());
  }

  /** Each replica's versions searched; adds each replica's copy timelines to {@code phases}. */
  private static List<List<BenchApi.Seen>> visible(BenchNodes nodes, NodeProcess primary,
      List<List<BenchApi.CopySteps>> phases) throws AgentException {
    List<List<BenchApi.Seen>> v = new ArrayList<>();
    for (NodeProcess p : nodes.replicasOf(primary)) {
      BenchApi.VisibleReply r = BenchNodes.client(p).visible();
      v.add(r.versions());
      phases.add(r.phases() == null ? List.of() : r.phases());
    }
    return v;
  }

  /** Saves each cluster node's JFR recording so far (the failovers would lose it with the process). */
  private void dumpProfiles(BenchNodes nodes) throws IOException, InterruptedException {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    for (NodeProcess p : nodes.cluster) {
      Path file = p.dir().resolve("profile-grid-and-copy.jfr");
      Process dump = new ProcessBuilder(jcmd.toString(), Long.toString(p.pid()), "JFR.dump", "filename=" + file)
          .redirectErrorStream(true).start();
      dump.getInputStream().readAllBytes();
      dump.waitFor(60, TimeUnit.SECONDS);
      out.accept("bench: JFR profile of N" + p.id() + " so far: " + file);
    }
  }

}

package io.nrtcluster.stress.bench;

import io.nrtcluster.common.Checks;
import java.nio.file.Path;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Settings of one benchmark run; {@link #full} and {@link #quick} are the two the command offers.
 *
 * @param out where bench.json, the plots and the node directories go
 * @param docsPerSec indexing rates of the grid
 * @param refreshMs refresh intervals of the grid
 * @param warmUpSec load on every fresh JVM before anything is measured (JIT compilation, heap sizing)
 * @param warmupSec warm-up of each cell, not measured
 * @param cellSec measured time of each cell
 * @param commitCells whether commit-based replication runs in every cell (else only the first)
 * @param copyBytes size of the merged segment of the copy-throughput figure
 * @param failovers how many primary kills the failover figure measures
 * @param sessionTimeoutMs ZooKeeper session timeout of the cluster nodes
 * @param heapMb heap of each node JVM
 * @param profile record a JFR profile of every node process ({@code node.jfr} in its directory)
 * @param figures the parts of the run to measure (all of them by default)
 * @param linkDelayMs figure 8's one-way delay between the cluster nodes (the transport's "linkDelay"
 *     fault point on every node, so a round trip is twice this); 25 by default
 * @param scale the scale figure's settings ({@link ScaleConfig#full} by default)
 * @param bootstrap the bootstrap figure's settings ({@link BootstrapConfig#full} by default)
 */
public record BenchConfig(Path out, List<Integer> docsPerSec, List<Integer> refreshMs, int warmUpSec, int warmupSec, int cellSec,
    boolean commitCells, long copyBytes, int failovers, int sessionTimeoutMs, int heapMb, boolean profile,
    Set<BenchFigure> figures, int linkDelayMs, ScaleConfig scale, BootstrapConfig bootstrap) {

  /** Figure 8's default one-way link delay: a 50 ms round trip. */
  public static final int DEFAULT_LINK_DELAY_MS = 25;

  /** The settings with figure 8's default link delay and the full scale figure. */
  public BenchConfig(Path out, List<Integer> docsPerSec, List<Integer> refreshMs, int warmUpSec, int warmupSec, int cellSec,
      boolean commitCells, long copyBytes, int failovers, int sessionTimeoutMs, int heapMb, boolean profile,
      Set<BenchFigure> figures) {
    this(out, docsPerSec, refreshMs, warmUpSec, warmupSec, cellSec, commitCells, copyBytes, failovers, sessionTimeoutMs,
        heapMb, profile, figures, DEFAULT_LINK_DELAY_MS, ScaleConfig.full());
  }

  /** The settings with the full bootstrap figure. */
  public BenchConfig(Path out, List<Integer> docsPerSec, List<Integer> refreshMs, int warmUpSec, int warmupSec, int cellSec,
      boolean commitCells, long copyBytes, int failovers, int sessionTimeoutMs, int heapMb, boolean profile,
      Set<BenchFigure> figures, int linkDelayMs, ScaleConfig scale) {
    this(out, docsPerSec, refreshMs, warmUpSec, warmupSec, cellSec, commitCells, copyBytes, failovers, sessionTimeoutMs,
        heapMb, profile, figures, linkDelayMs, scale, BootstrapConfig.full());
  }

  public BenchConfig {
    Checks.notNull("out", out);
    Checks.notNull("docsPerSec", docsPerSec);
    Checks.notNull("refreshMs", refreshMs);
    if (docsPerSec.isEmpty() || refreshMs.isEmpty()) {
      throw new IllegalArgumentException((docsPerSec.isEmpty() ? "docsPerSec" : "refreshMs") + ": give at least one value");
    }
    docsPerSec.forEach(d -> Checks.inRange("docsPerSec", d, 1, 1_000_000));
    refreshMs.forEach(r -> Checks.inRange("refreshMs", r, 10, 60_000));
    Checks.inRange("warmUpSec", warmUpSec, 0, 3600);
    Checks.inRange("warmupSec", warmupSec, 0, 600);
    Checks.inRange("cellSec", cellSec, 1, 3600);
    Checks.inRange("copyBytes", copyBytes, 1 << 20, 1L << 40);
    Checks.inRange("failovers", failovers, 1, 1000);
    Checks.inRange("sessionTimeoutMs", sessionTimeoutMs, 1000, 120_000);
    Checks.inRange("heapMb", heapMb, 128, 65_536);
    Checks.inRange("linkDelayMs", linkDelayMs, 1, 10_000);
    Checks.notNull("figures", figures);
    Checks.notNull("scale", scale);
    Checks.notNull("bootstrap", bootstrap);
    if (figures.isEmpty()) {
      throw new IllegalArgumentException("figures: choose at least one");
    }
    figures = Collections.unmodifiableSet(EnumSet.copyOf(figures));
    docsPerSec = List.copyOf(docsPerSec);
    refreshMs = List.copyOf(refreshMs);
  }

  /**
   * The full grid (1,000 / 10,000 docs/s x 100 ms / 1 s), a 1 GiB merged segment, 10 failovers, 100
   * indexes on 3 nodes in the scale figure; session timeout 6 s.
   */
  public static BenchConfig full(Path out) {
    return new BenchConfig(out, List.of(1_000, 10_000), List.of(100, 1_000), 20, 3, 15, true, 1L << 30, 10, 6_000, 1024, false,
        EnumSet.allOf(BenchFigure.class));
  }

  /** The same settings with JFR profiles of every node process. */
  public BenchConfig profiled() {
    return new BenchConfig(out, docsPerSec, refreshMs, warmUpSec, warmupSec, cellSec, commitCells, copyBytes, failovers,
        sessionTimeoutMs, heapMb, true, figures, linkDelayMs, scale, bootstrap);
  }

  /** The same settings writing to {@code dir} instead (one of several runs, each in its own folder). */
  public BenchConfig in(Path dir) {
    return new BenchConfig(dir, docsPerSec, refreshMs, warmUpSec, warmupSec, cellSec, commitCells, copyBytes, failovers,
        sessionTimeoutMs, heapMb, profile, figures, linkDelayMs, scale, bootstrap);
  }

  /** The same settings measuring only {@code chosen}. */
  public BenchConfig only(Set<BenchFigure> chosen) {
    return new BenchConfig(out, docsPerSec, refreshMs, warmUpSec, warmupSec, cellSec, commitCells, copyBytes, failovers,
        sessionTimeoutMs, heapMb, profile, chosen, linkDelayMs, scale, bootstrap);
  }

  /** The same settings over another grid of indexing rates and refresh intervals. */
  public BenchConfig grid(List<Integer> rates, List<Integer> intervalsMs) {
    return new BenchConfig(out, rates, intervalsMs, warmUpSec, warmupSec, cellSec, commitCells, copyBytes, failovers,
        sessionTimeoutMs, heapMb, profile, figures, linkDelayMs, scale, bootstrap);
  }

  /** The same settings with figure 8's one-way link delay {@code ms}. */
  public BenchConfig linkDelay(int ms) {
    return new BenchConfig(out, docsPerSec, refreshMs, warmUpSec, warmupSec, cellSec, commitCells, copyBytes, failovers,
        sessionTimeoutMs, heapMb, profile, figures, ms, scale, bootstrap);
  }

  /** The same settings with the scale figure's {@code s}. */
  public BenchConfig scale(ScaleConfig s) {
    return new BenchConfig(out, docsPerSec, refreshMs, warmUpSec, warmupSec, cellSec, commitCells, copyBytes, failovers,
        sessionTimeoutMs, heapMb, profile, figures, linkDelayMs, s, bootstrap);
  }

  /** The same settings with the bootstrap figure's {@code b}. */
  public BenchConfig bootstrap(BootstrapConfig b) {
    return new BenchConfig(out, docsPerSec, refreshMs, warmUpSec, warmupSec, cellSec, commitCells, copyBytes, failovers,
        sessionTimeoutMs, heapMb, profile, figures, linkDelayMs, scale, b);
  }

  /** Whether this run measures {@code figure}. */
  public boolean runs(BenchFigure figure) {
    return figures.contains(figure);
  }

  /**
   * Whether this run measures any figure of the one-index cluster and the single-node baselines (all
   * but the scale, bootstrap, fan-out and follower figures, which start their own node processes).
   */
  public boolean runsOneIndexFigures() {
    return figures.stream().anyMatch(f -> f != BenchFigure.SCALE && f != BenchFigure.BOOTSTRAP && f != BenchFigure.FANOUT
        && f != BenchFigure.FOLLOWERS);
  }

  /**
   * About four minutes: one rate, one interval, a 128 MiB merged segment, 2 failovers, 12 indexes in
   * the scale figure, a 128 MiB index in the bootstrap figure.
   */
  public static BenchConfig quick(Path out) {
    return new BenchConfig(out, List.of(1_000), List.of(250), 8, 2, 8, false, 128L << 20, 2, 6_000, 512, false,
        EnumSet.allOf(BenchFigure.class), DEFAULT_LINK_DELAY_MS, ScaleConfig.quick(), BootstrapConfig.quick());
  }
}

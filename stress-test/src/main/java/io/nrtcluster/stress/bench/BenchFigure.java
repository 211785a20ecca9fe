package io.nrtcluster.stress.bench;

import java.util.Locale;

/**
 * The parts of a benchmark run that can be chosen on their own ({@code bin/nrt bench --figures}). A
 * run of a subset writes only the chosen figures to {@code bench.json}.
 */
public enum BenchFigure {
  /** Figures 1, 2 and 4: the grid of rates and refresh intervals (visibility lag, commit-based, CPU). */
  GRID,
  /** Figure 5: replica search throughput while copying versus idle. */
  SEARCH,
  /** Figure 3: merge pre-copy throughput against raw loopback and disk. */
  COPY,
  /** Figure 6: failover after kill -9 of the primary, and the acknowledged documents each level loses in it. */
  FAILOVER,
  /** Figure 8: replica lag with a delay on the links between the cluster nodes. */
  DELAY,
  /**
   * Figure 9: many indexes on every node: start, threads and heap per index, primaries per node,
   * ZooKeeper writes per refresh, a node's kill -9 and its return (own node processes, {@link ScaleConfig}).
   */
  SCALE,
  /**
   * Figure 10: two new replicas bootstrap the primary's index while it indexes, once copying it all
   * from the primary and once restoring the newest backup from an object store first (own node
   * processes and an in-JVM S3-compatible store, {@link BootstrapConfig}).
   */
  BOOTSTRAP,
  /**
   * Figure 11: write-to-acknowledgement latency of refresh with LOCAL against REPLICATED
   * acknowledgements, without and with a link delay ({@link DurabilityFigure}).
   */
  DURABILITY,
  /**
   * Figure 12: fan-out: a primary and 1, 2 and 4 replicas, every replica copying from the primary and
   * then through a copy tree: the primary's bytes sent per new byte, lag per level of the tree, the
   * merge pre-copy per replica (own node processes, {@link FanoutFigure}).
   */
  FANOUT,
  /**
   * Figure 13: a follower through the object store alone: lag from the primary's refresh to the
   * follower searching that version, without and with a link delay to the store ({@link FollowerFigure}).
   */
  FOLLOWERS;

  /** The name used on the command line and in {@code bench.json}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}

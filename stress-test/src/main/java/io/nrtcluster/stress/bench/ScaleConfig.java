package io.nrtcluster.stress.bench;

import io.nrtcluster.common.Checks;

/**
 * Settings of the scale figure ({@link BenchFigure#SCALE}): how many indexes every node hosts and how
 * many nodes there are, and how long each part measures.
 *
 * @param indexes indexes per node (every node hosts every index); at most 1,000
 * @param nodes node processes
 * @param heapMb heap of each node JVM
 * @param loadSec measured window of the ZooKeeper load at one refresh per second per index (after a
 *     warm-up of a fifth of it, at least 2 s)
 * @param baselineFailovers kills of the primary of the one-index cluster, the baseline of the mass
 *     failover (their median counts)
 * @param quietSec how long primaries per node must stay unchanged for a watch of their placement
 *     (after the start, after the kill, after the return) to end when they are not within one of each
 *     other; above the nodes' {@code HostConfig.rebalanceQuietPeriod} (10 s by default), which holds
 *     a rebalancing back after a failover, so the watch does not end before a rebalancing could begin
 */
public record ScaleConfig(int indexes, int nodes, int heapMb, int loadSec, int baselineFailovers, int quietSec) {
  public ScaleConfig {
    Checks.inRange("indexes", indexes, 2, 1_000);
    Checks.inRange("nodes", nodes, 2, 16);
    Checks.inRange("heapMb", heapMb, 128, 65_536);
    Checks.inRange("loadSec", loadSec, 1, 3_600);
    Checks.inRange("baselineFailovers", baselineFailovers, 1, 100);
    Checks.inRange("quietSec", quietSec, 1, 600);
  }

  /** 100 indexes on 3 nodes of 1 GiB heap; 30 s of ZooKeeper load, 3 baseline failovers, 20 s quiet. */
  public static ScaleConfig full() {
    return new ScaleConfig(100, 3, 1024, 30, 3, 20);
  }

  /** 12 indexes on 3 nodes of 512 MiB heap; 10 s of ZooKeeper load, 1 baseline failover, 15 s quiet. */
  public static ScaleConfig quick() {
    return new ScaleConfig(12, 3, 512, 10, 1, 15);
  }

  /** The same with {@code n} indexes per node. */
  public ScaleConfig withIndexes(int n) {
    return new ScaleConfig(n, nodes, heapMb, loadSec, baselineFailovers, quietSec);
  }

  /** The same with {@code n} nodes. */
  public ScaleConfig withNodes(int n) {
    return new ScaleConfig(indexes, n, heapMb, loadSec, baselineFailovers, quietSec);
  }
}

package io.nrtcluster.stress.bench;

import java.util.List;

/**
 * Figure 12 in {@code bench.json}: a primary and 1, 2 and 4 replicas, each count once with every
 * replica copying from the primary (the copy tree off: the baseline) and once with the copy tree on.
 *
 * @param docsPerSec the primary's indexing rate in the measured window
 * @param refreshMs its refresh interval
 * @param warmupSec warm-up of each window, not measured
 * @param measuredSec measured time of each cell: two windows of half this, the settings' windows
 *     alternating tree off, on, on, off
 * @param preCopyBytes size of each cell's large merged segment (bulk load, then a forced merge)
 * @param treeDirectReplicas the tree's {@code CopyTreeConfig.directReplicas}
 * @param treeFanOut its {@code fanOut}
 * @param treeParentWaitMs its {@code parentWait}
 * @param cells replica counts 1, 2, 4, tree off before tree on
 * @param sentRatioTarget the target of {@link Cell#sentPerNewByte} with 4 replicas and the tree on
 * @param lagP50RatioTarget its target of {@link Level#p50VsTreeOff} for level 1 of every cell with the tree on
 *     and more replicas than the tree's direct ones (with no more, both settings plan the same: an A/A control)
 * @param preCopyRatioTarget its target of {@link PreCopy#slowestVsRaw} with 2 replicas (tree off and on)
 * @param sentTargetMet whether the first target is met
 * @param lagTargetMet whether the second is
 * @param preCopyTargetMet whether the third is, in both 2-replica cells
 * @param note how it was measured
 */
public record FanoutReport(int docsPerSec, int refreshMs, int warmupSec, int measuredSec, long preCopyBytes,
    int treeDirectReplicas, int treeFanOut, long treeParentWaitMs, List<Cell> cells, double sentRatioTarget,
    double lagP50RatioTarget, double preCopyRatioTarget, boolean sentTargetMet, boolean lagTargetMet,
    boolean preCopyTargetMet, String note) {

  /**
   * One replica count with the tree off or on.
   *
   * @param newDataBytes file bytes the first replica that copies from the primary received over the
   *     whole cell (load, bulk load and forced merge): the cell's new index data
   * @param primaryBytesSent bytes the primary's transport sent its peers over the whole cell
   * @param sentPerNewByte {@code primaryBytesSent} over {@code newDataBytes}
   * @param loadNewDataBytes the same as {@code newDataBytes}, over the paced load (warm-up and window) alone
   * @param loadPrimaryBytesSent the same as {@code primaryBytesSent}, over the paced load alone
   * @param loadSentPerNewByte their ratio
   * @param levels the replicas' lag by level of the copy tree (one level with the tree off)
   * @param preCopy the forced merge's pre-copy
   * @param replicaDetail each replica
   */
  public record Cell(int replicas, boolean tree, long newDataBytes, long primaryBytesSent, double sentPerNewByte,
      long loadNewDataBytes, long loadPrimaryBytesSent, double loadSentPerNewByte, List<Level> levels, PreCopy preCopy,
      List<Replica> replicaDetail) {}

  /**
   * The lag of the replicas of one level: from the start of the primary's refresh of a version to a
   * replica first searching it or a newer one, every replica of the level pooled.
   *
   * @param p50VsTreeOff {@code lagMs.p50} over the p50 of the cell with as many replicas and the tree off
   * @param p99VsTreeOff the same for p99
   */
  public record Level(int level, int replicas, Dist lagMs, double p50VsTreeOff, double p99VsTreeOff) {}

  /**
   * The forced merge's pre-copy down to every replica.
   *
   * @param bytes the merged segment's bytes
   * @param succeeded replicas that confirmed every byte
   * @param mergeSec the forced merge, pre-copy included
   * @param wallSec the pre-copy from its start until the last replica finished (every level)
   * @param slowestMiBPerSec the slowest replica's {@code bytes} over its time from the pre-copy's start to it done
   * @param fastestMiBPerSec the fastest replica's, likewise
   * @param rawStreams raw transfers run at once for the baseline (the cell's replica count)
   * @param rawLoopbackMiBPerSec each of {@code rawStreams} raw loopback transfers of the same files at once
   * @param rawDiskMiBPerSec each of {@code rawStreams} raw disk writes of them at once
   * @param slowestVsRaw {@code slowestMiBPerSec} over the lower of the two raw figures
   */
  public record PreCopy(long bytes, int succeeded, double mergeSec, double wallSec, double slowestMiBPerSec,
      double fastestMiBPerSec, int rawStreams, double rawLoopbackMiBPerSec, double rawDiskMiBPerSec,
      double slowestVsRaw) {}

  /**
   * One replica of a cell.
   *
   * @param copySource where the primary had it copy from (-1: the primary)
   * @param level its level in the copy tree
   * @param bytesCopied file bytes it received over the whole cell
   * @param bytesFromPeers of those, bytes of files copied whole from its parent
   * @param peerFallbacks files its parent could not serve, fetched from the primary instead
   * @param preCopyDoneSec the pre-copy's start to this replica done (-1: it did not complete)
   * @param preCopyMiBPerSec the merged segment's bytes over {@code preCopyDoneSec}
   */
  public record Replica(int nodeId, int copySource, int level, long bytesCopied, long bytesFromPeers, long peerFallbacks,
      double preCopyDoneSec, double preCopyMiBPerSec) {}
}

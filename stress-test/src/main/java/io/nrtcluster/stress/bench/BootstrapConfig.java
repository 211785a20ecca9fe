package io.nrtcluster.stress.bench;

import io.nrtcluster.common.Checks;

/**
 * Settings of the bootstrap figure ({@link BenchFigure#BOOTSTRAP}): how large the primary's index is
 * when two new replicas bootstrap it, and the paced load the primary carries meanwhile.
 *
 * @param indexMb the index's size on disk to build before the bootstraps (MiB); the build stops at the
 *     first flush at or above it
 * @param docsPerSec the primary's indexing rate asked for during each bootstrap
 * @param refreshMs the primary's refresh interval during each bootstrap
 * @param heapMb heap of each node JVM (the primary builds the index with a RAM buffer of a quarter of it)
 * @param mergeToSegments after the build, force-merge the index down to this many segments (0: leave
 *     the build's segments as they are). Tiny indexes need it: every segment is under the merge
 *     policy's floor, so a merge during the bootstrap may rewrite most of the index and the figure
 *     would measure that merge, not the bootstrap
 */
public record BootstrapConfig(long indexMb, int docsPerSec, int refreshMs, int heapMb, int mergeToSegments) {
  public BootstrapConfig {
    Checks.inRange("indexMb", indexMb, 1, 1L << 20);
    Checks.inRange("docsPerSec", docsPerSec, 1, 100_000);
    Checks.inRange("refreshMs", refreshMs, 10, 60_000);
    Checks.inRange("heapMb", heapMb, 128, 65_536);
    Checks.inRange("mergeToSegments", mergeToSegments, 0, 1_000);
  }

  /** A 1 GiB index, 1,000 docs/s refreshed every second, 2 GiB heaps. */
  public static BootstrapConfig full() {
    return new BootstrapConfig(1024, 1_000, 1_000, 2048, 0);
  }

  /** A 128 MiB index, otherwise as {@link #full()} with 1 GiB heaps. */
  public static BootstrapConfig quick() {
    return new BootstrapConfig(128, 1_000, 1_000, 1024, 0);
  }

  /** The same with an index of {@code mb} MiB. */
  public BootstrapConfig withIndexMb(long mb) {
    return new BootstrapConfig(mb, docsPerSec, refreshMs, heapMb, mergeToSegments);
  }
}

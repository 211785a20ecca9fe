package io.nrtcluster.primary;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.Stable;
import java.time.Duration;

/**
 * How the replicas of an index share the work of copying: at most {@code directReplicas} copy from
 * the primary (and every replica of the in-sync set does, whatever this says), the others copy
 * the files of each point and merge pre-copy from a replica that already holds them, at most
 * {@code fanOut} per parent, level by level. With R replicas the primary then sends each new byte
 * about {@code directReplicas} times instead of R times; each level adds one copy's time to the
 * lag of the levels below it.
 *
 * @param directReplicas replicas that copy from the primary (1 to 1024); with this many replicas or
 *     fewer nobody copies from a peer. 2 by default, from figure 12 in docs/benchmarks.md: a primary
 *     feeding 2 replicas itself keeps their lag p50 near one replica's (67 against 63 ms), feeding 4
 *     raises it to 100 ms (p99 292 ms) while the tree keeps its first level at 91 ms; the third
 *     replica is where sending every byte again starts to cost the others
 * @param fanOut most replicas that copy from one parent (1 to 64), 2 by default
 * @param parentWait how long a replica waits for its parent to install a published point before the
 *     primary announces the point to it anyway (it then fetches from the primary whatever the
 *     parent lacks): the bound on how long a slow or dead parent delays its children, 2 s by default
 */
@Stable
public record CopyTreeConfig(int directReplicas, int fanOut, Duration parentWait) {
  /** Nobody copies from a peer: every replica copies from the primary. */
  public static final CopyTreeConfig OFF = new CopyTreeConfig(1024, 1, Duration.ofSeconds(2));

  /** Validates every field; throws {@link IllegalArgumentException} naming the first bad one. */
  public CopyTreeConfig {
    Checks.inRange("copyTree.directReplicas", directReplicas, 1, 1024);
    Checks.inRange("copyTree.fanOut", fanOut, 1, 64);
    Checks.positive("copyTree.parentWait", parentWait);
    Checks.atMost("copyTree.parentWait", parentWait, Duration.ofMinutes(10));
  }

  /** Two replicas from the primary, two children per parent, a 2 s wait for a parent. */
  public static CopyTreeConfig defaults() {
    return new CopyTreeConfig(2, 2, Duration.ofSeconds(2));
  }

  /** True when some replica may copy from a peer. */
  public boolean enabled() {
    return directReplicas < 1024;
  }
}

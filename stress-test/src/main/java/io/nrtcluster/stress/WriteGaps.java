package io.nrtcluster.stress;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The gaps a client of the cluster sees between its acknowledged writes. Guarantees: the longest gap
 * is the longest time between two consecutive acknowledgements (out-of-order records of concurrent
 * writers never make a gap of their own); the gap of a failover is the one the first acknowledgement
 * after it closes (failovers with no acknowledgement between them share one gap). Unlike the failover
 * time, which starts when the write path noticed a failure, a gap also holds the time spent noticing.
 */
final class WriteGaps {
  private long last = -1;
  private long maxGap = -1;
  private long maxEndedAt = -1;
  private boolean failoverPending;
  private final List<Long> failoverGaps = new ArrayList<>();

  /** A write was acknowledged at {@code atMillis} (run-relative). */
  synchronized void acknowledged(long atMillis) {
    if (last >= 0 && atMillis > last) {
      long gap = atMillis - last;
      if (gap > maxGap) {
        maxGap = gap;
        maxEndedAt = atMillis;
      }
      if (failoverPending) {
        failoverGaps.add(gap);
        failoverPending = false;
      }
    }
    last = Math.max(last, atMillis);
  }

  /** The write path moved to another primary or generation at {@code atMillis}. */
  synchronized void failover(long atMillis) {
    failoverPending = last >= 0;
  }

  synchronized ChaosReport.WriteGap figures() {
    return new ChaosReport.WriteGap(maxGap, maxEndedAt, Percentiles.of(failoverGaps, 50), Percentiles.max(failoverGaps),
        failoverGaps.size());
  }

  /** The summary's phrase for {@code g}. */
  static String describe(ChaosReport.WriteGap g) {
    return String.format(Locale.ROOT, "client-observed write gap max %d ms (ended at %.1f s); around failovers p50 %d ms, "
        + "max %d ms (%d gaps)", g.maxMs(), g.maxEndedAtMillis() / 1000.0, g.failoverP50Ms(), g.failoverMaxMs(),
        g.failoverGaps());
  }
}

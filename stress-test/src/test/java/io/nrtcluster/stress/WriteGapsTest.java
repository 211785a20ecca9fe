package io.nrtcluster.stress;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client-observed write gap: the longest time between two consecutive acknowledged writes, and
 * the gap each failover left (the one its first acknowledgement after it closed), reported beside
 * the failover times, which start only when the harness noticed a failure.
 */
class WriteGapsTest {
  @Test
  @Timeout(10)
  void theLongestGapAndEachFailoversGapAreMeasuredBetweenAcknowledgements() {
    WriteGaps gaps = new WriteGaps();
    assertThat(gaps.figures()).isEqualTo(new ChaosReport.WriteGap(-1, -1, -1, -1, 0));
    gaps.acknowledged(1_000);
    gaps.acknowledged(1_030);
    gaps.acknowledged(1_060);
    // A primary paused at 1,070 ms; the write path moved to the new primary at 2,500 ms.
    gaps.failover(2_500);
    gaps.acknowledged(2_560);
    gaps.acknowledged(2_590);
    // Acknowledgements of concurrent writers may be recorded slightly out of order: no negative gap.
    gaps.acknowledged(2_585);
    gaps.acknowledged(2_620);
    // A long stall without a failover (a slow primary) is the longest gap, but no failover's.
    gaps.acknowledged(6_620);
    gaps.failover(7_000);
    gaps.failover(7_100);
    gaps.acknowledged(7_620);
    ChaosReport.WriteGap g = gaps.figures();
    assertThat(g.maxMs()).isEqualTo(4_000);
    assertThat(g.maxEndedAtMillis()).isEqualTo(6_620);
    assertThat(g.failoverGaps()).as("two failovers before one acknowledgement leave one gap").isEqualTo(2);
    assertThat(g.failoverMaxMs()).isEqualTo(1_500);
    assertThat(g.failoverP50Ms()).isEqualTo(1_000);
    assertThat(WriteGaps.describe(g)).isEqualTo(
        "client-observed write gap max 4000 ms (ended at 6.6 s); around failovers p50 1000 ms, max 1500 ms (2 gaps)");
  }
}

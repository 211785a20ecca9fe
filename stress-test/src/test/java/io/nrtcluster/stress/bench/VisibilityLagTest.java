package io.nrtcluster.stress.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class VisibilityLagTest {
  @Test
  void aReplicaSeesARefreshWhenItFirstSearchesThatVersionOrANewerOne() {
    List<long[]> refreshes = List.of(new long[] {10, 1_000, 1_100}, new long[] {11, 2_000, 2_050}, new long[] {12, 3_000, 3_010});
    // Replica A searched every version; replica B skipped 11 and saw 12 late.
    List<long[]> a = List.of(new long[] {10, 1_300}, new long[] {11, 2_200}, new long[] {12, 3_100});
    List<long[]> b = List.of(new long[] {10, 1_500}, new long[] {12, 4_000});
    assertThat(VisibilityLag.lags(refreshes, List.of(a, b))).containsExactly(300L, 500L, 200L, 2_000L, 100L, 1_000L);
    assertThat(VisibilityLag.refreshTimes(refreshes)).containsExactly(100L, 50L, 10L);
  }

  @Test
  void aVersionSearchedBeforeTheRefreshStartedIsNotCounted() {
    List<long[]> refreshes = List.<long[]>of(new long[] {5, 1_000, 1_010});
    List<long[]> stale = List.<long[]>of(new long[] {5, 900}, new long[] {6, 1_400});
    assertThat(VisibilityLag.lags(refreshes, List.of(stale))).containsExactly(400L);
  }

  @Test
  void percentilesAreNearestRankInMilliseconds() {
    Dist d = Dist.ofNanos(List.of(4_000_000L, 1_000_000L, 3_000_000L, 2_000_000L));
    assertThat(d.p50()).isEqualTo(2.0);
    assertThat(d.p99()).isEqualTo(4.0);
    assertThat(d.max()).isEqualTo(4.0);
    assertThat(d.n()).isEqualTo(4);
    assertThat(Dist.ofNanos(List.of()).n()).isZero();
    assertThat(Dist.ratio(3, 2)).isEqualTo(1.5);
    assertThat(Dist.ratio(3, 0)).isEqualTo(-1);
  }
}

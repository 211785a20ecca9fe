package io.nrtcluster.stress.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class VisibilityLagTest {
  @Test
  void aReplicaSeesARefreshWhenItFirstSearchesThatVersionOrANewerOne() {
    List<BenchApi.Refresh> refreshes = List.of(
        new BenchApi.Refresh(10, 1_000, 1_100),
        new BenchApi.Refresh(11, 2_000, 2_050),
        new BenchApi.Refresh(12, 3_000, 3_010));
    // Replica A searched every version; replica B skipped 11 and saw 12 late.
    List<BenchApi.Seen> a = List.of(
        new BenchApi.Seen(10, 1_300),
        new BenchApi.Seen(11, 2_200),
        new BenchApi.Seen(12, 3_100));
    List<BenchApi.Seen> b = List.of(new BenchApi.Seen(10, 1_500), new BenchApi.Seen(12, 4_000));
    assertThat(VisibilityLag.lags(refreshes, List.of(a, b))).containsExactly(300L, 500L, 200L, 2_000L, 100L, 1_000L);
    assertThat(VisibilityLag.refreshTimes(refreshes)).containsExactly(100L, 50L, 10L);
  }

  @Test
  void aVersionSearchedBeforeTheRefreshStartedIsNotCounted() {
    List<BenchApi.Refresh> refreshes = List.of(new BenchApi.Refresh(5, 1_000, 1_010));
    List<BenchApi.Seen> stale = List.of(new BenchApi.Seen(5, 900), new BenchApi.Seen(6, 1_400));
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

package io.nrtcluster.stress.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Figure 5 counts only the 10 ms buckets wholly inside a window. */
@Timeout(10)
class SearchFigureTest {
  @Test
  void countsTheWholeBucketsOfAWindow() {
    long ms = 1_000_000;
    // Buckets start at 1000, 1010, ... ms; 5 queries in each of the first four, 50 in the next two.
    BenchApi.SearchReply s = new BenchApi.SearchReply(120, 60 * ms, 1_000 * ms, 10 * ms, new long[] {5, 5, 5, 5, 50, 50});
    assertThat(SearchFigure.qps(s, 1_000 * ms, 1_040 * ms)).isEqualTo(500.0);
    // 1,035 to 1,060 ms holds only the buckets starting at 1,040 and 1,050 whole.
    assertThat(SearchFigure.qps(s, 1_035 * ms, 1_060 * ms)).isEqualTo(5_000.0);
    assertThat(SearchFigure.qps(s, 1_001 * ms, 1_010 * ms)).as("no whole bucket").isEqualTo(-1);
  }
}

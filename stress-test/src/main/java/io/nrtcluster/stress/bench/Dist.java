package io.nrtcluster.stress.bench;

import java.util.Arrays;
import java.util.List;

/** A distribution of durations, summarised in milliseconds (nearest-rank percentiles). */
record Dist(double p50, double p99, double max, int n) {
  static Dist ofNanos(List<Long> nanos) {
    if (nanos.isEmpty()) {
      return new Dist(-1, -1, -1, 0);
    }
    long[] v = nanos.stream().mapToLong(Long::longValue).toArray();
    Arrays.sort(v);
    return new Dist(ms(v, 50), ms(v, 99), v[v.length - 1] / 1e6, v.length);
  }

  private static double ms(long[] sorted, double p) {
    int rank = (int) Math.ceil(p / 100 * sorted.length);
    return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] / 1e6;
  }

  static double ratio(double a, double b) {
    return b <= 0 ? -1 : Math.round(a / b * 1000) / 1000.0;
  }
}

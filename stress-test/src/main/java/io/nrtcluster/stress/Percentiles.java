package io.nrtcluster.stress;

import java.util.Arrays;
import java.util.Collection;

/** Nearest-rank percentiles of a sample; -1 for an empty one. */
final class Percentiles {
  private Percentiles() {}

  static long of(Collection<Long> values, double p) {
    if (values.isEmpty()) {
      return -1;
    }
    long[] sorted = values.stream().mapToLong(Long::longValue).toArray();
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
  }

  static long max(Collection<Long> values) {
    return values.stream().mapToLong(Long::longValue).max().orElse(-1);
  }
}

package io.nrtcluster.primary;

/**
 * Each primary epoch names its new segments from a range of its own, so no two epochs ever write
 * a segment of the same name with other contents.
 *
 * <p>Why: a primary that steps down keeps its last commit, which can hold segments it flushed after
 * its last published point. Its successor opens the published point, whose segment counter is below
 * those names, and Lucene would hand out the same names again; the old primary, rejoining as a
 * replica, then found files of its commit with other contents under the new primary's names and had
 * to drop its whole index (Lucene's own stress test lists this as a TODO). Epoch {@code g} starts its
 * counter at {@code g << }{@value #BITS_PER_EPOCH} (or above, if the index already counts higher),
 * which leaves each epoch 2^40 names, and epochs up to 2^23 before a long overflows.
 */
final class SegmentNames {
  /** How many low bits of the segment counter are one epoch's own. */
  static final int BITS_PER_EPOCH = 40;
  /** The highest epoch whose range still fits a non-negative long counter. */
  static final long MAX_EPOCH = (Long.MAX_VALUE >>> BITS_PER_EPOCH);

  private SegmentNames() {}

  /**
   * The lowest segment counter a primary of {@code epoch} uses: its range's first name. An epoch
   * beyond {@link #MAX_EPOCH} (never seen in practice: one failover a second for 97 days) gets no
   * range of its own and keeps the counter it found.
   */
  static long firstCounter(long epoch) {
    if (epoch <= 0 || epoch > MAX_EPOCH) {
      return 0;
    }
    return epoch << BITS_PER_EPOCH;
  }
}

package io.nrtcluster.common;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Exponential backoff with full jitter between a minimum and a maximum delay. Not thread-safe: one
 * instance per retry loop.
 */
@Internal
public final class Backoff {
  private final long minMillis;
  private final long maxMillis;
  private long nextMillis;

  public Backoff(Duration min, Duration max) {
    Checks.positive("backoff.min", min);
    Checks.positive("backoff.max", max);
    if (max.compareTo(min) < 0) {
      throw new IllegalArgumentException("backoff.max must be >= backoff.min");
    }
    this.minMillis = min.toMillis();
    this.maxMillis = max.toMillis();
    this.nextMillis = minMillis;
  }

  /** The delay before the next attempt; doubles up to the maximum. */
  public Duration next() {
    long ceiling = nextMillis;
    nextMillis = Math.min(maxMillis, nextMillis * 2);
    long jittered = minMillis + ThreadLocalRandom.current().nextLong(Math.max(1, ceiling - minMillis + 1));
    return Duration.ofMillis(Math.min(jittered, maxMillis));
  }

  /** Back to the minimum delay, after a success. */
  public void reset() {
    nextMillis = minMillis;
  }
}

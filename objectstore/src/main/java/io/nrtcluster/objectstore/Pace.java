package io.nrtcluster.objectstore;

import java.io.InterruptedIOException;
import java.util.concurrent.TimeUnit;

/**
 * A token bucket over bytes: {@link #take} returns once the bytes taken so far fit within {@code
 * bytesPerSecond} since the start, allowing a burst of at most {@link #BURST_NANOS} worth of bytes
 * after an idle spell (so a pause does not buy a long burst afterwards). Sleeping here is the point:
 * it is rate limiting, not waiting for a condition. One thread at a time (a verification reads its
 * objects one after another).
 */
final class Pace {
  /** Credit an idle reader may save up: 100 ms of bytes. */
  static final long BURST_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  private final long bytesPerSecond;
  private boolean started;
  /** When every byte taken so far is paid for, on {@link System#nanoTime()}'s scale. */
  private long paidUntil;

  /** @param bytesPerSecond the limit; 0 for none */
  Pace(long bytesPerSecond) {
    if (bytesPerSecond < 0) {
      throw new IllegalArgumentException("bytesPerSecond must be >= 0, got " + bytesPerSecond);
    }
    this.bytesPerSecond = bytesPerSecond;
  }

  /** Takes {@code bytes} just read, sleeping as long as they are ahead of the pace. */
  void take(long bytes) throws InterruptedIOException {
    if (bytesPerSecond == 0 || bytes <= 0) {
      return;
    }
    long now = System.nanoTime();
    long earliest = now - BURST_NANOS;
    paidUntil = (!started || paidUntil - earliest < 0 ? earliest : paidUntil) + cost(bytes);
    started = true;
    long ahead = paidUntil - now;
    if (ahead > 0) {
      try {
        TimeUnit.NANOSECONDS.sleep(ahead);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while pacing reads to " + bytesPerSecond + " bytes/s");
      }
    }
  }

  private long cost(long bytes) {
    return (long) Math.min(Long.MAX_VALUE / 4.0, bytes * 1e9 / bytesPerSecond);
  }
}

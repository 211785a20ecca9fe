package io.nrtcluster.objectstore;

import java.time.Duration;

/**
 * The moment, on {@link System#nanoTime()}'s scale, from which a store call starts no more request
 * attempts (a lease's end), or none. Immutable.
 */
final class Deadline {
  /** No deadline: a call ends only by its attempts. */
  static final Deadline NONE = new Deadline(0, null);

  private final long endNanos;
  private final Duration lease;

  private Deadline(long endNanos, Duration lease) {
    this.endNanos = endNanos;
    this.lease = lease;
  }

  /** The end of {@code lease} taken at {@code startNanos} ({@link System#nanoTime()}). */
  static Deadline after(long startNanos, Duration lease) {
    return new Deadline(startNanos + lease.toNanos(), lease);
  }

  boolean bounded() {
    return lease != null;
  }

  /** Nanoseconds left, at most 0 once passed; {@link Long#MAX_VALUE} without a deadline. */
  long remainingNanos() {
    return lease == null ? Long.MAX_VALUE : endNanos - System.nanoTime();
  }

  @Override
  public String toString() {
    return lease == null ? "no deadline" : "the end of its lease of " + lease.toMillis() + " ms";
  }
}

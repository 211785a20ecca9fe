package io.nrtcluster.node;

/**
 * Where the silence of a followed primary counts from, discounting this node's own stalls.
 *
 * <p>A detector that looks every ~100 ms and finds its previous look more than {@code stallNanos}
 * ago was not running: this process was paused (a collection, a stopped VM) or starved of CPU, and
 * so were the threads that read the primary's answers, which may be waiting unread in the socket.
 * Silence seen across such a gap is this node's, not evidence against the primary, so it counts
 * again from the end of the stall. Guarantees: never later than now, never earlier than the last
 * contact; without stalls it is exactly the last contact. Not thread-safe (one detector owns it).
 *
 * <p>The discount has one exception ({@link #countFrom(long, long, long)}): once a connection
 * attempt to the primary was refused after the last contact, nothing listens at its address, so no
 * answer of its can be waiting unread here, and the silence counts from the last contact whatever
 * this node's stalls. Without it, a survivor starved of CPU by a mass failover (dozens of indexes
 * losing their primary at once) kept restarting the silence of a primary that was already gone.
 */
final class SilenceWindow {
  private static final long NONE = Long.MIN_VALUE;
  private final long stallNanos;
  private long lastLook = NONE;
  private long resumedAt = NONE;

  SilenceWindow(long stallNanos) {
    if (stallNanos <= 0) {
      throw new IllegalArgumentException("stallNanos must be positive, got " + stallNanos);
    }
    this.stallNanos = stallNanos;
  }

  /** One look at {@code now}: the instant the primary's silence counts from, given its {@code lastHeard}. */
  long countFrom(long now, long lastHeard) {
    if (lastLook != NONE && now - lastLook > stallNanos) {
      resumedAt = now;
    }
    lastLook = now;
    return resumedAt == NONE || lastHeard - resumedAt >= 0 ? lastHeard : resumedAt;
  }

  /**
   * {@link #countFrom(long, long)}, except that a connection attempt refused after {@code lastHeard}
   * ({@code refusedAt}, {@link Long#MIN_VALUE} for none) makes it {@code lastHeard}.
   */
  long countFrom(long now, long lastHeard, long refusedAt) {
    long from = countFrom(now, lastHeard);
    return refusedAt != Long.MIN_VALUE && refusedAt - lastHeard > 0 ? lastHeard : from;
  }
}

package io.nrtcluster.stress;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Judges how the cluster recovers once a fault is undone, each judgement bounded by the run's
 * recovery timeout: whether the write path accepts writes again (else a recovery timeout is counted),
 * and whether a version refreshed after the fault reaches every live node (how long that took, or a
 * failure to converge counted). It owns these figures; they may be read while the run goes on.
 */
final class Recovery {
  private static final Logger LOG = LoggerFactory.getLogger(Recovery.class);

  private final Duration timeout;
  private final ProcessCluster processes;
  private final WritePath path;
  private final AtomicInteger timeouts = new AtomicInteger();
  private final List<Long> convergeMillis = new CopyOnWriteArrayList<>();
  private final AtomicInteger notConverged = new AtomicInteger();

  Recovery(Duration timeout, ProcessCluster processes, WritePath path) {
    this.timeout = timeout;
    this.processes = processes;
    this.path = path;
  }

  /**
   * After a fault is undone: once the write path is clean again, a refresh's version must reach
   * every live node within the recovery timeout. Returns how long that took, or -1 (counted).
   */
  long converge() throws InterruptedException {
    long healedAt = System.nanoTime();
    long deadline = healedAt + timeout.toNanos();
    long version = -1;
    while (version < 0 && System.nanoTime() < deadline) {
      if (path.awaitClean(1_000)) {
        version = path.refresh();
      }
    }
    try {
      if (version < 0) {
        throw new IOException("no refresh succeeded after healing");
      }
      processes.awaitAllAt(version, Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
      long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - healedAt);
      convergeMillis.add(took);
      return took;
    } catch (IOException e) {
      notConverged.incrementAndGet();
      LOG.warn("not converged: {}", e.getMessage());
      return -1;
    }
  }

  /** Every node up and the write path clean again, or a recovery timeout counted. */
  void awaitWrites() throws InterruptedException {
    if (!path.awaitClean(timeout.toMillis())) {
      timeouts.incrementAndGet();
      LOG.warn("the cluster did not accept writes again within {}", timeout);
    }
  }

  /** How long each successful {@link #converge} took (every live node at a version refreshed after healing). */
  List<Long> convergeMillis() {
    return List.copyOf(convergeMillis);
  }

  /** How many times {@link #converge} failed. */
  int notConverged() {
    return notConverged.get();
  }

  /** How many times {@link #awaitWrites} gave up. */
  int timeouts() {
    return timeouts.get();
  }
}

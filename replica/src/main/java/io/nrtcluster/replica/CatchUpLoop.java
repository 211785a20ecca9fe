package io.nrtcluster.replica;

import io.nrtcluster.common.Backoff;
import io.nrtcluster.common.NodeLog;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * The one thread that moves a replica towards the newest NRT point it has heard of. Announcements
 * only record the target and wake it; the thread asks the replica to copy, and retries with backoff
 * after a failure, so a dead link or a failed copy is never the end of catching up.
 *
 * <p>The backoff grows with every failure in a row and is reset only by progress (a copy installed,
 * nothing left to copy) or a reconnect. While it runs, new announcements only move the target: a
 * replica whose copies keep failing (a full disk) tries at most once per backoff delay, however
 * often the primary refreshes.
 *
 * <p>A hold-off (a file reported to the primary, see {@link BadFileTracker}) postpones every attempt
 * until it ends, however often the loop is woken: copying again could only fetch the same bad file.
 */
final class CatchUpLoop implements Runnable {
  /** What one attempt achieved. */
  enum Outcome {
    /** Searching the target (or newer); nothing to do until the next announcement. */
    CAUGHT_UP,
    /** A copy is running; its completion wakes the loop. */
    IN_FLIGHT,
    /** Could not progress now; try again after a backoff delay. */
    RETRY
  }

  /** One attempt to reach {@code (primaryGen, version)}. */
  interface Step {
    Outcome attempt(long primaryGen, long version) throws InterruptedException;
  }

  private final NodeLog log;
  private final Step step;
  private final Backoff backoff;
  private final Supplier<Duration> holdOff;
  private final Thread thread;
  private long targetGen = -1;
  private long targetVersion = -1;
  private boolean wake;
  private long retryAtNanos = Long.MAX_VALUE;
  private volatile boolean closed;

  CatchUpLoop(NodeLog log, Step step, Duration minBackoff, Duration maxBackoff) {
    this(log, step, minBackoff, maxBackoff, () -> Duration.ZERO);
  }

  /** {@code holdOff} says how long attempts must wait now (zero: none); it must not block. */
  CatchUpLoop(NodeLog log, Step step, Duration minBackoff, Duration maxBackoff, Supplier<Duration> holdOff) {
    this.log = log;
    this.step = step;
    this.holdOff = holdOff;
    this.backoff = new Backoff(minBackoff, maxBackoff);
    this.thread = new Thread(this, "nrt-catchup-" + log.name());
    this.thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /** The primary announced NRT point {@code version} of generation {@code gen}. */
  synchronized void announce(long gen, long version) {
    if (gen > targetGen || (gen == targetGen && version > targetVersion)) {
      targetGen = gen;
      targetVersion = version;
    }
    if (retryAtNanos == Long.MAX_VALUE) {
      wake = true;
      notifyAll();
    }
  }

  /** A copy was installed: the backoff starts over and the loop looks again now. */
  synchronized void copySucceeded() {
    backoff.reset();
    retryAtNanos = Long.MAX_VALUE;
    wake = true;
    notifyAll();
  }

  /** Something changed (the link came back, the node was reopened): look again now. */
  synchronized void wakeUp() {
    wake = true;
    notifyAll();
  }

  /** Something failed: look again after a backoff delay. */
  synchronized void retryLater() {
    long at = System.nanoTime() + backoff.next().toNanos();
    retryAtNanos = Math.min(retryAtNanos, at);
    notifyAll();
  }

  private synchronized void caughtUp() {
    backoff.reset();
  }

  synchronized long targetVersion() {
    return targetVersion;
  }

  @Override
  public void run() {
    while (!closed) {
      long gen;
      long version;
      synchronized (this) {
        try {
          while (!closed && !wake && System.nanoTime() < retryAtNanos) {
            long waitMillis = retryAtNanos == Long.MAX_VALUE ? 1000 : Math.max(1, (retryAtNanos - System.nanoTime()) / 1_000_000);
            wait(Math.min(waitMillis, 1000));
          }
        } catch (InterruptedException e) {
          return;
        }
        wake = false;
        retryAtNanos = Long.MAX_VALUE;
        gen = targetGen;
        version = targetVersion;
      }
      if (closed || gen < 0) {
        continue;
      }
      Duration hold = holdOff.get();
      if (hold.isPositive()) {
        synchronized (this) {
          retryAtNanos = System.nanoTime() + hold.toNanos();
        }
        continue;
      }
      try {
        Outcome outcome = step.attempt(gen, version);
        if (outcome == Outcome.RETRY) {
          retryLater();
        } else if (outcome == Outcome.CAUGHT_UP) {
          caughtUp();
        }
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException | AssertionError e) {
        log.warn("catching up to version {} failed", version, e);
        retryLater();
      }
    }
  }

  /** Stops the loop and waits up to {@code millis} for an attempt under way to end. */
  void close(long millis) {
    closed = true;
    synchronized (this) {
      notifyAll();
    }
    thread.interrupt();
    try {
      thread.join(Math.max(1, millis));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

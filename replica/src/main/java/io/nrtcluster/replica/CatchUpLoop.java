package io.nrtcluster.replica;

import io.nrtcluster.common.Backoff;
import io.nrtcluster.common.ExecutorSource;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.SerialExecutor;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * What moves a replica towards the newest NRT point it has heard of. Announcements only record the
 * target and wake it; it asks the replica to copy, and retries with backoff after a failure, so a
 * dead link or a failed copy is never the end of catching up.
 *
 * <p>The backoff grows with every failure in a row and is reset only by progress (a copy installed,
 * nothing left to copy) or a reconnect. While it runs, new announcements only move the target: a
 * replica whose copies keep failing (a full disk) tries at most once per backoff delay, however
 * often the primary refreshes.
 *
 * <p>A hold-off (a file reported to the primary, see {@link BadFileTracker}) postpones every attempt
 * until it ends, however often the loop is woken: copying again could only fetch the same bad file.
 *
 * <p>Attempts run on a serial executor ({@link ExecutorSource.Pool#WORK}): one at a time, and no
 * thread is held between them; an attempt may wait for the primary's copy-state (bounded by the
 * request timeout) or reopen the index after a resync.
 */
final class CatchUpLoop {
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
  private final SerialExecutor executor;
  private long targetGen = -1;
  private long targetVersion = -1;
  private boolean wake;
  private long retryAtNanos = Long.MAX_VALUE;
  private boolean started;
  /** A look is queued on the executor and has not begun. */
  private boolean queued;
  private ScheduledFuture<?> retry;
  private volatile boolean closed;

  CatchUpLoop(NodeLog log, Step step, Duration minBackoff, Duration maxBackoff) {
    this(log, step, minBackoff, maxBackoff, () -> Duration.ZERO);
  }

  /** {@code holdOff} says how long attempts must wait now (zero: none); it must not block. */
  CatchUpLoop(NodeLog log, Step step, Duration minBackoff, Duration maxBackoff, Supplier<Duration> holdOff) {
    this(log, step, minBackoff, maxBackoff, holdOff, SerialExecutor.ownThread("nrt-catchup-" + log.name()));
  }

  /** As above, attempting on {@code executor}, which this loop shuts down when it closes. */
  CatchUpLoop(NodeLog log, Step step, Duration minBackoff, Duration maxBackoff, Supplier<Duration> holdOff,
      SerialExecutor executor) {
    this.log = log;
    this.step = step;
    this.holdOff = holdOff;
    this.backoff = new Backoff(minBackoff, maxBackoff);
    this.executor = executor;
  }

  synchronized void start() {
    started = true;
    if (wake) {
      kick();
    } else if (retryAtNanos != Long.MAX_VALUE) {
      armRetry();
    }
  }

  /** The primary announced NRT point {@code version} of generation {@code gen}. */
  synchronized void announce(long gen, long version) {
    if (gen > targetGen || (gen == targetGen && version > targetVersion)) {
      targetGen = gen;
      targetVersion = version;
    }
    if (retryAtNanos == Long.MAX_VALUE) {
      wake = true;
      kick();
    }
  }

  /** A copy was installed: the backoff starts over and the loop looks again now. */
  synchronized void copySucceeded() {
    backoff.reset();
    retryAtNanos = Long.MAX_VALUE;
    wake = true;
    kick();
  }

  /** Something changed (the link came back, the node was reopened): look again now. */
  synchronized void wakeUp() {
    wake = true;
    kick();
  }

  /** Something failed: look again after a backoff delay. */
  synchronized void retryLater() {
    long at = System.nanoTime() + backoff.next().toNanos();
    if (at < retryAtNanos) {
      retryAtNanos = at;
      armRetry();
    }
  }

  private synchronized void caughtUp() {
    backoff.reset();
  }

  synchronized long targetVersion() {
    return targetVersion;
  }

  /** Queues a look now, unless one is queued already; the caller holds the monitor. */
  private void kick() {
    if (!started || closed || queued) {
      return;
    }
    queued = true;
    try {
      executor.execute(this::look);
    } catch (RejectedExecutionException e) {
      queued = false;
    }
  }

  /** Arms a look at {@link #retryAtNanos}; the caller holds the monitor. */
  private void armRetry() {
    if (!started || closed) {
      return;
    }
    if (retry != null) {
      retry.cancel(false);
    }
    try {
      retry = executor.schedule(this::look, Math.max(0, retryAtNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      retry = null;
    }
  }

  /** One look: an attempt when woken or when the retry is due, else nothing. */
  private void look() {
    long gen;
    long version;
    synchronized (this) {
      queued = false;
      if (closed || (!wake && System.nanoTime() < retryAtNanos)) {
        return;
      }
      wake = false;
      retryAtNanos = Long.MAX_VALUE;
      if (retry != null) {
        retry.cancel(false);
        retry = null;
      }
      gen = targetGen;
      version = targetVersion;
    }
    if (gen < 0) {
      return;
    }
    Duration hold = holdOff.get();
    if (hold.isPositive()) {
      synchronized (this) {
        retryAtNanos = System.nanoTime() + hold.toNanos();
        armRetry();
      }
      return;
    }
    try {
      Outcome outcome = step.attempt(gen, version);
      if (outcome == Outcome.RETRY) {
        retryLater();
      } else if (outcome == Outcome.CAUGHT_UP) {
        caughtUp();
      }
    } catch (InterruptedException e) {
      // Closing.
      Thread.currentThread().interrupt();
    } catch (RuntimeException | AssertionError e) {
      log.warn("catching up to version {} failed", version, e);
      retryLater();
    }
  }

  /** Stops the loop and waits up to {@code millis} for an attempt under way to end (it is interrupted). */
  void close(long millis) {
    synchronized (this) {
      closed = true;
      if (retry != null) {
        retry.cancel(false);
      }
    }
    executor.shutdownNow();
    try {
      executor.awaitTermination(Math.max(1, millis), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

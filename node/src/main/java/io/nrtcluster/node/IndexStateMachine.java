package io.nrtcluster.node;

import io.nrtcluster.common.ConnectionException;
import io.nrtcluster.common.IllegalTransitionException;
import io.nrtcluster.common.NodeClosedException;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.SerialExecutor;
import java.io.IOException;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.UnaryOperator;

/**
 * The one owner of an index's {@link IndexState} on this node: every event that changes it runs on
 * one serial executor ({@code nrt-index-<node>-<index>}, on the host's events pool: {@link
 * io.nrtcluster.common.ExecutorSource.Pool#EVENTS}), every transition is checked against
 * {@link IndexState#TABLE} (and every change of {@link Candidacy} against its table, in the state it
 * happens in), and readers see one immutable {@link IndexSnapshot} through a volatile field.
 *
 * <p>Guarantees: transitions happen only on the event thread, one at a time, in the order the events
 * were submitted; an illegal transition changes nothing, is logged and raises {@link
 * IllegalTransitionException}; a transition out of {@link IndexState#LEADING} waits until no
 * admitted write is in flight (the write side of the admission lock), so once it returns no write
 * is acknowledged in the old state; nothing here holds a lock across a network, ZooKeeper or disk
 * wait that readers need (the admission lock is held by writes only, and taken exclusively only for
 * the swap of the snapshot).
 */
final class IndexStateMachine {
  private final NodeLog log;
  private final SerialExecutor events;
  private final ReentrantReadWriteLock admission = new ReentrantReadWriteLock();
  private final Object changed = new Object();
  private volatile IndexSnapshot snapshot = IndexSnapshot.INITIAL;

  /** A state machine with an event thread of its own. */
  IndexStateMachine(String threadName, NodeLog log) {
    this(SerialExecutor.ownThread(threadName), log);
  }

  /** A state machine whose events run on {@code events} (shut down with it). */
  IndexStateMachine(SerialExecutor events, NodeLog log) {
    this.log = log;
    this.events = events;
  }

  /** The current view; never blocks. */
  IndexSnapshot snapshot() {
    return snapshot;
  }

  IndexState state() {
    return snapshot.state();
  }

  /** The body of one event, run on the event thread. */
  @FunctionalInterface
  interface Event<T> {
    T run() throws Exception;
  }

  /** Queues {@code event} ({@code name} in logs) and returns at once. */
  Future<?> submit(String name, Event<?> event) {
    try {
      return events.submit((Callable<Object>) () -> runLogged(name, event));
    } catch (RejectedExecutionException e) {
      log.debug("event {} dropped: the index is closed", name);
      return CompletableFuture.completedFuture(null);
    }
  }

  /**
   * Runs {@code event} on the event thread and waits for it; its exception is rethrown as it was
   * (wrapped only when it is neither an {@link IOException} nor unchecked). Called on the event
   * thread itself, it runs inline.
   */
  <T> T call(String name, Event<T> event) throws IOException {
    if (events.isCurrentThread()) {
      return rethrowing(name, event);
    }
    Future<T> f;
    try {
      f = events.submit(() -> runLogged(name, event));
    } catch (RejectedExecutionException e) {
      throw new NodeClosedException(log.name() + ": " + name + " after close");
    }
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      f.cancel(false);
      throw new ConnectionException("interrupted waiting for " + name, e);
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof IOException io) {
        throw io;
      }
      if (c instanceof RuntimeException re) {
        throw re;
      }
      if (c instanceof Error err) {
        throw err;
      }
      throw new IOException(name + " failed: " + c, c);
    }
  }

  private <T> T runLogged(String name, Event<T> event) throws Exception {
    try {
      return event.run();
    } catch (IllegalTransitionException e) {
      log.error("{}: {}", name, e.getMessage());
      throw e;
    }
  }

  private <T> T rethrowing(String name, Event<T> event) throws IOException {
    try {
      return runLogged(name, event);
    } catch (IOException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException(name + " failed: " + e, e);
    }
  }

  /**
   * Moves to the snapshot {@code next} makes of the current one, if the table allows the new state;
   * only on the event thread. Leaving {@link IndexState#LEADING} first waits for admitted writes.
   */
  IndexSnapshot transition(UnaryOperator<IndexSnapshot> next, String why) throws IllegalTransitionException {
    if (!events.isCurrentThread()) {
      throw new IllegalStateException("transition off the event thread: " + Thread.currentThread().getName());
    }
    IndexSnapshot from = snapshot;
    IndexSnapshot to = next.apply(from);
    boolean standingChanges = from.candidacy() != to.candidacy() || from.loss() != to.loss();
    if (from.state() != to.state() || !standingChanges) {
      // A change of standing alone (in FENCED, say) is checked by its own table only.
      IndexState.TABLE.check(from.state(), to.state());
    }
    if (standingChanges) {
      // Judged in the state it happens in: a node gives up while it holds a primary (moving on to
      // FENCED in the same step), and is a candidate again only as a replica.
      Candidacy.check(from.candidacy(), to.candidacy(), from.state());
    }
    if (from.state().admitsWrites() && !to.state().admitsWrites()) {
      admission.writeLock().lock();
      try {
        snapshot = to;
      } finally {
        admission.writeLock().unlock();
      }
    } else {
      snapshot = to;
    }
    synchronized (changed) {
      changed.notifyAll();
    }
    if (from.state() != to.state()) {
      log.info("{} -> {} ({})", from.state(), to.state(), why);
    }
    if (from.candidacy() != to.candidacy()) {
      log.info("candidacy {} -> {} ({})", from.candidacy(), to.candidacy(), why);
    }
    return to;
  }

  /** Moves to {@code state}, keeping the rest of the snapshot. */
  IndexSnapshot moveTo(IndexState state, String why) throws IllegalTransitionException {
    return transition(s -> s.to(state), why);
  }

  /**
   * The read side of the admission lock: held by a write from its state check until it returns, so
   * a transition out of {@link IndexState#LEADING} knows no admitted write is in flight.
   */
  Lock admission() {
    return admission.readLock();
  }

  /**
   * Waits up to {@code millis} for a snapshot other than {@code seen} (a role switch to finish);
   * returns the current one either way.
   */
  IndexSnapshot awaitChange(IndexSnapshot seen, long millis) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    synchronized (changed) {
      while (snapshot == seen) {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left <= 0) {
          break;
        }
        changed.wait(left);
      }
    }
    return snapshot;
  }

  /** Stops the event executor once the queued events ran (at most {@code millis}). */
  void shutdown(long millis) {
    events.shutdown();
    try {
      if (!events.awaitTermination(millis, TimeUnit.MILLISECONDS)) {
        events.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      events.shutdownNow();
    }
  }
}

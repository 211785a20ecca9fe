package io.nrtcluster.common;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * One component's share of a shared pool, for tasks that may run at the same time (a replica's
 * copy jobs): an {@link java.util.concurrent.ExecutorService} whose lifecycle is the component's,
 * not the pool's.
 *
 * <p>Guarantees: {@link #shutdown()} refuses new tasks and lets the submitted ones run; {@link
 * #awaitTermination} waits for this component's tasks only; {@link #shutdownNow()} also skips the
 * tasks still waiting for a thread and interrupts this component's running tasks (only while they
 * run: the interrupt is cleared before the thread goes back to the pool). The pool itself is
 * never shut down from here.
 */
@Internal
public final class PoolShare extends AbstractExecutorService {
  private final String name;
  private final Executor pool;
  private final Object lock = new Object();
  /** Submitted and not finished (queued on the pool or running). */
  private int pending;
  private final Set<Thread> running = new HashSet<>();
  /** Threads interrupted by shutdownNow while running a task of this share. */
  private final Set<Thread> interrupted = new HashSet<>();
  private boolean shutdown;
  private boolean stopped;

  public PoolShare(String name, Executor pool) {
    this.name = Checks.notBlank("name", name);
    this.pool = Objects.requireNonNull(pool, "pool");
  }

  @Override
  public void execute(Runnable task) {
    Objects.requireNonNull(task, "task");
    synchronized (lock) {
      if (shutdown) {
        throw new RejectedExecutionException(name + " is shut down");
      }
      pending++;
    }
    try {
      pool.execute(() -> run(task));
    } catch (RejectedExecutionException e) {
      done();
      throw e;
    }
  }

  private void run(Runnable task) {
    Thread me = Thread.currentThread();
    synchronized (lock) {
      if (stopped) {
        pendingDoneLocked();
        return;
      }
      running.add(me);
    }
    try {
      task.run();
    } finally {
      synchronized (lock) {
        running.remove(me);
        if (interrupted.remove(me)) {
          Thread.interrupted();
        }
        pendingDoneLocked();
      }
    }
  }

  private void done() {
    synchronized (lock) {
      pendingDoneLocked();
    }
  }

  private void pendingDoneLocked() {
    pending--;
    if (pending == 0) {
      lock.notifyAll();
    }
  }

  /** Tasks submitted and not finished. */
  public int pending() {
    synchronized (lock) {
      return pending;
    }
  }

  @Override
  public void shutdown() {
    synchronized (lock) {
      shutdown = true;
      lock.notifyAll();
    }
  }

  /** Refuses new tasks, skips those not started and interrupts the running ones; returns nothing (skipped tasks are not handed back). */
  @Override
  public List<Runnable> shutdownNow() {
    synchronized (lock) {
      shutdown = true;
      stopped = true;
      for (Thread t : running) {
        interrupted.add(t);
        t.interrupt();
      }
      lock.notifyAll();
    }
    return new ArrayList<>();
  }

  @Override
  public boolean isShutdown() {
    synchronized (lock) {
      return shutdown;
    }
  }

  @Override
  public boolean isTerminated() {
    synchronized (lock) {
      return shutdown && pending == 0;
    }
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    synchronized (lock) {
      while (!(shutdown && pending == 0)) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(lock, left);
      }
      return true;
    }
  }

  @Override
  public String toString() {
    synchronized (lock) {
      return name + "[pending=" + pending + ", running=" + running.size() + (shutdown ? ", shut down" : "") + "]";
    }
  }
}

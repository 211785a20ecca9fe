package io.nrtcluster.common;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A pool of daemon threads named {@code name-N} (or as its thread factory names them) that grows only when every thread it has is busy,
 * up to {@code maxThreads}, and shrinks again: a thread idle for {@code keepAlive} ends.
 *
 * <p>Guarantees: a task is handed to an idle thread when there is one (the one idle for the
 * shortest time, so that surplus threads stay idle long enough to end: with the JDK's {@code
 * ThreadPoolExecutor} every idle thread gets its turn and none ever ends under a steady trickle of
 * tasks), else to a new thread while fewer than {@code maxThreads} exist, else it waits in a FIFO
 * queue for the next thread that frees up; so at most {@code maxThreads} tasks run at once, and
 * the threads alive are about as many as tasks ran at once during the last {@code keepAlive}. A
 * task that throws is logged and the thread goes on; an interrupt left by a task is cleared before
 * the next one runs. After {@link #shutdown()} new tasks are refused with {@link
 * RejectedExecutionException} and the queued ones still run.
 */
@Internal
public final class ElasticPool implements Executor {
  private static final Logger LOG = LoggerFactory.getLogger(ElasticPool.class);

  private final String name;
  private final int maxThreads;
  private final long keepAliveNanos;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition terminated = lock.newCondition();
  private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
  /** Idle workers, the most recently idle first. */
  private final ArrayDeque<Worker> idle = new ArrayDeque<>();
  private final List<Worker> workers = new ArrayList<>();
  private final ThreadFactory threadFactory;
  private final LongAdder completed = new LongAdder();
  private int largest;
  private boolean shutdown;

  /**
   * @param name thread name prefix
   * @param maxThreads most threads (and tasks running) at once, 1 to 10000
   * @param keepAlive how long a thread stays idle before it ends, positive
   */
  public ElasticPool(String name, int maxThreads, Duration keepAlive) {
    this(name, maxThreads, keepAlive, new NamedThreadFactory(name));
  }

  /** As above, its threads made by {@code threadFactory} (which names them; they should be daemons). */
  public ElasticPool(String name, int maxThreads, Duration keepAlive, ThreadFactory threadFactory) {
    Checks.notBlank("name", name);
    Checks.inRange("maxThreads", maxThreads, 1, 10_000);
    Checks.positive("keepAlive", keepAlive);
    this.name = name;
    this.maxThreads = maxThreads;
    this.keepAliveNanos = keepAlive.toNanos();
    this.threadFactory = Objects.requireNonNull(threadFactory, "threadFactory");
  }

  public String name() {
    return name;
  }

  public int maxThreads() {
    return maxThreads;
  }

  @Override
  public void execute(Runnable task) {
    Objects.requireNonNull(task, "task");
    Worker started;
    lock.lock();
    try {
      if (shutdown) {
        throw new RejectedExecutionException(name + " is shut down");
      }
      Worker w = idle.pollFirst();
      if (w != null) {
        w.next = task;
        w.wake.signal();
        return;
      }
      if (workers.size() >= maxThreads) {
        queue.addLast(task);
        return;
      }
      started = new Worker(task);
      workers.add(started);
      largest = Math.max(largest, workers.size());
    } finally {
      lock.unlock();
    }
    try {
      started.thread.start();
    } catch (Throwable t) {
      lock.lock();
      try {
        workers.remove(started);
      } finally {
        lock.unlock();
      }
      throw new RejectedExecutionException(name + " could not start a thread: " + t, t);
    }
  }

  /** Threads alive now (busy or idle). */
  public int threads() {
    lock.lock();
    try {
      return workers.size();
    } finally {
      lock.unlock();
    }
  }

  /** Threads running a task now. */
  public int busyThreads() {
    lock.lock();
    try {
      return workers.size() - idle.size();
    } finally {
      lock.unlock();
    }
  }

  /** Tasks waiting for a thread. */
  public int queuedTasks() {
    lock.lock();
    try {
      return queue.size();
    } finally {
      lock.unlock();
    }
  }

  /** Tasks run so far. */
  public long completedTasks() {
    return completed.sum();
  }

  /** The most threads alive at once so far. */
  public int largestThreads() {
    lock.lock();
    try {
      return largest;
    } finally {
      lock.unlock();
    }
  }

  /** Refuses new tasks; queued ones still run, then every thread ends. */
  public void shutdown() {
    lock.lock();
    try {
      shutdown = true;
      for (Worker w : idle) {
        w.wake.signal();
      }
      if (workers.isEmpty()) {
        terminated.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }

  /** Like {@link #shutdown()}, and drops the queued tasks and interrupts the running ones; returns the dropped ones. */
  public List<Runnable> shutdownNow() {
    List<Runnable> dropped;
    lock.lock();
    try {
      shutdown();
      dropped = new ArrayList<>(queue);
      queue.clear();
      for (Worker w : workers) {
        w.thread.interrupt();
      }
    } finally {
      lock.unlock();
    }
    return dropped;
  }

  /** Waits up to {@code timeout} for every thread to end after a shutdown; true when they did. */
  public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    long left = unit.toNanos(timeout);
    lock.lock();
    try {
      while (!(shutdown && workers.isEmpty())) {
        if (left <= 0) {
          return false;
        }
        left = terminated.awaitNanos(left);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public String toString() {
    lock.lock();
    try {
      return name + "[threads=" + workers.size() + "/" + maxThreads + ", busy=" + (workers.size() - idle.size())
          + ", queued=" + queue.size() + ", largest=" + largest + ", completed=" + completed.sum() + "]";
    } finally {
      lock.unlock();
    }
  }

  private final class Worker implements Runnable {
    final Thread thread;
    final Condition wake = lock.newCondition();
    /** The task handed to this worker while it was idle; guarded by the lock. */
    Runnable next;

    Worker(Runnable first) {
      this.next = first;
      this.thread = threadFactory.newThread(this);
    }

    @Override
    public void run() {
      Runnable task;
      lock.lock();
      try {
        task = next;
        next = null;
      } finally {
        lock.unlock();
      }
      while (task != null) {
        try {
          task.run();
        } catch (Throwable t) {
          LOG.error("{}: a task failed", thread.getName(), t);
        } finally {
          completed.increment();
        }
        if (!isShutdown()) {
          // A task's interrupt is its own: the next task must not see it.
          Thread.interrupted();
        }
        task = take();
      }
    }

    private boolean isShutdown() {
      lock.lock();
      try {
        return shutdown;
      } finally {
        lock.unlock();
      }
    }

    /** The next task, waiting up to the keep-alive for one; null when this thread ends. */
    private Runnable take() {
      lock.lock();
      try {
        Runnable r = queue.pollFirst();
        if (r != null) {
          return r;
        }
        long left = keepAliveNanos;
        idle.addFirst(this);
        while (next == null && !shutdown && left > 0) {
          try {
            left = wake.awaitNanos(left);
          } catch (InterruptedException e) {
            // Only shutdownNow interrupts an idle worker: look at the state again.
            left = shutdown ? 0 : left;
          }
        }
        if (next != null) {
          r = next;
          next = null;
          return r;
        }
        idle.remove(this);
        workers.remove(this);
        if (shutdown && workers.isEmpty()) {
          terminated.signalAll();
        }
        return null;
      } finally {
        lock.unlock();
      }
    }
  }
}

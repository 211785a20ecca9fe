package io.nrtcluster.common;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One component's executor on a shared pool: its tasks run one at a time, in the order they were
 * submitted (a delayed or periodic task in the order it came due), each seeing everything the one
 * before did, but on whichever thread of the pool is free. So what used to need a thread of its own
 * to keep its steps in order (an election, an index's role switches, a replica's catch-up) costs
 * no thread while it has nothing to do.
 *
 * <p>Guarantees: at most one task of this executor runs at a time, never two on different threads;
 * tasks run in submission order; delays and periods are kept by the shared {@code timer}, which
 * only queues the task here when it is due (so the timer never runs a task itself); after {@value
 * #BATCH} tasks in a row the executor gives its pool thread back and queues itself again, so one
 * busy component cannot hold a pool thread while others wait. {@link #shutdown()} refuses new tasks
 * and cancels the delayed and periodic ones, while tasks already queued still run; {@link
 * #shutdownNow()} also drops the queued ones and interrupts the task running now (only while it
 * runs: the interrupt never leaks to the pool's next task). Shutting this executor down leaves the
 * pool and the timer alone. {@link #isCurrentThread()} tells a task of this executor from any other
 * code, so a caller can run inline what it would otherwise queue and wait for.
 *
 * <p>What it does not guarantee: that a task starts soon. A task that waits (for the network,
 * ZooKeeper, the disk or another executor) holds one pool thread while it waits; the pool must be
 * sized for as many such waits at once as the host allows, or the waits moved out of the task.
 */
@Internal
public final class SerialExecutor extends AbstractExecutorService implements ScheduledExecutorService {
  /** Tasks run in a row before the executor lets other components have the pool thread. */
  static final int BATCH = 32;
  private static final Logger LOG = LoggerFactory.getLogger(SerialExecutor.class);

  private final String name;
  private final Executor pool;
  private final ScheduledExecutorService timer;
  /** The single-thread executor this one made for itself ({@link #ownThread}), shut down with it; else null. */
  private final ScheduledThreadPoolExecutor owned;
  private final Object lock = new Object();
  private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
  private final Set<Timed<?>> timed = new HashSet<>();
  /** A drain is queued on the pool or running. */
  private boolean draining;
  /** The thread running this executor's tasks now, or null. */
  private volatile Thread runner;
  /** {@link #shutdownNow} interrupted the runner: its interrupt is cleared before the thread goes back to the pool. */
  private boolean interrupted;
  private boolean shutdown;

  /**
   * @param name for thread names while this executor runs (a pool thread is renamed {@code
   *     <pool thread>/<name>} while it runs this executor's tasks) and for logs
   * @param pool the threads tasks run on
   * @param timer keeps the delays; it only hands due tasks to this executor
   */
  public SerialExecutor(String name, Executor pool, ScheduledExecutorService timer) {
    this(name, pool, timer, null);
  }

  private SerialExecutor(String name, Executor pool, ScheduledExecutorService timer, ScheduledThreadPoolExecutor owned) {
    this.name = Checks.notBlank("name", name);
    this.pool = Objects.requireNonNull(pool, "pool");
    this.timer = Objects.requireNonNull(timer, "timer");
    this.owned = owned;
  }

  /**
   * A serial executor with a daemon thread of its own named {@code name-1} (started with the first
   * task, ended by {@link #shutdown()}): the behaviour of a single-thread executor, for a component
   * used without a host's shared pools.
   */
  public static SerialExecutor ownThread(String name) {
    ScheduledThreadPoolExecutor own = new ScheduledThreadPoolExecutor(1, new NamedThreadFactory(name));
    own.setRemoveOnCancelPolicy(true);
    return new SerialExecutor(name, own, own, own);
  }

  public String name() {
    return name;
  }

  /** True when the calling code is a task of this executor. */
  public boolean isCurrentThread() {
    return runner == Thread.currentThread();
  }

  @Override
  public void execute(Runnable task) {
    Objects.requireNonNull(task, "task");
    synchronized (lock) {
      if (shutdown) {
        throw new RejectedExecutionException(name + " is shut down");
      }
      tasks.addLast(task);
      if (draining) {
        return;
      }
      draining = true;
    }
    dispatch();
  }

  /** Queues a drain on the pool; a pool that refuses it (shut down) ends this executor. */
  private void dispatch() {
    try {
      pool.execute(this::drain);
    } catch (RejectedExecutionException e) {
      synchronized (lock) {
        shutdown = true;
        tasks.clear();
        draining = false;
        lock.notifyAll();
      }
      cancelTimed();
      throw e;
    }
  }

  private void drain() {
    Thread me = Thread.currentThread();
    String poolName = me.getName();
    me.setName(poolName + "/" + name);
    boolean again = false;
    try {
      for (int i = 0; i < BATCH; i++) {
        Runnable task;
        synchronized (lock) {
          task = tasks.pollFirst();
          if (task == null) {
            draining = false;
            finishLocked(me);
            return;
          }
          runner = me;
        }
        try {
          task.run();
        } catch (Throwable t) {
          LOG.warn("{}: a task failed", name, t);
        } finally {
          synchronized (lock) {
            runner = null;
            if (interrupted) {
              interrupted = false;
              Thread.interrupted();
            }
          }
        }
      }
      synchronized (lock) {
        again = !tasks.isEmpty();
        if (!again) {
          draining = false;
          finishLocked(me);
        }
      }
    } finally {
      me.setName(poolName);
    }
    if (again) {
      try {
        dispatch();
      } catch (RejectedExecutionException e) {
        LOG.debug("{}: the pool is shut down; {} queued task(s) dropped", name, e.getMessage());
      }
    }
  }

  /** The drain ends; the caller holds the lock. */
  private void finishLocked(Thread me) {
    lock.notifyAll();
    if (shutdown && owned != null) {
      owned.shutdown();
    }
  }

  // Scheduling: the timer only hands due tasks to execute().

  @Override
  public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    return arm(new Timed<Void>(Executors.callable(command, null), System.nanoTime() + unit.toNanos(delay), 0), delay, unit);
  }

  @Override
  public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
    return arm(new Timed<>(callable, System.nanoTime() + unit.toNanos(delay), 0), delay, unit);
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
    if (period <= 0) {
      throw new IllegalArgumentException("period must be positive, got " + period);
    }
    return arm(new Timed<Void>(Executors.callable(command, null), System.nanoTime() + unit.toNanos(initialDelay),
        unit.toNanos(period)), initialDelay, unit);
  }

  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
    if (delay <= 0) {
      throw new IllegalArgumentException("delay must be positive, got " + delay);
    }
    return arm(new Timed<Void>(Executors.callable(command, null), System.nanoTime() + unit.toNanos(initialDelay),
        -unit.toNanos(delay)), initialDelay, unit);
  }

  private <V> Timed<V> arm(Timed<V> t, long delay, TimeUnit unit) {
    synchronized (lock) {
      if (shutdown) {
        throw new RejectedExecutionException(name + " is shut down");
      }
      timed.add(t);
    }
    try {
      t.onTimer = timer.schedule(t::due, Math.max(0, delay), unit);
    } catch (RejectedExecutionException e) {
      forget(t);
      throw e;
    }
    return t;
  }

  private void forget(Timed<?> t) {
    synchronized (lock) {
      timed.remove(t);
    }
  }

  private void cancelTimed() {
    List<Timed<?>> all;
    synchronized (lock) {
      all = new ArrayList<>(timed);
      timed.clear();
    }
    for (Timed<?> t : all) {
      t.cancel(false);
    }
  }

  /** A delayed or periodic task: due, it is queued on the executor; periodic, it is armed again after it ran. */
  private final class Timed<V> extends FutureTask<V> implements RunnableScheduledFuture<V> {
    /** Positive: fixed rate; negative: fixed delay; zero: once. */
    private final long period;
    private volatile long time;
    private volatile Future<?> onTimer;

    Timed(Callable<V> callable, long time, long period) {
      super(callable);
      this.time = time;
      this.period = period;
    }

    /** On the timer's thread: queue it here, never run it there. */
    void due() {
      if (isDone()) {
        return;
      }
      try {
        execute(this);
      } catch (RejectedExecutionException e) {
        cancel(false);
      }
    }

    @Override
    public void run() {
      if (!isPeriodic()) {
        forget(this);
        super.run();
        return;
      }
      if (!runAndReset()) {
        forget(this);
        return;
      }
      long now = System.nanoTime();
      time = period > 0 ? time + period : now - period;
      try {
        onTimer = timer.schedule(this::due, Math.max(0, time - now), TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException e) {
        cancel(false);
      }
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      boolean cancelled = super.cancel(mayInterruptIfRunning);
      Future<?> f = onTimer;
      if (f != null) {
        f.cancel(false);
      }
      forget(this);
      return cancelled;
    }

    @Override
    public boolean isPeriodic() {
      return period != 0;
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return unit.convert(time - System.nanoTime(), TimeUnit.NANOSECONDS);
    }

    @Override
    public int compareTo(Delayed other) {
      return other == this ? 0 : Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
    }
  }

  // Lifecycle.

  @Override
  public void shutdown() {
    boolean idle;
    synchronized (lock) {
      shutdown = true;
      idle = !draining;
      if (idle) {
        lock.notifyAll();
      }
    }
    cancelTimed();
    if (idle && owned != null) {
      owned.shutdown();
    }
  }

  @Override
  public List<Runnable> shutdownNow() {
    List<Runnable> dropped;
    synchronized (lock) {
      shutdown = true;
      dropped = new ArrayList<>(tasks);
      tasks.clear();
      Thread r = runner;
      if (r != null) {
        interrupted = true;
        r.interrupt();
      }
      lock.notifyAll();
    }
    cancelTimed();
    if (owned != null) {
      owned.shutdown();
    }
    return dropped;
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
      return shutdown && !draining;
    }
  }

  /** Waits until shut down with no task queued or running; called from a task of this executor it can only time out. */
  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    synchronized (lock) {
      while (!(shutdown && !draining)) {
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
      return name + "[queued=" + tasks.size() + ", timed=" + timed.size() + (shutdown ? ", shut down" : "") + "]";
    }
  }
}

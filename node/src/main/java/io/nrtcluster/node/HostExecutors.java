package io.nrtcluster.node;

import io.nrtcluster.common.ElasticPool;
import io.nrtcluster.common.ExecutorSource;
import io.nrtcluster.common.NamedThreadFactory;
import io.nrtcluster.common.PoolShare;
import io.nrtcluster.common.SerialExecutor;
import java.io.Closeable;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The shared thread pools of one host, on which every index it serves runs its background work: one
 * {@link ElasticPool} per kind of work ({@link ExecutorSource.Pool}, threads {@code
 * nrt-<pool>-N<node>-<k>}, sized by {@link HostThreads}) and one timer thread ({@code
 * nrt-timer-N<node>-1}) that keeps every delay and period and only hands due tasks to their pool.
 * Components get serial executors ({@link SerialExecutor}: their order kept, no thread held while
 * idle) or shares ({@link PoolShare}) of these pools, and shut those down themselves; {@link
 * #close()} ends the pools once the host's indexes are closed.
 *
 * <p>Guarantees: a host's thread count does not grow with its indexes: idle, it is the timer plus
 * the pool threads that ran in the last idle timeout; busy, at most the sum of the maxima. Waits go
 * one way between pools (operator, election, events, then work and copy), so a full pool only
 * delays, never deadlocks, the pools it waits for.
 */
final class HostExecutors implements ExecutorSource, Closeable {
  private final ScheduledThreadPoolExecutor timer;
  private final Map<Pool, ElasticPool> pools = new EnumMap<>(Pool.class);

  HostExecutors(int nodeId, HostThreads threads) {
    this.timer = new ScheduledThreadPoolExecutor(1, new NamedThreadFactory("nrt-timer-N" + nodeId));
    timer.setRemoveOnCancelPolicy(true);
    for (Pool pool : Pool.values()) {
      pools.put(pool, new ElasticPool("nrt-" + pool.name().toLowerCase(Locale.ROOT) + "-N" + nodeId,
          threads.max(pool), threads.idleTimeout()));
    }
  }

  @Override
  public SerialExecutor serial(Pool pool, String name) {
    return new SerialExecutor(name, pools.get(pool), timer);
  }

  @Override
  public ExecutorService parallel(Pool pool, String name) {
    return new PoolShare(name, pools.get(pool));
  }

  /** The pool of {@code kind}, for its counters. */
  ElasticPool pool(Pool kind) {
    return pools.get(kind);
  }

  /** Threads alive now in every pool and the timer. */
  int threads() {
    int n = timer.getPoolSize();
    for (ElasticPool p : pools.values()) {
      n += p.threads();
    }
    return n;
  }

  /** Ends every pool: queued tasks still run (at most 5 s), then what still runs is interrupted. */
  @Override
  public void close() {
    timer.shutdownNow();
    for (ElasticPool p : pools.values()) {
      p.shutdown();
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    try {
      for (ElasticPool p : pools.values()) {
        if (!p.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
          p.shutdownNow();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      pools.values().forEach(ElasticPool::shutdownNow);
    }
  }

  /** Ends every pool now (the host halts as if it crashed): queued tasks are dropped, running ones interrupted. */
  void halt() {
    timer.shutdownNow();
    pools.values().forEach(ElasticPool::shutdownNow);
  }

  @Override
  public String toString() {
    return pools.values().toString();
  }
}

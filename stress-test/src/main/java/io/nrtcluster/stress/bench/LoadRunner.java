package io.nrtcluster.stress.bench;

import io.nrtcluster.common.NotEnoughReplicasException;
import io.nrtcluster.node.Durability;
import io.nrtcluster.stress.EuroparlDocs;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The benchmark workload inside the indexing process: Europarl documents at a set rate on indexing
 * threads, and a refresher every interval (NRT refresh, or commit then refresh for commit-based
 * replication). Records every refresh after the warm-up as {version, start, end} nanos.
 */
final class LoadRunner {
  /** How each refresh makes documents visible. */
  enum Mode {
    /** NRT refresh (a replica copies the new segments). */
    NRT,
    /** Commit (flush and fsync), then publish: what replication of commits does. */
    COMMIT
  }

  private LoadRunner() {}

  static BenchApi.LoadReply run(BenchIndex index, Mode mode, int docsPerSec, long refreshMs, long warmupSec, long seconds)
      throws IOException, InterruptedException {
    return run(index, mode, Durability.LOCAL, false, docsPerSec, refreshMs, warmupSec, seconds);
  }

  /**
   * The load with each refresh acknowledged with {@code durability}. Each refresh also records the
   * oldest write it covers: the start of the {@code addDocument} call of the oldest document whose
   * call returned before the refresh began (a document whose call returns while the refresh begins
   * counts toward the next refresh, so the write-to-acknowledgement time errs long, never short).
   *
   * @param overlapping each refresh on its own thread, started every {@code refreshMs} whether or not
   *     the previous call returned (as a service's concurrent requests with a refresh would): an
   *     acknowledgement longer than the interval then delays no later refresh; else one refresher calls
   *     them one after the other
   */
  static BenchApi.LoadReply run(BenchIndex index, Mode mode, Durability durability, boolean overlapping, int docsPerSec,
      long refreshMs, long warmupSec, long seconds) throws IOException, InterruptedException {
    int threads = Math.max(1, Math.min(2, (docsPerSec + 4_999) / 5_000));
    long start = System.nanoTime();
    long measureFrom = start + TimeUnit.SECONDS.toNanos(warmupSec);
    long end = measureFrom + TimeUnit.SECONDS.toNanos(seconds);
    AtomicLong docs = new AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    AtomicLong oldestWrite = new AtomicLong(-1);
    List<Thread> indexers = new ArrayList<>();
    long period = TimeUnit.SECONDS.toNanos(threads) / docsPerSec;
    for (int t = 0; t < threads; t++) {
      int me = t;
      indexers.add(Thread.ofPlatform().name("bench-indexer-" + t).start(() -> {
        try (EuroparlDocs corpus = new EuroparlDocs()) {
          for (int skip = 0; skip < me * 997; skip++) {
            corpus.next();
          }
          long next = System.nanoTime();
          long n = 0;
          while (System.nanoTime() < end && failure.get() == null) {
            long now = System.nanoTime();
            if (next > now) {
              LockSupport.parkNanos(next - now);
            } else if (now - next > TimeUnit.MILLISECONDS.toNanos(100)) {
              next = now; // fell behind: do not burst to catch up
            }
            next += period;
            long writeStart = System.nanoTime();
            index.add(corpus.nextDocument("t" + me + "-" + n++));
            oldestWrite.compareAndSet(-1, writeStart);
            if (System.nanoTime() >= measureFrom) {
              docs.incrementAndGet();
            }
          }
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      }));
    }
    Refreshes done = new Refreshes(index, mode, durability, oldestWrite, measureFrom);
    ExecutorService refreshers = overlapping
        ? Executors.newCachedThreadPool(Thread.ofPlatform().name("bench-refresher-", 0).factory()) : null;
    List<Future<?>> inFlight = new ArrayList<>();
    long cpuFrom = -1;
    long nextRefresh = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(refreshMs);
    try {
      while (System.nanoTime() < end && failure.get() == null) {
        long now = System.nanoTime();
        if (nextRefresh > now) {
          LockSupport.parkNanos(nextRefresh - now);
        }
        nextRefresh = Math.max(nextRefresh + TimeUnit.MILLISECONDS.toNanos(refreshMs), System.nanoTime());
        if (cpuFrom < 0 && System.nanoTime() >= measureFrom) {
          cpuFrom = CpuClock.cpuNanos();
        }
        long covers = oldestWrite.getAndSet(-1);
        if (refreshers == null) {
          done.once(covers);
        } else {
          inFlight.add(refreshers.submit(() -> {
            done.once(covers);
            return null;
          }));
        }
      }
      for (Future<?> f : inFlight) {
        f.get();
      }
    } catch (ExecutionException e) {
      throw new IOException("a refresh failed: " + e.getCause(), e.getCause());
    } finally {
      if (refreshers != null) {
        refreshers.shutdownNow();
      }
    }
    for (Thread t : indexers) {
      t.join();
    }
    if (failure.get() != null) {
      throw new IOException("the load failed: " + failure.get(), failure.get());
    }
    long cpu = CpuClock.cpuNanos() - Math.max(0, cpuFrom);
    return done.reply(docs.get(), cpu, measureFrom);
  }

  /** The refreshes of one load, from one thread or several at once. */
  private static final class Refreshes {
    private final BenchIndex index;
    private final Mode mode;
    private final Durability durability;
    private final AtomicLong oldestWrite;
    private final long measureFrom;
    private final List<BenchApi.Refresh> refreshes = new ArrayList<>();
    private final List<BenchApi.Ack> acks = new ArrayList<>();
    private long refused;

    Refreshes(BenchIndex index, Mode mode, Durability durability, AtomicLong oldestWrite, long measureFrom) {
      this.index = index;
      this.mode = mode;
      this.durability = durability;
      this.oldestWrite = oldestWrite;
      this.measureFrom = measureFrom;
    }

    /** One refresh covering the writes since {@code covers} (the oldest one's start; -1: none). */
    void once(long covers) throws IOException {
      long s = System.nanoTime();
      if (mode == Mode.COMMIT) {
        index.commit();
      }
      long version;
      try {
        version = index.refresh(durability).version();
      } catch (NotEnoughReplicasException refusal) {
        // Published but not acknowledged: its writes count toward the next refresh's wait.
        oldestWrite.accumulateAndGet(covers,
            (current, older) -> current < 0 || (older >= 0 && older < current) ? older : current);
        if (s >= measureFrom) {
          synchronized (this) {
            refused++;
          }
        }
        return;
      }
      long e = System.nanoTime();
      if (s >= measureFrom) {
        synchronized (this) {
          refreshes.add(new BenchApi.Refresh(version, s, e));
          acks.add(new BenchApi.Ack(version, covers, s, e));
        }
      }
    }

    /** The reply, refreshes in the order of their versions. */
    synchronized BenchApi.LoadReply reply(long docs, long cpuNanos, long fromNanos) {
      refreshes.sort(Comparator.comparingLong(BenchApi.Refresh::version));
      acks.sort(Comparator.comparingLong(BenchApi.Ack::version));
      return new BenchApi.LoadReply(List.copyOf(refreshes), docs, cpuNanos, fromNanos, System.nanoTime(), List.copyOf(acks),
          refused);
    }
  }
}


package io.nrtcluster.stress.bench;

import io.nrtcluster.common.NotEnoughReplicasException;
import io.nrtcluster.node.Durability;
import io.nrtcluster.stress.EuroparlDocs;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
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
    return run(index, mode, Durability.LOCAL, docsPerSec, refreshMs, warmupSec, seconds);
  }

  /**
   * The load with each refresh acknowledged with {@code durability}. Each refresh also records the
   * oldest write it covers: the start of the {@code addDocument} call of the oldest document whose
   * call returned before the refresh began (a document whose call returns while the refresh begins
   * counts toward the next refresh, so the write-to-acknowledgement time errs long, never short).
   */
  static BenchApi.LoadReply run(BenchIndex index, Mode mode, Durability durability, int docsPerSec, long refreshMs,
      long warmupSec, long seconds) throws IOException, InterruptedException {
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
    List<long[]> refreshes = new ArrayList<>();
    List<BenchApi.Ack> acks = new ArrayList<>();
    long refused = 0;
    long cpuFrom = -1;
    long nextRefresh = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(refreshMs);
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
          refused++;
        }
        continue;
      }
      long e = System.nanoTime();
      if (s >= measureFrom) {
        refreshes.add(new long[] {version, s, e});
        acks.add(new BenchApi.Ack(version, covers, s, e));
      }
    }
    for (Thread t : indexers) {
      t.join();
    }
    if (failure.get() != null) {
      throw new IOException("the load failed: " + failure.get(), failure.get());
    }
    long cpu = CpuClock.cpuNanos() - Math.max(0, cpuFrom);
    return new BenchApi.LoadReply(refreshes, docs.get(), cpu, measureFrom, System.nanoTime(), acks, refused);
  }
}

package io.nrtcluster.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.nrtcluster.common.ElasticPool;
import io.nrtcluster.common.ExecutorSource;
import io.nrtcluster.common.NamedThreadFactory;
import io.nrtcluster.common.PoolShare;
import io.nrtcluster.common.SerialExecutor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replicas on shared pools of one thread each (what a host gives them, at its smallest): two
 * replicas share one copy thread, one catch-up/scrub thread and one timer-task thread, while a
 * forced merge pre-copies its segment to both and refreshes keep coming. Nothing deadlocks (a
 * pre-copy steps aside off the pool for the NRT copies instead of holding the only thread), every
 * replica reaches the last point with the primary's hits, and the replicas start no thread of their
 * own.
 */
@Timeout(120)
class SharedPoolsTest {
  @TempDir Path dir;

  /** A host's pools, each of one thread, and its timer. */
  private static final class OneThreadPools implements ExecutorSource, AutoCloseable {
    final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, new NamedThreadFactory("t-timer"));
    final Map<Pool, ElasticPool> pools = new EnumMap<>(Pool.class);

    OneThreadPools() {
      timer.setRemoveOnCancelPolicy(true);
      for (Pool p : Pool.values()) {
        pools.put(p, new ElasticPool("t-" + p.name().toLowerCase(java.util.Locale.ROOT), 1, Duration.ofSeconds(30)));
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

    @Override
    public void close() {
      timer.shutdownNow();
      pools.values().forEach(ElasticPool::shutdownNow);
    }
  }

  @Test
  void replicasOnOneThreadPerPoolPreCopyAMergeWhileRefreshesGoOn() throws Exception {
    long seed = TestSeeds.seed();
    try (OneThreadPools pools = new OneThreadPools();
        MiniCluster cluster = new MiniCluster(dir, seed, 2, MiniCluster.fastTransport(), MiniCluster.fastTransport())
            .replicaExecutors(pools).replicaScrub(0, ScrubConfig.builder().bytesPerSecond(1 << 20).build())
            .replicaScrub(1, ScrubConfig.builder().bytesPerSecond(1 << 20).build())) {
      cluster.start();
      for (int i = 0; i < 8; i++) {
        cluster.addDocs(300);
        cluster.awaitReplicasAt(cluster.refresh(), Duration.ofSeconds(30));
      }
      long[] preCopiesBefore = cluster.replicas().stream().mapToLong(r -> r.stats().preCopiesCompleted()).toArray();
      CompletableFuture<Void> merge = CompletableFuture.runAsync(() -> {
        try {
          cluster.primary().writer().forceMerge(1);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
      while (!merge.isDone()) {
        cluster.addDocs(20);
        cluster.awaitReplicasAt(cluster.refresh(), Duration.ofSeconds(30));
      }
      merge.get(60, TimeUnit.SECONDS);
      long version = cluster.refresh();
      cluster.awaitReplicasAt(version, Duration.ofSeconds(30));
      for (int i = 0; i < 2; i++) {
        Replica r = cluster.replica(i);
        assertThat(r.stats().preCopiesCompleted()).as("seed %d: R%d pre-copies", seed, r.nodeId()).isGreaterThan(preCopiesBefore[i]);
        MiniCluster.View view = MiniCluster.view(r);
        assertThat(view.counts()).as("seed %d: R%d hits", seed, r.nodeId()).isEqualTo(cluster.expected(view.version()));
      }
      for (ElasticPool p : pools.pools.values()) {
        assertThat(p.largestThreads()).as("seed %d: %s", seed, p).isLessThanOrEqualTo(1);
      }
      assertThat(pools.pools.get(ExecutorSource.Pool.COPY).completedTasks()).isPositive();
      assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
          .as("seed %d: threads of the replicas' own", seed)
          .noneMatch(n -> n.startsWith("nrt-link-") || n.startsWith("nrt-catchup-") || n.startsWith("nrt-scrub-")
              || n.startsWith("nrt-copy-R"));
    }
  }
}

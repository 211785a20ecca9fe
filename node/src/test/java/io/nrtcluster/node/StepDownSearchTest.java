package io.nrtcluster.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.transport.FaultInjection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 15, defect 3: a primary that steps down reopens its last commit as a replica, which is older
 * than what it searched. Its searches must keep the last published point-in-time until the replica
 * searches a newer one: never back in time, never empty.
 */
@Timeout(120)
class StepDownSearchTest {
  @TempDir Path dir;

  @Test
  void aSteppedDownPrimaryNeverSearchesAnOlderPointInTime() throws Exception {
    long seed = FailoverTest.seed();
    try (ClusterHarness c = new ClusterHarness(dir, seed, 2, List.of(ClusterHarness.INDEX))) {
      c.transport(0, ClusterHarness.transport().toBuilder()
          .faults(FaultInjection.builder().switchable(true).seed(seed).build()).build());
      c.start(0);
      assertThat(c.awaitPrimary()).isZero();
      c.start(1);
      ClusterNode old = c.node(0);
      c.addDocs(old, 100);
      c.awaitAllAt(old.refresh());
      old.commit();
      c.addDocs(old, 2_000);
      long published = old.refresh();
      c.awaitAllAt(published);
      long expected = ClusterHarness.count(old);

      AtomicBoolean running = new AtomicBoolean(true);
      AtomicLong fewest = new AtomicLong(Long.MAX_VALUE);
      AtomicLong searches = new AtomicLong();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread searcher = new Thread(() -> {
        while (running.get()) {
          try {
            long n = ClusterHarness.count(old);
            fewest.accumulateAndGet(n, Math::min);
            searches.incrementAndGet();
          } catch (Throwable t) {
            failure.compareAndSet(null, t);
          }
        }
      }, "searcher");
      searcher.start();
      // The old primary copies the new primary's point slowly once it is a replica.
      c.host(0).transport().updateFaults(0, 64 * 1024);
      c.host(0).zooKeeper().curator().getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
      await().atMost(Duration.ofSeconds(30)).until(() -> c.node(1).isWritablePrimary());
      await().atMost(Duration.ofSeconds(30)).until(() -> old.state() == IndexState.REPLICATING);
      long during = searches.get();
      await().atMost(Duration.ofSeconds(10)).until(() -> searches.get() > during + 50);
      c.host(0).transport().updateFaults(0, 0);
      long v = c.node(1).refresh();
      c.awaitAllAt(v);
      running.set(false);
      searcher.join();

      assertThat(failure.get()).as("seed %d: searches kept working", seed).isNull();
      assertThat(fewest.get()).as("seed %d: never fewer documents than the last published point", seed).isEqualTo(expected);
      assertThat(ClusterHarness.count(old)).isEqualTo(expected);
      assertThat(old.snapshotForTests().bridge()).as("dropped once the replica is as new").isNull();
    }
  }
}

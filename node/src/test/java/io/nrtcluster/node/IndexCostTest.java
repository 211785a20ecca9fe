package io.nrtcluster.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.election.Role;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cost of an index on a host: two hosts (each the primary of half the indexes and a replica of
 * the others) open twenty more indexes, copy a point of each, and once idle the process has at most
 * one more live thread per index (the bound; with the host's shared pools the growth is
 * close to zero). The heap per index is measured and printed (it includes the in-process
 * ZooKeeper server's share), not asserted: it depends on the JVM.
 */
class IndexCostTest {
  private static final int MORE = 20;
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  @Test
  void twentyMoreIndexesCostAtMostOneThreadEachOnceIdle(@TempDir Path dir) throws Exception {
    long seed = System.nanoTime();
    // Pool threads end after a second idle, so the test need not wait the default ten.
    HostThreads quick = HostThreads.builder().idleTimeout(Duration.ofSeconds(1)).build();
    try (ClusterHarness h = new ClusterHarness(dir, seed, 2, List.of("i0"))) {
      h.configure(0, b -> b.threads(quick)).configure(1, b -> b.threads(quick));
      h.start(0);
      h.awaitPrimary("i0", TIMEOUT);
      h.start(1);
      copyOnePoint(h, "i0");
      ProcessFootprint before = resting();
      ProcessFootprint heapBefore = ProcessFootprint.afterGc();

      // Half the new indexes are led by each host: each opens its half first, then the other half.
      List<String> names = new ArrayList<>();
      for (int k = 1; k <= MORE; k++) {
        names.add("i" + k);
      }
      for (int k = 0; k < MORE; k++) {
        h.host(k % 2).openIndex(IndexSettings.standard(names.get(k)));
      }
      for (int k = 0; k < MORE; k++) {
        assertThat(h.awaitPrimary(names.get(k), TIMEOUT)).as("primary of %s (seed %d)", names.get(k), seed).isEqualTo(k % 2);
      }
      for (int k = 0; k < MORE; k++) {
        h.host(1 - k % 2).openIndex(IndexSettings.standard(names.get(k)));
      }
      for (String name : names) {
        copyOnePoint(h, name);
      }
      for (int i = 0; i < 2; i++) {
        int host = i;
        assertThat(names.stream().filter(n -> h.node(host, n).role() == Role.PRIMARY).count()).isEqualTo(MORE / 2);
      }

      try {
        // The transport's request threads end after 30 s idle, the host's pool threads after 1 s here.
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
            .until(() -> ProcessFootprint.now().threads() - before.threads() <= MORE);
      } catch (ConditionTimeoutException e) {
        ProcessFootprint now = ProcessFootprint.now();
        throw new AssertionError(String.format("%d more indexes on 2 hosts: %d -> %d live threads, more than one per index "
            + "(seed %d); grown: %s", MORE, before.threads(), now.threads(), seed, now.grownSince(before)), e);
      }
      ProcessFootprint after = resting();
      ProcessFootprint heapAfter = ProcessFootprint.afterGc();
      long perIndex = (heapAfter.heapBytes() - heapBefore.heapBytes()) / MORE;
      System.out.printf("IndexCostTest: %d more indexes on 2 hosts: threads at rest %d -> %d (%+.2f per index), heap %d -> %d "
              + "bytes (%d per index on both hosts, %d per index and host; threads grown: %s)%n", MORE, before.threads(),
          after.threads(), (after.threads() - before.threads()) / (double) MORE, heapBefore.heapBytes(), heapAfter.heapBytes(),
          perIndex, perIndex / 2, after.grownSince(before));
    }
  }

  /** A document and a refresh on the index's primary, and every node of it searching that point. */
  private static void copyOnePoint(ClusterHarness h, String index) throws Exception {
    ClusterNode primary = h.node(h.awaitPrimary(index, TIMEOUT), index);
    primary.addDocument(h.doc(1));
    long version = primary.refresh();
    h.awaitAllAt(index, version, TIMEOUT);
  }

  /**
   * The process at rest: the fewest live threads seen over four seconds (pool threads that served
   * the last work end after the idle timeout; the least count is the one with only the resting ones).
   */
  private static ProcessFootprint resting() throws InterruptedException {
    ProcessFootprint least = ProcessFootprint.now();
    long end = System.nanoTime() + Duration.ofSeconds(4).toNanos();
    while (System.nanoTime() < end) {
      Thread.sleep(100);
      ProcessFootprint now = ProcessFootprint.now();
      if (now.threads() < least.threads()) {
        least = now;
      }
    }
    return least;
  }
}

package io.nrtcluster.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.election.ZkLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 26: a primary that steps down keeps its last commit, which may hold segments it flushed
 * after its last published point. The new primary starts from that published point, whose segment
 * counter is below those names, and used to flush segments under the same names with other
 * contents: the old primary then had to throw its index away and copy everything again (a resync),
 * and a resync interrupted by another failover left it without a searchable point. Each epoch now
 * names its segments from a range of its own.
 */
@Timeout(120)
class SegmentNamesAcrossEpochsTest {
  @TempDir Path dir;

  @Test
  void aSteppedDownPrimaryRejoinsWithoutAResyncAfterCommittingUnpublishedSegments() throws Exception {
    long seed = FailoverTest.seed();
    try (ClusterHarness c = new ClusterHarness(dir, seed, 2, List.of(ClusterHarness.INDEX))) {
      c.start(0);
      assertThat(c.awaitPrimary()).isZero();
      c.start(1);
      ClusterNode old = c.node(0);
      c.addDocs(old, 100);
      c.awaitAllAt(old.refresh());
      // Flushed by the commit under the next segment name, and never published.
      c.addDocs(old, 50);
      old.commit();

      c.host(1).zooKeeper().curator().create().forPath(ZkLayout.of(ClusterHarness.CLUSTER, ClusterHarness.INDEX).successor(),
          Integer.toString(c.host(1).nodeId()).getBytes(StandardCharsets.UTF_8));
      c.host(0).zooKeeper().curator().getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
      await().atMost(Duration.ofSeconds(30)).until(() -> c.node(1).isWritablePrimary());
      ClusterNode next = c.node(1);
      c.addDocs(next, 70);
      long v = next.refresh();
      c.awaitAllAt(v);

      assertThat(old.state()).isEqualTo(IndexState.REPLICATING);
      assertThat(old.snapshotForTests().replica().stats().resyncs())
          .as("seed %d: the new primary's segments share no name with the old primary's last commit", seed).isZero();
      assertThat(ClusterHarness.count(old)).as("seed %d", seed).isEqualTo(170);
      assertThat(ClusterHarness.count(next)).isEqualTo(170);
    }
  }
}

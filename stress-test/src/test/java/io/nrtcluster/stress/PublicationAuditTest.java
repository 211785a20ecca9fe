package io.nrtcluster.stress;

import static org.assertj.core.api.Assertions.assertThat;

import io.nrtcluster.election.ZkLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The audit reads a real ZooKeeper server's transaction log: publications are found and credited to
 * the generation whose session created the primary znode, including the first one (a create) and
 * none of a failed transaction.
 */
@Timeout(60)
class PublicationAuditTest {
  @TempDir Path dir;

  @Test
  void findsEveryPublicationAndTheGenerationThatMadeIt() throws Exception {
    ZkLayout layout = ZkLayout.of("c", "i");
    Path data = Files.createDirectories(dir.resolve("zookeeper").resolve("zk1"));
    try (TestingServer zk = new TestingServer(new InstanceSpec(data.toFile(), -1, -1, -1, false, 1, 500, -1), true);
        CuratorFramework first = client(zk); CuratorFramework second = client(zk)) {
      first.create().creatingParentsIfNeeded().forPath(layout.indexPath());
      // Gen 1 claims (a transaction, as the election does) and publishes 5 (creating maxVersion), then 7.
      first.transaction().forOperations(first.transactionOp().create().withMode(CreateMode.EPHEMERAL)
          .forPath(layout.primary(), bytes("1\n10.0.0.1:9000\n1")));
      first.transaction().forOperations(first.transactionOp().check().forPath(layout.primary()),
          first.transactionOp().create().forPath(layout.maxVersion(), bytes("5")));
      first.transaction().forOperations(first.transactionOp().check().forPath(layout.primary()),
          first.transactionOp().setData().forPath(layout.maxVersion(), bytes("7")));
      // A failed transaction (stale znode version) is logged as errors: not a publication.
      try {
        first.transaction().forOperations(first.transactionOp().check().withVersion(99).forPath(layout.primary()),
            first.transactionOp().setData().forPath(layout.maxVersion(), bytes("8")));
      } catch (Exception expected) {
        // the check failed, as intended
      }
      first.close();
      // Gen 2, another session, takes over and publishes 9.
      org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20))
          .until(() -> second.checkExists().forPath(layout.primary()) == null);
      second.transaction().forOperations(second.transactionOp().create().withMode(CreateMode.EPHEMERAL)
          .forPath(layout.primary(), bytes("2\n10.0.0.2:9000\n2")));
      second.transaction().forOperations(second.transactionOp().check().forPath(layout.primary()),
          second.transactionOp().setData().forPath(layout.maxVersion(), bytes("9")));

      PublicationAudit.Publications p = PublicationAudit.read(dir.resolve("zookeeper"), "c", "i");
      assertThat(p.all()).extracting(PublicationAudit.Publication::gen, PublicationAudit.Publication::nodeId,
          PublicationAudit.Publication::version).containsExactly(
              org.assertj.core.groups.Tuple.tuple(1L, 1, 5L), org.assertj.core.groups.Tuple.tuple(1L, 1, 7L),
              org.assertj.core.groups.Tuple.tuple(2L, 2, 9L));
      assertThat(p.logFiles()).isPositive();
      long now = System.currentTimeMillis();
      assertThat(p.publishedBy(1, 7, now)).isTrue();
      assertThat(p.publishedBy(1, 6, now)).as("6 was never recorded").isFalse();
      assertThat(p.publishedBy(1, 8, now)).as("8 was refused").isFalse();
      assertThat(p.publishedBy(2, 7, now)).as("gen 1 published 7, not gen 2").isFalse();
      assertThat(p.publishedBy(1, 5, p.all().get(0).timeMillis() - 1)).as("not before it happened").isFalse();
      assertThat(p.versionsPublishedTwice()).isZero();
    }
  }

  private static CuratorFramework client(TestingServer zk) {
    CuratorFramework c = CuratorFrameworkFactory.builder().connectString(zk.getConnectString()).sessionTimeoutMs(4_000)
        .retryPolicy(new RetryNTimes(3, 100)).build();
    c.start();
    return c;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}

package io.nrtcluster.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.election.InSyncRecord;
import io.nrtcluster.election.ZkLayout;
import io.nrtcluster.election.ZooKeeperAuth;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node that wins an epoch but cannot publish its first version (here ZooKeeper refuses the write)
 * must give the primary up completely: otherwise the primary it opened keeps the index's write lock
 * and every later attempt of this node to become primary fails on that lock, forever.
 */
@Timeout(120)
class FailedTakeoverTest {
  static final ZooKeeperAuth AUTH = ZooKeeperAuth.builder().user("search").password("takeover").build();

  @TempDir Path dir;

  @Test
  void aNodeThatCannotPublishItsFirstVersionServesAsAReplicaAndBecomesPrimaryOnceItCan() throws Exception {
    long seed = FailoverTest.seed();
    ZkLayout layout = ZkLayout.of(ClusterHarness.CLUSTER, ClusterHarness.INDEX);
    try (ClusterHarness c = new ClusterHarness(dir, seed, 2, List.of(ClusterHarness.INDEX)).zooKeeperAuth(AUTH)
        .startWithFirstAsPrimary();
        CuratorFramework owner = ZooKeeperAuth.configure(CuratorFrameworkFactory.builder(), AUTH).connectString(c.zk)
            .sessionTimeoutMs(4000).connectionTimeoutMs(2000).retryPolicy(new ExponentialBackoffRetry(100, 3)).build()) {
      owner.start();
      assertThat(owner.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
      c.addDocs(c.node(0), 60);
      c.awaitAllAt(c.node(0).refresh());
      // Electable only once in the in-sync set: searching the version is not enough, the primary
      // records the join a moment later, and a kill before it leaves nobody to elect.
      await("seed " + seed + ": node 2 in the in-sync set").atMost(ClusterHarness.TIMEOUT).until(() -> {
        InSyncRecord r = c.node(0).inSyncSet();
        return r != null && r.members().containsKey(2);
      });

      // The published version becomes read-only: whoever wins the next epoch cannot publish.
      List<ACL> writable = owner.getACL().forPath(layout.maxVersion());
      owner.setACL().withACL(List.of(new ACL(ZooDefs.Perms.READ | ZooDefs.Perms.ADMIN, new Id(ZooKeeperAuth.SCHEME, AUTH.digestId()))))
          .forPath(layout.maxVersion());
      List<byte[]> claims = new ArrayList<>();
      claims.add(owner.getData().forPath(layout.epoch()));
      c.kill(0);

      // Node 2 claims an epoch, fails to publish, gives it up and claims again: twice at least.
      await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20)).until(() -> {
        byte[] now = owner.getData().forPath(layout.epoch());
        if (!Arrays.equals(now, claims.get(claims.size() - 1))) {
          claims.add(now);
        }
        return claims.size() >= 3;
      });
      ClusterNode survivor = c.node(1);
      assertThat(survivor.isWritablePrimary()).as("seed %d", seed).isFalse();
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
        assertThat(survivor.primary()).as("seed %d: the failed primary is closed", seed).isNull();
        assertThat(survivor.replica()).as("seed %d: and a replica serves again", seed).isNotNull();
      });
      assertThat(ClusterHarness.count(survivor)).as("seed %d", seed).isEqualTo(60);

      owner.setACL().withACL(writable).forPath(layout.maxVersion());
      await("seed " + seed + ": primary once it can publish").atMost(Duration.ofSeconds(30)).until(survivor::isWritablePrimary);
      c.addDocs(survivor, 5);
      survivor.refresh();
      assertThat(ClusterHarness.count(survivor)).as("seed %d", seed).isEqualTo(65);
    }
  }
}

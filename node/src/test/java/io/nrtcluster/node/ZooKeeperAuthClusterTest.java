package io.nrtcluster.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.ZooKeeperAccessException;
import io.nrtcluster.election.CommandAck;
import io.nrtcluster.election.ZkLayout;
import io.nrtcluster.election.ZooKeeperAccess;
import io.nrtcluster.election.ZooKeeperAuth;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A whole cluster (hosts, operator channel, admin) with ZooKeeper digest authentication, on a real ZooKeeper. */
@Timeout(180)
class ZooKeeperAuthClusterTest {
  static final ZooKeeperAuth AUTH = ZooKeeperAuth.builder().user("search").password("correct horse battery staple").build();
  static final ZooKeeperAuth WRONG = ZooKeeperAuth.builder().user("search").password("Tr0ub4dor&3").build();
  static final Duration TIMEOUT = Duration.ofSeconds(10);

  @TempDir Path dir;

  private static CuratorFramework client(String zk, ZooKeeperAuth auth) throws InterruptedException {
    CuratorFramework c = ZooKeeperAuth.configure(CuratorFrameworkFactory.builder(), auth).connectString(zk)
        .sessionTimeoutMs(4000).connectionTimeoutMs(2000).retryPolicy(new ExponentialBackoffRetry(100, 3)).build();
    c.start();
    assertThat(c.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
    return c;
  }

  private static void assertDenied(ThrowingCallable call) {
    assertThatThrownBy(call).isInstanceOfSatisfying(ZooKeeperAccessException.class,
        e -> assertThat(e.code()).isEqualTo(ErrorCode.ZOOKEEPER_ACCESS_DENIED));
  }

  @Test
  void aClusterWithCredentialsElectsReplicatesFailsOverAndIsClosedToEveryoneElse() throws Exception {
    long seed = FailoverTest.seed();
    try (ClusterHarness c = new ClusterHarness(dir, seed, 3, List.of(ClusterHarness.INDEX)).zooKeeperAuth(AUTH)
        .startWithFirstAsPrimary();
        ClusterAdmin admin = ClusterAdmin.connect(c.zk, TIMEOUT, AUTH)) {
      c.addDocs(c.node(0), 100);
      c.awaitAllAt(c.node(0).refresh());
      c.awaitInSync();
      assertThat(admin.commit(ClusterHarness.CLUSTER, ClusterHarness.INDEX, null, TIMEOUT).values())
          .as("seed %d", seed).hasSize(3).allMatch(CommandAck::isOk);

      c.kill(0);
      int p = c.awaitPrimary();
      assertThat(p).as("seed %d", seed).isIn(1, 2);
      c.addDocs(c.node(p), 50);
      c.awaitAllAt(c.node(p).refresh());
      c.start(0);
      int target = p == 1 ? 2 : 1;
      IndexStatus promoted = admin.promote(ClusterHarness.CLUSTER, ClusterHarness.INDEX, target + 1, Duration.ofSeconds(30));
      assertThat(promoted.primaryNodeId()).isEqualTo(target + 1);
      int now = c.awaitPrimary();
      c.awaitAllAt(c.node(now).refresh());
      for (int i = 0; i < 3; i++) {
        assertThat(ClusterHarness.count(c.node(i))).as("seed %d N%d", seed, i + 1).isEqualTo(150);
      }
      admin.verifyAccess(ClusterHarness.CLUSTER);

      try (CuratorFramework owner = client(c.zk, AUTH); CuratorFramework anonymous = client(c.zk, null);
          CuratorFramework wrong = client(c.zk, WRONG)) {
        List<String> tree = ZooKeeperAccess.tree(owner, ZkLayout.ROOT);
        assertThat(tree).contains("/nrtcluster/it/docs/commands", "/nrtcluster/it/docs/primary", "/nrtcluster/it/docs/members/n-1");
        for (String path : tree) {
          assertThat(owner.getACL().forPath(path)).as(path).isEqualTo(AUTH.acl());
          for (CuratorFramework outsider : List.of(anonymous, wrong)) {
            assertThatThrownBy(() -> outsider.getData().forPath(path)).as(path).isInstanceOf(KeeperException.NoAuthException.class);
            assertThatThrownBy(() -> outsider.getChildren().forPath(path)).as(path).isInstanceOf(KeeperException.NoAuthException.class);
            assertThatThrownBy(() -> outsider.setData().forPath(path, "0".getBytes(StandardCharsets.UTF_8)))
                .as(path).isInstanceOf(KeeperException.NoAuthException.class);
            assertThatThrownBy(() -> outsider.setACL().withACL(ZooDefs.Ids.OPEN_ACL_UNSAFE).forPath(path))
                .as(path).isInstanceOf(KeeperException.NoAuthException.class);
            assertThatThrownBy(() -> outsider.create().forPath(path + "/x")).as(path).isInstanceOf(KeeperException.NoAuthException.class);
            if (!path.equals(ZkLayout.ROOT)) {
              assertThatThrownBy(() -> outsider.delete().forPath(path)).as(path).isInstanceOf(KeeperException.NoAuthException.class);
            }
          }
        }
      }

      // Operators without the right credentials get the typed error and change nothing.
      for (ZooKeeperAuth bad : Arrays.asList(null, WRONG)) {
        try (ClusterAdmin outsider = ClusterAdmin.connect(c.zk, TIMEOUT, bad)) {
          assertDenied(() -> outsider.status(ClusterHarness.CLUSTER, ClusterHarness.INDEX));
          assertDenied(() -> outsider.promote(ClusterHarness.CLUSTER, ClusterHarness.INDEX, 1, TIMEOUT));
          assertDenied(() -> outsider.commit(ClusterHarness.CLUSTER, ClusterHarness.INDEX, null, TIMEOUT));
          assertDenied(() -> outsider.verifyAccess(ClusterHarness.CLUSTER));
        }
      }
      assertThat(admin.status(ClusterHarness.CLUSTER, ClusterHarness.INDEX).primaryNodeId()).isEqualTo(target + 1);
      assertThat(c.node(target).isWritablePrimary()).isTrue();
    }
  }

  @Test
  void aNodeWithWrongOrNoCredentialsFailsAtStartWithATypedError() throws Exception {
    long seed = FailoverTest.seed();
    try (ClusterHarness c = new ClusterHarness(dir, seed, 3, List.of(ClusterHarness.INDEX)).zooKeeperAuth(AUTH);
        ClusterAdmin admin = ClusterAdmin.connect(c.zk, TIMEOUT, AUTH)) {
      c.start(0);
      c.awaitPrimary();
      c.zooKeeperAuth(WRONG);
      assertThatThrownBy(() -> c.start(1)).isInstanceOfSatisfying(ZooKeeperAccessException.class, e -> {
        assertThat(e.code()).isEqualTo(ErrorCode.ZOOKEEPER_ACCESS_DENIED);
        assertThat(e.getMessage()).contains("/nrtcluster/it").contains("wrong password for ZooKeeper user 'search'");
      });
      c.zooKeeperAuth(null);
      assertThatThrownBy(() -> c.start(2)).isInstanceOfSatisfying(ZooKeeperAccessException.class, e -> {
        assertThat(e.code()).isEqualTo(ErrorCode.ZOOKEEPER_ACCESS_DENIED);
        assertThat(e.getMessage()).contains("configure the ZooKeeper credentials");
      });
      assertThat(admin.status(ClusterHarness.CLUSTER, ClusterHarness.INDEX).members()).hasSize(1);
      c.zooKeeperAuth(AUTH);
      c.start(1);
      c.addDocs(c.node(0), 10);
      c.awaitAllAt(c.node(0).refresh());
    }
  }

  @Test
  void aClusterCreatedWithoutCredentialsIsRefusedWithThemUntilSecuredAndItsPasswordCanChange() throws Exception {
    long seed = FailoverTest.seed();
    try (ClusterHarness c = new ClusterHarness(dir, seed, 2, List.of(ClusterHarness.INDEX)).startWithFirstAsPrimary()) {
      c.addDocs(c.node(0), 40);
      c.awaitAllAt(c.node(0).refresh());
      c.stop(1);
      c.stop(0);

      c.zooKeeperAuth(AUTH);
      assertThatThrownBy(() -> c.start(0)).isInstanceOfSatisfying(ZooKeeperAccessException.class, e -> {
        assertThat(e.code()).isEqualTo(ErrorCode.ZOOKEEPER_OPEN_ACL);
        assertThat(e.getMessage()).contains("/nrtcluster/it");
      });
      try (ClusterAdmin open = ClusterAdmin.connect(c.zk, TIMEOUT)) {
        assertThatThrownBy(() -> open.secure(ClusterHarness.CLUSTER)).isInstanceOf(io.nrtcluster.common.AdminException.class);
      }
      try (ClusterAdmin admin = ClusterAdmin.connect(c.zk, TIMEOUT, AUTH)) {
        assertThat(admin.secure(ClusterHarness.CLUSTER)).isGreaterThanOrEqualTo(5);
        admin.verifyAccess(ClusterHarness.CLUSTER);
      }
      c.startAll();
      int p = c.awaitPrimary();
      c.awaitAllAt(c.node(p).refresh());
      for (int i = 0; i < 2; i++) {
        assertThat(ClusterHarness.count(c.node(i))).as("seed %d N%d", seed, i + 1).isEqualTo(40);
      }
      try (ClusterAdmin open = ClusterAdmin.connect(c.zk, TIMEOUT)) {
        assertDenied(() -> open.status(ClusterHarness.CLUSTER, ClusterHarness.INDEX));
      }

      // A password change: every node stops, the tree moves to the new credentials, the nodes restart with them.
      c.stop(0);
      c.stop(1);
      ZooKeeperAuth rotated = ZooKeeperAuth.builder().user("search").password("rotated").build();
      try (ClusterAdmin admin = ClusterAdmin.connect(c.zk, TIMEOUT, rotated)) {
        assertDenied(() -> admin.secure(ClusterHarness.CLUSTER));
        assertThat(admin.secure(ClusterHarness.CLUSTER, AUTH)).isGreaterThanOrEqualTo(5);
        admin.verifyAccess(ClusterHarness.CLUSTER);
      }
      c.zooKeeperAuth(AUTH);
      assertThatThrownBy(() -> c.start(0)).isInstanceOf(ZooKeeperAccessException.class);
      c.zooKeeperAuth(rotated).startAll();
      int q = c.awaitPrimary();
      c.awaitAllAt(c.node(q).refresh());
      for (int i = 0; i < 2; i++) {
        assertThat(ClusterHarness.count(c.node(i))).as("seed %d N%d", seed, i + 1).isEqualTo(40);
      }
    }
  }
}

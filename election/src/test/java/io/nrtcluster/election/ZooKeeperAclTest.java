package io.nrtcluster.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.ZooKeeperAccessException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Digest authentication and ACLs of the election's znodes, against a real ZooKeeper. */
@Timeout(120)
class ZooKeeperAclTest {
  static final ZooKeeperAuth AUTH = ZooKeeperAuth.builder().user("nrt").password("s3cret:with colon").build();
  static final ZooKeeperAuth WRONG = ZooKeeperAuth.builder().user("nrt").password("guess").build();
  static final String CLUSTER = "c1";

  private TestingServer zk;
  private final List<CuratorFramework> clients = new ArrayList<>();
  private final List<IndexElection> elections = new ArrayList<>();

  @BeforeEach
  void startZk() throws Exception {
    zk = new TestingServer(true);
  }

  @AfterEach
  void stop() throws Exception {
    elections.forEach(IndexElection::close);
    clients.forEach(CuratorFramework::close);
    zk.close();
  }

  private CuratorFramework client(ZooKeeperAuth auth) throws InterruptedException {
    CuratorFramework c = ZooKeeperAuth.configure(TestZkClients.builder(zk.getConnectString()), auth).build();
    c.start();
    clients.add(c);
    assertThat(c.blockUntilConnected(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    return c;
  }

  private IndexElection join(CuratorFramework c, String index, int nodeId, long version, IndexElectionTest.Events events) throws Exception {
    ElectionConfig config = ElectionConfig.builder().layout(ZkLayout.of(CLUSTER, index)).nodeId(nodeId)
        .address("127.0.0.1:" + (9000 + nodeId)).settleTime(Duration.ofMillis(300)).retryInterval(Duration.ofMillis(200))
        .zkTimeout(Duration.ofSeconds(5)).build();
    IndexElection e = new IndexElection(c, config, new MemberInfo(nodeId, config.address(), Role.JOINING, 0, version, version, false, 0), events);
    e.start();
    elections.add(e);
    return e;
  }

  /** Three authenticated members elect, publish and fail over; returns the surviving primary. */
  private IndexElection electWithAuth() throws Exception {
    CuratorFramework c1 = client(AUTH);
    IndexElection n1 = join(c1, "docs", 1, 9, new IndexElectionTest.Events());
    IndexElection n2 = join(client(AUTH), "docs", 2, 5, new IndexElectionTest.Events());
    join(client(AUTH), "docs", 3, 4, new IndexElectionTest.Events());
    await().atMost(Duration.ofSeconds(20)).until(() -> n1.hold() == EpochHold.HELD);
    n1.publishVersion(12);
    // An abrupt loss of the primary: its session ends, the next best takes a new epoch.
    n1.abandon();
    c1.close();
    await().atMost(Duration.ofSeconds(30)).until(() -> n2.hold() == EpochHold.HELD);
    assertThat(n2.epoch()).isEqualTo(2);
    n2.publishVersion(13);
    // A second index and an operator's designation: more znodes of more kinds.
    IndexElection logs = join(client(AUTH), "logs", 4, 0, new IndexElectionTest.Events());
    await().atMost(Duration.ofSeconds(20)).until(() -> logs.hold() == EpochHold.HELD);
    n2.designate(3);
    return n2;
  }

  @Test
  void everyZnodeTheElectionCreatesCarriesOnlyTheDigestIdentity() throws Exception {
    electWithAuth();
    CuratorFramework admin = client(AUTH);
    List<String> tree = new ArrayList<>(ZooKeeperAccess.tree(admin, ZkLayout.ROOT));
    assertThat(tree).contains(ZkLayout.ROOT, ZkLayout.clusterPath(CLUSTER), "/nrtcluster/c1/docs/primary",
        "/nrtcluster/c1/docs/members/n-2", "/nrtcluster/c1/docs/epoch", "/nrtcluster/c1/docs/maxVersion",
        "/nrtcluster/c1/docs/successor", "/nrtcluster/c1/logs/members/n-4");
    List<ACL> expected = List.of(new ACL(ZooDefs.Perms.ALL, new org.apache.zookeeper.data.Id("digest", AUTH.digestId())));
    for (String path : tree) {
      assertThat(admin.getACL().forPath(path)).as(path).isEqualTo(expected);
    }
    ZooKeeperAccess.verify(admin, CLUSTER, AUTH);
    assertThat(ZooKeeperAccess.sharedRootOpen(admin)).isFalse();
  }

  @Test
  void withoutTheCredentialsNothingCanBeReadOrChangedAnywhere() throws Exception {
    IndexElection primary = electWithAuth();
    CuratorFramework admin = client(AUTH);
    List<String> tree = ZooKeeperAccess.tree(admin, ZkLayout.ROOT);
    for (CuratorFramework outsider : List.of(client(null), client(WRONG))) {
      for (String path : tree) {
        expectNoAuth(path, "getData", () -> outsider.getData().forPath(path));
        expectNoAuth(path, "getChildren", () -> outsider.getChildren().forPath(path));
        expectNoAuth(path, "getACL", () -> outsider.getACL().forPath(path));
        expectNoAuth(path, "setData", () -> outsider.setData().forPath(path, "x".getBytes(StandardCharsets.UTF_8)));
        expectNoAuth(path, "setACL", () -> outsider.setACL().withACL(ZooDefs.Ids.OPEN_ACL_UNSAFE).forPath(path));
        expectNoAuth(path, "create", () -> outsider.create().forPath(path + "/intruder"));
        expectNoAuth(path, "create ephemeral", () -> outsider.create().withMode(CreateMode.EPHEMERAL).forPath(path + "/intruder"));
        if (path.equals(ZkLayout.ROOT)) {
          // Deleting the shared root is up to the ACL of '/', ZooKeeper's own, open to anyone: it is never empty.
          assertThatThrownBy(() -> outsider.delete().forPath(path)).isInstanceOf(KeeperException.NotEmptyException.class);
        } else {
          expectNoAuth(path, "delete", () -> outsider.delete().forPath(path));
        }
      }
      assertThatThrownBy(() -> ZooKeeperAccess.verify(outsider, CLUSTER, outsider == clients.get(clients.size() - 1) ? WRONG : null))
          .isInstanceOfSatisfying(ZooKeeperAccessException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ZOOKEEPER_ACCESS_DENIED));
    }
    // Nothing changed: the same tree, and the primary still publishes.
    assertThat(ZooKeeperAccess.tree(admin, ZkLayout.ROOT)).containsExactlyInAnyOrderElementsOf(tree);
    primary.publishVersion(20);
    assertThat(new String(admin.getData().forPath("/nrtcluster/c1/docs/maxVersion"), StandardCharsets.UTF_8)).isEqualTo("20");
  }

  @FunctionalInterface
  interface ZkOp {
    Object run() throws Exception;
  }

  private static void expectNoAuth(String path, String what, ZkOp op) {
    assertThatThrownBy(op::run).as(what + " " + path).isInstanceOf(KeeperException.NoAuthException.class);
  }

  @Test
  void aMemberWithWrongOrNoCredentialsFailsToJoinWithATypedError() throws Exception {
    join(client(AUTH), "docs", 1, 0, new IndexElectionTest.Events());
    for (ZooKeeperAuth bad : java.util.Arrays.asList(WRONG, null)) {
      assertThatThrownBy(() -> join(client(bad), "docs", 2, 0, new IndexElectionTest.Events()))
          .isInstanceOfSatisfying(ZooKeeperAccessException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.ZOOKEEPER_ACCESS_DENIED);
            assertThat(e.getMessage()).contains("/nrtcluster/c1");
          });
    }
  }

  @Test
  void aTreeCreatedWithoutCredentialsIsRefusedWithAuthUntilSecured() throws Exception {
    CuratorFramework open = client(null);
    IndexElection n1 = join(open, "docs", 1, 0, new IndexElectionTest.Events());
    await().atMost(Duration.ofSeconds(20)).until(() -> n1.hold() == EpochHold.HELD);
    n1.publishVersion(3);
    n1.close();
    open.close();
    await().atMost(Duration.ofSeconds(10)).until(() -> zkChildren("/nrtcluster/c1/docs/members").isEmpty());

    CuratorFramework secured = client(AUTH);
    assertThat(ZooKeeperAccess.sharedRootOpen(secured)).isTrue();
    assertThatThrownBy(() -> ZooKeeperAccess.verify(secured, CLUSTER, AUTH))
        .isInstanceOfSatisfying(ZooKeeperAccessException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.ZOOKEEPER_OPEN_ACL);
          assertThat(e.getMessage()).contains("/nrtcluster/c1");
        });
    int changed = ZooKeeperAccess.secure(secured, CLUSTER, AUTH);
    assertThat(changed).isEqualTo(ZooKeeperAccess.tree(secured, ZkLayout.clusterPath(CLUSTER)).size()).isGreaterThanOrEqualTo(5);
    assertThat(ZooKeeperAccess.secure(secured, CLUSTER, AUTH)).as("idempotent").isZero();
    ZooKeeperAccess.verify(secured, CLUSTER, AUTH);
    CuratorFramework anonymous = client(null);
    expectNoAuth("epoch", "getData", () -> anonymous.getData().forPath("/nrtcluster/c1/docs/epoch"));
    assertThatThrownBy(() -> ZooKeeperAccess.verify(anonymous, CLUSTER, null)).isInstanceOf(ZooKeeperAccessException.class);

    // The secured cluster carries on with credentials, above the version published before.
    IndexElectionTest.Events events = new IndexElectionTest.Events();
    IndexElection n2 = join(secured, "docs", 2, 0, events);
    await().atMost(Duration.ofSeconds(20)).until(() -> n2.hold() == EpochHold.HELD);
    assertThat(events.gen).isEqualTo(2);
    assertThat(events.forceVersion).isEqualTo(4);
  }

  private List<String> zkChildren(String path) throws Exception {
    try (CuratorFramework c = CuratorFrameworkFactory.newClient(zk.getConnectString(), new ExponentialBackoffRetry(100, 3))) {
      c.start();
      return c.getChildren().forPath(path);
    }
  }

  @Test
  void credentialsAreValidatedAndNeverPrinted() {
    assertThat(AUTH.toString()).doesNotContain("s3cret").contains("nrt");
    assertThat(AUTH.digestId()).startsWith("nrt:").doesNotContain("s3cret");
    assertThatThrownBy(() -> ZooKeeperAuth.builder().user("a:b").password("p").build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("zooKeeperAuth.user");
    assertThatThrownBy(() -> ZooKeeperAuth.builder().user("a").password("").build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("zooKeeperAuth.password");
    assertThatThrownBy(() -> ZooKeeperAuth.builder().user("a").password("p\n").build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("zooKeeperAuth.password");
  }
}

package io.nrtcluster.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.common.ConnectionException;
import io.nrtcluster.common.NotPrimaryException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(120)
class IndexElectionTest {
  private TestingServer zk;
  private final List<CuratorFramework> clients = new ArrayList<>();
  private final List<IndexElection> elections = new ArrayList<>();

  /** Records what the election told one node. */
  static final class Events implements ElectionListener {
    final List<String> log = new CopyOnWriteArrayList<>();
    volatile long gen = -1;
    volatile long forceVersion = -1;
    volatile PrimaryInfo following;

    @Override
    public void becomePrimary(long primaryGen, long force) {
      gen = primaryGen;
      forceVersion = force;
      log.add("primary " + primaryGen);
    }

    @Override
    public void followPrimary(PrimaryInfo primary) {
      following = primary;
      log.add("follow " + primary.nodeId());
    }

    @Override
    public void fenced() {
      log.add("fenced");
    }

    @Override
    public void unfenced() {
      log.add("unfenced");
    }

    @Override
    public void stepDown() {
      log.add("stepDown");
    }
  }

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

  private CuratorFramework client() {
    CuratorFramework c = TestZkClients.builder(zk.getConnectString()).build();
    c.start();
    clients.add(c);
    return c;
  }

  private IndexElection join(CuratorFramework c, int nodeId, long gen, long version, Events events) throws Exception {
    ElectionConfig config = ElectionConfig.builder().layout(ZkLayout.of("c1", "docs")).nodeId(nodeId)
        .address("127.0.0.1:" + (9000 + nodeId)).settleTime(Duration.ofMillis(300)).retryInterval(Duration.ofMillis(200)).build();
    IndexElection e = new IndexElection(c, config, new MemberInfo(nodeId, config.address(), Role.JOINING, gen, version, version, false, 0), events);
    e.start();
    elections.add(e);
    return e;
  }

  @Test
  void theMostUpToDateMemberWinsAndTheOthersFollowIt() throws Exception {
    Events e1 = new Events();
    Events e2 = new Events();
    Events e3 = new Events();
    IndexElection n1 = join(client(), 1, 0, 5, e1);
    IndexElection n2 = join(client(), 2, 0, 7, e2);
    IndexElection n3 = join(client(), 3, 0, 6, e3);
    await().atMost(Duration.ofSeconds(20)).until(() -> n2.hold() == EpochHold.HELD);
    await().atMost(Duration.ofSeconds(20)).until(() -> e1.following != null && e3.following != null);
    assertThat(e1.following.nodeId()).isEqualTo(2);
    assertThat(e3.following.nodeId()).isEqualTo(2);
    assertThat(e2.gen).isEqualTo(1);
    assertThat(e2.forceVersion).as("above every version a member reported").isEqualTo(8);
    assertThat(List.of(n1.hold(), n3.hold())).containsOnly(EpochHold.NONE);

    n2.publishVersion(20);
    assertThatThrownBy(() -> n1.publishVersion(21)).isInstanceOfSatisfying(NotPrimaryException.class,
        ex -> assertThat(ex.primaryAddress()).isEqualTo("127.0.0.1:9002"));
  }

  @Test
  void theMemberRecordCarriesTheApplicationsMetadataThroughProgressUpdatesAndChanges() throws Exception {
    ElectionConfig config = ElectionConfig.builder().layout(ZkLayout.of("c1", "docs")).nodeId(1).address("127.0.0.1:9001")
        .settleTime(Duration.ofMillis(300)).retryInterval(Duration.ofMillis(200)).memberMetadata(Map.of("http", "http://a:1")).build();
    IndexElection n1 = new IndexElection(client(), config, new MemberInfo(1, "127.0.0.1:9001", Role.JOINING, 0, 0, 0, false, 0), new Events());
    n1.start();
    elections.add(n1);
    IndexElection n2 = join(client(), 2, 0, 0, new Events());
    assertThat(metadataOf(n2, 1)).isEqualTo(Map.of("http", "http://a:1"));

    n1.update(new MemberInfo(1, "127.0.0.1:9001", Role.REPLICA, 0, 5, 5, false, 0));
    await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(searching(n2, 1)).isEqualTo(5));
    assertThat(metadataOf(n2, 1)).as("a progress update keeps the metadata").isEqualTo(Map.of("http", "http://a:1"));

    n1.setMemberMetadata(Map.of("http", "http://b:2", "zone", "z1"));
    await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(metadataOf(n2, 1)).isEqualTo(Map.of("http", "http://b:2", "zone", "z1")));
    await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(n2.cachedMembers()).filteredOn(m -> m.nodeId() == 1)
        .singleElement().extracting(MemberInfo::metadata).isEqualTo(Map.of("http", "http://b:2", "zone", "z1")));
    assertThat(searching(n2, 1)).as("a metadata change keeps the progress").isEqualTo(5);
    assertThatThrownBy(() -> n1.setMemberMetadata(Map.of("http", "a\nb"))).isInstanceOf(IllegalArgumentException.class);
    assertThat(n1.memberMetadata()).isEqualTo(Map.of("http", "http://b:2", "zone", "z1"));
    assertThat(metadataOf(n1, 2)).isEmpty();
  }

  /**
   * The role in the member record is the one the record's owner reports (the node's index state
   * machine, which the rebalancer, the others' elections and {@code nrt status} read through the
   * record), not the election's own view of its epoch: a node that holds the epoch in ZooKeeper but
   * whose index is fenced (its writer lost, its primary not yet open) must not advertise PRIMARY.
   */
  @Test
  void theMemberRecordCarriesTheRoleItsOwnerReportsNotTheElectionsViewOfItsEpoch() throws Exception {
    Events events = new Events();
    IndexElection n1 = join(client(), 1, 0, 5, events);
    await().atMost(Duration.ofSeconds(20)).until(() -> events.gen == 1);
    IndexElection n2 = join(client(), 2, 0, 0, new Events());

    n1.update(new MemberInfo(1, "127.0.0.1:9001", Role.FENCED, 1, 5, 5, false, 0));
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(roleOf(n2, 1)).isEqualTo(Role.FENCED));
    n1.update(new MemberInfo(1, "127.0.0.1:9001", Role.PRIMARY, 1, 6, 6, false, 0));
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(roleOf(n2, 1)).isEqualTo(Role.PRIMARY));
    assertThat(roleOf(n1, 2)).as("the initial record's role, as its owner gave it").isEqualTo(Role.JOINING);
  }

  /** A host's halt abandons every election, then each node's own halt leaves it again: one leave. */
  @Test
  void leavingTwiceIsOneLeave() throws Exception {
    Events events = new Events();
    IndexElection n1 = join(client(), 1, 0, 5, events);
    await().atMost(Duration.ofSeconds(20)).until(() -> events.gen == 1);
    n1.abandon();
    n1.abandon();
    n1.close();
    assertThat(n1.hold()).isEqualTo(EpochHold.LEFT);
  }

  private static Role roleOf(IndexElection viewer, int nodeId) throws Exception {
    return viewer.members().stream().filter(m -> m.nodeId() == nodeId).findFirst().orElseThrow().role();
  }

  private static Map<String, String> metadataOf(IndexElection viewer, int nodeId) throws Exception {
    return viewer.members().stream().filter(m -> m.nodeId() == nodeId).findFirst().orElseThrow().metadata();
  }

  private static long searching(IndexElection viewer, int nodeId) throws Exception {
    return viewer.members().stream().filter(m -> m.nodeId() == nodeId).findFirst().orElseThrow().searchingVersion();
  }

  @Test
  void whenThePrimaryDiesTheNextBestWinsANewEpochAboveEveryPublishedVersion() throws Exception {
    Events e1 = new Events();
    Events e2 = new Events();
    Events e3 = new Events();
    CuratorFramework c2 = client();
    IndexElection n1 = join(client(), 1, 0, 5, e1);
    IndexElection n2 = join(c2, 2, 0, 7, e2);
    IndexElection n3 = join(client(), 3, 0, 6, e3);
    await().atMost(Duration.ofSeconds(20)).until(() -> n2.hold() == EpochHold.HELD);
    n2.publishVersion(40);
    await().atMost(Duration.ofSeconds(20)).until(() -> e3.following != null);

    c2.close(); // abrupt: no resign; the session closes and its ephemeral znodes vanish
    await().atMost(Duration.ofSeconds(20)).until(() -> n3.hold() == EpochHold.HELD);
    assertThat(e3.gen).isEqualTo(2);
    assertThat(e3.forceVersion).isEqualTo(41);
    await().atMost(Duration.ofSeconds(20)).until(() -> e1.following != null && e1.following.nodeId() == 3);
    assertThat(n1.hold()).isEqualTo(EpochHold.NONE);
  }

  @Test
  void aPrimaryWhoseSessionExpiresIsFencedCannotPublishAndStepsDown() throws Exception {
    Events e1 = new Events();
    Events e2 = new Events();
    CuratorFramework c1 = client();
    IndexElection n1 = join(c1, 1, 0, 9, e1);
    IndexElection n2 = join(client(), 2, 0, 3, e2);
    await().atMost(Duration.ofSeconds(20)).until(() -> n1.hold() == EpochHold.HELD);

    c1.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
    await().atMost(Duration.ofSeconds(20)).until(() -> e1.log.contains("fenced"));
    await().atMost(Duration.ofSeconds(20)).until(() -> n2.hold() == EpochHold.HELD || n1.hold() == EpochHold.HELD && n1.epoch() > 1);
    await().atMost(Duration.ofSeconds(20)).until(() -> e1.log.contains("stepDown"));
    if (n2.hold() == EpochHold.HELD) {
      assertThatThrownBy(() -> n1.publishVersion(100)).isInstanceOf(NotPrimaryException.class);
    }
  }

  @Test
  void anUnreachableZooKeeperIsATypedError() throws Exception {
    CuratorFramework c = CuratorFrameworkFactory.builder().connectString("127.0.0.1:1")
        .sessionTimeoutMs(2000).connectionTimeoutMs(500).retryPolicy(new ExponentialBackoffRetry(100, 1)).build();
    c.start();
    clients.add(c);
    ElectionConfig config = ElectionConfig.builder().layout(ZkLayout.of("c1", "docs")).nodeId(1).address("127.0.0.1:9001")
        .zkTimeout(Duration.ofSeconds(1)).build();
    IndexElection e = new IndexElection(c, config, new MemberInfo(1, "127.0.0.1:9001", Role.JOINING, 0, 0, 0, false, 0), new Events());
    assertThatThrownBy(e::start).isInstanceOf(ConnectionException.class).hasMessageContaining("unreachable");
  }

  @Test
  void aMajorityOfSuspiciousReplicasDeposesALivePrimaryWhoseSessionNeverEnds() throws Exception {
    Events e1 = new Events();
    Events e2 = new Events();
    Events e3 = new Events();
    CuratorFramework c1 = client();
    CuratorFramework c3 = client();
    IndexElection n1 = join(c1, 1, 0, 9, e1);
    IndexElection n2 = join(client(), 2, 0, 7, e2);
    IndexElection n3 = join(c3, 3, 0, 5, e3);
    await().atMost(Duration.ofSeconds(20)).until(() -> n1.hold() == EpochHold.HELD);
    await().atMost(Duration.ofSeconds(20)).until(() -> e2.following != null && e3.following != null);
    n1.publishVersion(30);
    PrimaryInfo old = e2.following;
    ZkLayout layout = ZkLayout.of("c1", "docs");

    n3.suspect(old, "test");
    await().atMost(Duration.ofSeconds(20)).until(() -> Suspicions.read(c3, layout).equals(Map.of(3, 1L)));
    assertThat(n3.suspectedEpoch()).isEqualTo(1);
    await("one suspicion of two voters deposes nobody").during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(5))
        .until(() -> n1.hold() == EpochHold.HELD && n2.hold() == EpochHold.NONE);

    n2.suspect(old, "test");
    await().atMost(Duration.ofSeconds(20)).until(() -> n2.hold() == EpochHold.HELD);
    assertThat(e2.gen).as("the next epoch").isEqualTo(2);
    assertThat(e2.forceVersion).as("above every published version").isEqualTo(31);
    await().atMost(Duration.ofSeconds(20)).until(() -> e1.log.contains("stepDown"));
    assertThat(n1.hold()).isEqualTo(EpochHold.NONE);
    assertThat(e1.log).as("the deposed primary was never fenced: its session lived").doesNotContain("fenced");
    assertThatThrownBy(() -> n1.publishVersion(32)).isInstanceOf(NotPrimaryException.class);
    assertThat(c1.getZookeeperClient().isConnected()).isTrue();
    await().atMost(Duration.ofSeconds(20)).until(() -> e1.following != null && e1.following.nodeId() == 2
        && e3.following.nodeId() == 2);
    n2.publishVersion(31);

    // Following the new primary, the replicas withdraw: suspicions of the old epoch are gone.
    n3.withdrawSuspicion("test");
    n2.withdrawSuspicion("test");
    await().atMost(Duration.ofSeconds(20)).until(() -> Suspicions.read(c3, layout).isEmpty());
    assertThat(n3.suspectedEpoch()).isEqualTo(-1);
  }

  @Test
  void withSuspicionSwitchedOffNothingIsRecordedAndNobodyIsDeposed() throws Exception {
    Events e1 = new Events();
    Events e2 = new Events();
    ElectionConfig.Builder b = ElectionConfig.builder().layout(ZkLayout.of("c1", "docs")).settleTime(Duration.ofMillis(300))
        .retryInterval(Duration.ofMillis(200)).suspicionDelay(Duration.ZERO);
    IndexElection n1 = new IndexElection(client(), b.nodeId(1).address("127.0.0.1:9001").build(),
        new MemberInfo(1, "127.0.0.1:9001", Role.JOINING, 0, 9, 9, false, 0), e1);
    n1.start();
    elections.add(n1);
    CuratorFramework c2 = client();
    IndexElection n2 = new IndexElection(c2, b.nodeId(2).address("127.0.0.1:9002").build(),
        new MemberInfo(2, "127.0.0.1:9002", Role.JOINING, 0, 5, 5, false, 0), e2);
    n2.start();
    elections.add(n2);
    await().atMost(Duration.ofSeconds(20)).until(() -> n1.hold() == EpochHold.HELD && e2.following != null);
    n2.suspect(e2.following, "test");
    await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(5))
        .until(() -> n1.hold() == EpochHold.HELD && Suspicions.read(c2, ZkLayout.of("c1", "docs")).isEmpty());
  }

  @Test
  void theSuspicionDelayIsZeroOrWithinBounds() {
    ElectionConfig.Builder b = ElectionConfig.builder().layout(ZkLayout.of("c1", "docs")).nodeId(1).address("h:1");
    assertThat(b.build().suspicionDelay()).isEqualTo(Duration.ofMillis(500));
    assertThat(b.suspicionDelay(Duration.ZERO).build().failoverOnSuspicion()).isFalse();
    assertThat(b.suspicionDelay(Duration.ofMillis(200)).automatic(false).build().failoverOnSuspicion()).isFalse();
    assertThatThrownBy(() -> b.suspicionDelay(Duration.ofMillis(5)).build()).hasMessageStartingWith("suspicionDelay");
    assertThatThrownBy(() -> b.suspicionDelay(Duration.ofMillis(-1)).build()).hasMessageStartingWith("suspicionDelay");
    assertThatThrownBy(() -> b.suspicionDelay(Duration.ofHours(1)).build()).hasMessageStartingWith("suspicionDelay");
    assertThatThrownBy(() -> b.suspicionDelay(null).build()).hasMessageStartingWith("suspicionDelay");
  }

  /** A placement an election reads, changed by the test (the input; the election is what is tested). */
  static final class SettablePlacement implements PlacementSource {
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    private volatile Placement current = Placement.EMPTY;

    void set(Placement p) {
      current = p;
      listeners.forEach(Runnable::run);
    }

    @Override
    public Placement current() {
      return current;
    }

    @Override
    public void addListener(Runnable listener) {
      listeners.add(listener);
    }

    @Override
    public void removeListener(Runnable listener) {
      listeners.remove(listener);
    }
  }

  @Test
  void anElectionWaitingForABetterPlacedCandidateClaimsAsSoonAsThePlacementChangesNotAfterItsRetryInterval() throws Exception {
    // Node 1 is as up to date as node 2 and holds fewer primaries, but runs no election (a member
    // record only): node 2 waits for it. When the counts turn, node 2 must look again at once,
    // not after its retry interval of a minute.
    CuratorFramework c = client();
    MemberInfo one = new MemberInfo(1, "127.0.0.1:9001", Role.REPLICA, 0, 5, 5, false, 0);
    c.create().creatingParentContainersIfNeeded().withMode(org.apache.zookeeper.CreateMode.EPHEMERAL)
        .forPath(ZkLayout.of("c1", "docs").member(1), one.encode());
    SettablePlacement placement = new SettablePlacement();
    placement.set(Placement.of(List.of(HostRecord.of(1, java.util.Set.of()), HostRecord.of(2, java.util.Set.of("x", "y", "z")))));
    ElectionConfig config = ElectionConfig.builder().layout(ZkLayout.of("c1", "docs")).nodeId(2).address("127.0.0.1:9002")
        .settleTime(Duration.ofMillis(100)).retryInterval(Duration.ofMinutes(1)).build();
    Events events = new Events();
    IndexElection n2 = new IndexElection(client(), config, new MemberInfo(2, config.address(), Role.JOINING, 0, 5, 5, false, 0), events);
    n2.usePlacement(placement);
    n2.start();
    elections.add(n2);
    await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5)).until(() -> n2.hold() != EpochHold.HELD);

    placement.set(Placement.of(List.of(HostRecord.of(1, java.util.Set.of("x", "y", "z")), HostRecord.of(2, java.util.Set.of()))));
    await().atMost(Duration.ofSeconds(10)).until(() -> n2.hold() == EpochHold.HELD);
    assertThat(events.log).containsExactly("primary 1");
  }
}

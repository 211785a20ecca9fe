package io.nrtcluster.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.common.NodeLog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/** The hosts' records against a real ZooKeeper: published, seen by every host, gone with the session. */
@Timeout(60)
class HostDirectoryTest {
  private static final String CLUSTER = "c1";
  private static final Duration WAIT = Duration.ofSeconds(10);
  private TestingServer zk;
  private final List<AutoCloseable> open = new ArrayList<>();

  @BeforeEach
  void startZk() throws Exception {
    zk = new TestingServer(true);
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : open.reversed()) {
      c.close();
    }
    zk.close();
  }

  private ZooKeeperSession session() throws Exception {
    ZooKeeperSession s = ZooKeeperSession.builder().connectString(zk.getConnectString())
        .sessionTimeout(Duration.ofSeconds(4)).connectionTimeout(Duration.ofSeconds(5)).maxRetries(3).connect();
    open.add(s);
    return s;
  }

  private HostDirectory host(ZooKeeperSession s, int nodeId) throws Exception {
    HostDirectory d = new HostDirectory(s, CLUSTER, nodeId, new NodeLog(LoggerFactory.getLogger(HostDirectoryTest.class), "N" + nodeId, () -> -1));
    d.start(WAIT);
    open.add(d);
    return d;
  }

  @Test
  void everyHostSeesWhatEachLeadsAndADeadHostLeadsNothing() throws Exception {
    ZooKeeperSession s1 = session();
    HostDirectory h1 = host(s1, 1);
    HostDirectory h2 = host(session(), 2);
    AtomicInteger changes = new AtomicInteger();
    h2.addListener(changes::incrementAndGet);
    assertThat(h1.current().primariesOf(1)).as("its own record at once").isEmpty();
    await().atMost(WAIT).until(() -> h1.current().hosts().equals(Set.of(1, 2)) && h2.current().hosts().equals(Set.of(1, 2)));

    h1.lead(Set.of("a", "b"));
    assertThat(h1.current().primariesOf(1)).as("its own entry changes without waiting for ZooKeeper").containsExactly("a", "b");
    await().atMost(WAIT).until(() -> h2.current().count(1) == 2);
    assertThat(changes.get()).isPositive();
    assertThat(ClusterView.placement(session(), CLUSTER).primariesByHost())
        .isEqualTo(Map.of(1, Set.of("a", "b"), 2, Set.of()));

    int before = changes.get();
    h1.lead(Set.of("b", "a"));
    assertThat(h1.published()).isEqualTo(HostRecord.of(1, Set.of("a", "b")));

    // The host's session ends (a halt, a crash past the session timeout): its record goes with it.
    s1.close();
    await().atMost(WAIT).until(() -> h2.current().hosts().equals(Set.of(2)));
    assertThat(changes.get()).isGreaterThan(before);
    assertThat(h2.current().count(1)).isZero();
  }

  @Test
  void anIndexNamedHostsLivesBesideTheHostsAndIsListedAsAnIndex() throws Exception {
    ZooKeeperSession s = session();
    host(s, 1).lead(Set.of("hosts"));
    ElectionConfig config = ElectionConfig.builder().layout(ZkLayout.of(CLUSTER, "hosts")).nodeId(1).address("127.0.0.1:9001")
        .settleTime(Duration.ofMillis(100)).retryInterval(Duration.ofMillis(100)).build();
    IndexElection e = new IndexElection(s, config, new MemberInfo(1, config.address(), Role.JOINING, 0, 0, 0, false, 0),
        new IndexElectionTest.Events());
    e.start();
    open.add(e);
    await().atMost(WAIT).until(() -> e.hold() == EpochHold.HELD);
    assertThat(ClusterView.indexes(s, CLUSTER)).contains(List.of("hosts"));
    assertThat(ClusterView.members(s, ZkLayout.of(CLUSTER, "hosts"))).extracting(MemberInfo::nodeId).containsExactly(1);
    assertThat(ClusterView.placement(s, CLUSTER).primariesOf(1)).containsExactly("hosts");
  }
}

package io.nrtcluster.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Curator keeps its own "connected" flag beside the ZooKeeper handle and changes it only on the
 * handle's connection events. A session that expires while connected (ZooKeeper's injected expiry,
 * or Curator's own after a long suspension) resets the handle from inside the old handle's event
 * thread; if the new handle connects before that thread finishes, the flag ends false on a
 * connected client and no later event sets it again (CURATOR-639; a full CI run saw an expired
 * primary's client fail every operation with ConnectionLoss for 45 s while ZooKeeper served the
 * other node). That race cannot be ordered from outside Curator (its handle monitor serialises the
 * two threads up to the last few instructions), so this test makes the same wrong flag with one
 * connection event the handle never had: a {@code Disconnected} queued on a connected handle.
 */
@Timeout(120)
class WrongConnectedFlagTest {
  private static final Duration SESSION = Duration.ofSeconds(30);
  private TestingServer zk;
  private final List<AutoCloseable> open = new ArrayList<>();

  @BeforeEach
  void startZk() throws Exception {
    zk = new TestingServer(true);
  }

  @AfterEach
  void stop() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
    zk.close();
  }

  private ZooKeeperSession session() throws Exception {
    ZooKeeperSession s = ZooKeeperSession.builder().connectString(zk.getConnectString())
        .sessionTimeout(SESSION).connectionTimeout(Duration.ofSeconds(2)).maxRetries(3).connect();
    open.add(s);
    return s;
  }

  private IndexElection join(ZooKeeperSession s, int nodeId, long version, IndexElectionTest.Events events) throws Exception {
    ElectionConfig config = ElectionConfig.builder().layout(ZkLayout.of("c1", "docs")).nodeId(nodeId)
        .address("127.0.0.1:" + (9000 + nodeId)).settleTime(Duration.ofMillis(300)).retryInterval(Duration.ofMillis(200)).build();
    IndexElection e = new IndexElection(s.curator(), config,
        new MemberInfo(nodeId, config.address(), Role.JOINING, 0, version, version, false, 0), events);
    e.start();
    open.add(e::close);
    return e;
  }

  @Test
  void aPrimaryWhoseClientWronglyThinksItIsDisconnectedLeadsAgainInTheSameSession() throws Exception {
    ZooKeeperSession s1 = session();
    IndexElectionTest.Events e1 = new IndexElectionTest.Events();
    IndexElectionTest.Events e2 = new IndexElectionTest.Events();
    IndexElection n1 = join(s1, 1, 9, e1);
    IndexElection n2 = join(session(), 2, 3, e2);
    await().atMost(Duration.ofSeconds(20)).until(() -> n1.hold() == EpochHold.HELD && e2.following != null);
    ZooKeeper handle = s1.curator().getZookeeperClient().getZooKeeper();
    long sessionId = handle.getSessionId();

    handle.getTestable().queueEvent(new WatchedEvent(EventType.None, KeeperState.Disconnected, null));
    await().atMost(Duration.ofSeconds(10)).until(() -> e1.log.contains("fenced"));
    assertThat(handle.getState().isConnected()).as("the handle itself never lost its connection").isTrue();

    await("the flag agrees with the handle again well within the session timeout").atMost(SESSION.dividedBy(3))
        .until(() -> s1.curator().getZookeeperClient().isConnected());
    await().atMost(Duration.ofSeconds(10)).until(() -> e1.log.contains("unfenced") && n1.hold() == EpochHold.HELD);
    assertThat(s1.curator().getZookeeperClient().getZooKeeper().getSessionId()).as("the same session").isEqualTo(sessionId);
    assertThat(n1.epoch()).as("the same epoch: nobody was elected meanwhile").isEqualTo(1);
    assertThat(n2.hold()).isEqualTo(EpochHold.NONE);
    n1.publishVersion(20);
  }
}

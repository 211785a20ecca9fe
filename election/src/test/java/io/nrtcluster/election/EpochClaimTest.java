package io.nrtcluster.election;

import static org.assertj.core.api.Assertions.assertThat;

import io.nrtcluster.common.NodeLog;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/**
 * Two survivors that both decided to depose the same suspected primary: the first claim wins, and
 * the second, decided on the primary znode it read before that claim, must not depose the winner,
 * even though the winner's new znode has the data version the second one read (a re-created znode
 * starts at 0 again). Seen in the scale benchmark: 35 simultaneous elections, several won and then
 * lost at once, one index claimed five times.
 */
@Timeout(60)
class EpochClaimTest {
  private final ZkLayout layout = ZkLayout.of("c1", "docs");
  private TestingServer zk;
  private CuratorFramework dead;
  private CuratorFramework a;
  private CuratorFramework b;

  @BeforeEach
  void start() throws Exception {
    zk = new TestingServer(true);
    dead = connect();
    a = connect();
    b = connect();
  }

  private CuratorFramework connect() throws InterruptedException {
    CuratorFramework c = TestZkClients.builder(zk.getConnectString()).build();
    c.start();
    c.blockUntilConnected();
    return c;
  }

  @AfterEach
  void stop() throws Exception {
    b.close();
    a.close();
    dead.close();
    zk.close();
  }

  private EpochClaim claimer(CuratorFramework c, int nodeId) {
    ElectionConfig config = ElectionConfig.builder().layout(layout).nodeId(nodeId).address("127.0.0.1:" + (7000 + nodeId)).build();
    return new EpochClaim(c, config, new NodeLog(LoggerFactory.getLogger(EpochClaimTest.class), "N" + nodeId, () -> -1));
  }

  @Test
  void aStaleDepositionDoesNotDeposeTheSuccessorThatClaimedFirst() throws Exception {
    PrimaryInfo suspected = new PrimaryInfo(3, "127.0.0.1:7003", 1);
    dead.create().creatingParentsIfNeeded().forPath(layout.epoch(), FencedVersionWriter.bytes(1));
    dead.create().withMode(CreateMode.EPHEMERAL).forPath(layout.primary(), suspected.encode());
    Stat read = b.checkExists().forPath(layout.primary());
    List<MemberInfo> members = List.of();

    EpochClaim.Won first = claimer(a, 1).claim(members, suspected, a.checkExists().forPath(layout.primary()).getVersion(), -1);
    assertThat(first).isNotNull();
    assertThat(first.gen()).isEqualTo(2);
    Stat now = b.checkExists().forPath(layout.primary());
    assertThat(now.getVersion()).as("the winner's new znode has the version read before it").isEqualTo(read.getVersion());

    EpochClaim.Won second = claimer(b, 2).claim(members, suspected, read.getVersion(), -1);
    assertThat(second).as("decided on the suspected primary, which is gone").isNull();
    assertThat(PrimaryInfo.decode(b.getData().forPath(layout.primary())).nodeId()).isEqualTo(1);
    assertThat(FencedVersionWriter.parse(b.getData().forPath(layout.epoch()))).isEqualTo(2);
  }

  @Test
  void aDepositionOfTheCurrentPrimaryWins() throws Exception {
    PrimaryInfo suspected = new PrimaryInfo(3, "127.0.0.1:7003", 4);
    dead.create().creatingParentsIfNeeded().forPath(layout.epoch(), FencedVersionWriter.bytes(4));
    dead.create().withMode(CreateMode.EPHEMERAL).forPath(layout.primary(), suspected.encode());
    int version = a.checkExists().forPath(layout.primary()).getVersion();
    EpochClaim.Won won = claimer(a, 1).claim(List.of(), suspected, version, -1);
    assertThat(won).isNotNull();
    assertThat(won.gen()).isEqualTo(5);
    assertThat(PrimaryInfo.decode(b.getData().forPath(layout.primary())).nodeId()).isEqualTo(1);
  }
}

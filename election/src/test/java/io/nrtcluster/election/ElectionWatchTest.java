package io.nrtcluster.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What wakes the election, on a real ZooKeeper. The cache delivers events in order, so once a later
 * event that must wake it has, every earlier event has been seen: the counts are exact.
 */
@Timeout(60)
class ElectionWatchTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  private final ZkLayout layout = ZkLayout.of("c", "i");
  private TestingServer zk;
  private CuratorFramework client;
  private ElectionWatch watch;
  private final AtomicInteger wakeUps = new AtomicInteger();

  @BeforeEach
  void start() throws Exception {
    zk = new TestingServer(true);
    client = TestZkClients.builder(zk.getConnectString()).build();
    client.start();
    client.create().creatingParentsIfNeeded().forPath(layout.indexPath());
    watch = new ElectionWatch(client, layout, wakeUps::incrementAndGet, (c, state) -> { });
    watch.start();
    expect(1); // the index znode, as the cache first loads it
  }

  /** Waits until the election was woken {@code n} times, then checks it was not woken more often. */
  private void expect(int n) {
    await().atMost(WAIT).until(() -> wakeUps.get() >= n);
    assertThat(wakeUps.get()).isEqualTo(n);
  }

  @AfterEach
  void stop() throws Exception {
    watch.close();
    client.close();
    zk.close();
  }

  @Test
  void progressChangesWakeTheElectionOnlyWhileThereIsNoPrimary() throws Exception {
    client.create().forPath(layout.members());
    client.create().forPath(layout.member(1), new byte[] {1});
    client.create().forPath(layout.maxVersion(), new byte[] {1});
    expect(4);
    client.setData().forPath(layout.member(1), new byte[] {2});
    client.setData().forPath(layout.maxVersion(), new byte[] {2});
    expect(6);

    client.create().withMode(CreateMode.EPHEMERAL).forPath(layout.primary(), new byte[] {1});
    expect(7);
    client.setData().forPath(layout.member(1), new byte[] {3});
    client.setData().forPath(layout.maxVersion(), new byte[] {3});
    // A change that must wake it: once it has, the two progress changes before it were seen too.
    client.setData().forPath(layout.primary(), new byte[] {2});
    expect(8);

    // Membership itself always counts: a member joining or leaving.
    // One at a time: a create and a delete in quick succession can reach the cache as one change.
    client.create().forPath(layout.member(2), new byte[] {1});
    expect(9);
    client.delete().forPath(layout.member(2));
    expect(10);

    client.delete().forPath(layout.primary());
    client.setData().forPath(layout.member(1), new byte[] {4});
    expect(12);
  }
}

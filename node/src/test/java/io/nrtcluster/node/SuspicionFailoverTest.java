package io.nrtcluster.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.common.NotPrimaryException;
import io.nrtcluster.election.Role;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Failover on the replicas' evidence ({@link HostConfig#suspicionDelay}), end to end: real nodes,
 * real ZooKeeper, real Netty on loopback. Every scenario gives the sessions a long timeout (30 s),
 * so a failover that waited for a session to expire would not happen within the waits; each
 * asserts an order of events, never a time.
 */
@Timeout(180)
class SuspicionFailoverTest {
  private static final Duration SESSION = Duration.ofSeconds(30);

  @TempDir Path dir;

  /** Three nodes, N1 primary, sessions of 30 s, suspicion as configured by {@code delay}. */
  private ClusterHarness cluster(long seed, Duration delay) throws Exception {
    ClusterHarness c = new ClusterHarness(dir, seed, 3).sessionTimeout(SESSION);
    for (int i = 0; i < 3; i++) {
      c.configure(i, b -> b.suspicionDelay(delay).heartbeatInterval(Duration.ofMillis(delay.isZero() ? 100 : 50)));
    }
    return c;
  }

  @Test
  void aPrimaryThatDiesWhileItsSessionLivesIsReplacedBeforeTheSessionEnds() throws Exception {
    long seed = FailoverTest.seed();
    try (ClusterHarness c = cluster(seed, Duration.ofMillis(300)).startWithFirstAsPrimary()) {
      ClusterNode primary = c.node(0);
      c.addDocs(primary, 50);
      long v = primary.refresh("p1");
      c.awaitAllAt(v);
      c.awaitInSync();
      long oldGen = primary.primaryGen();
      // An ephemeral znode of the primary's session: it exists exactly as long as that session does.
      CuratorFramework oldSession = c.host(0).zooKeeper().curator();
      oldSession.create().withMode(CreateMode.EPHEMERAL).forPath("/alive-n1");

      c.crashKeepingSession(0);
      int np = c.awaitPrimary();
      ClusterNode next = c.node(np);
      assertThat(next.primaryGen()).as("seed %d", seed).isGreaterThan(oldGen);
      c.addDocs(next, 5);
      long v2 = next.refresh("p2");
      CuratorFramework newSession = c.host(np).zooKeeper().curator();
      assertThat(newSession.checkExists().forPath("/alive-n1"))
          .as("seed %d: the new primary acknowledged version %d while the old primary's session still lived", seed, v2)
          .isNotNull();
      assertThat(v2).as("no version is reused").isGreaterThan(v);
      c.awaitAllAt(v2);
      assertThat(ClusterHarness.count(c.node(3 - np))).isEqualTo(55);
      await("seed " + seed + ": suspicions of the old epoch withdrawn").atMost(ClusterHarness.TIMEOUT)
          .until(() -> c.node(1).suspectedEpoch() == -1 && c.node(2).suspectedEpoch() == -1);
    }
  }

  @Test
  void aReplicaCutOffFromAHealthyPrimaryAloneDoesNotCauseAFailover() throws Exception {
    long seed = FailoverTest.seed();
    try (ClusterHarness c = cluster(seed, Duration.ofMillis(300)).startWithFirstAsPrimary()) {
      ClusterNode primary = c.node(0);
      c.addDocs(primary, 20);
      long v = primary.refresh();
      c.awaitAllAt(v);
      long gen = primary.primaryGen();

      // N3 loses every replication link (its transport closes); its ZooKeeper session stays.
      c.host(2).transport().close();
      await("seed " + seed + ": N3 records its suspicion").atMost(ClusterHarness.TIMEOUT)
          .until(() -> c.node(2).suspectedEpoch() == gen);
      await("seed " + seed + ": one suspicion of two voters deposes nobody").during(Duration.ofSeconds(2))
          .atMost(Duration.ofSeconds(10))
          .until(() -> primary.isWritablePrimary() && primary.primaryGen() == gen && c.node(1).role() == Role.REPLICA
              && c.node(1).suspectedEpoch() == -1);
      c.addDocs(primary, 5);
      long v2 = primary.refresh();
      await().atMost(ClusterHarness.TIMEOUT).until(() -> c.node(1).searchingVersion() >= v2);
      assertThat(primary.primaryGen()).isEqualTo(gen);
    }
  }

  @Test
  void aPrimaryCutOffFromAllItsReplicasButNotFromZooKeeperIsReplacedAndFenced() throws Exception {
    long seed = FailoverTest.seed();
    try (ClusterHarness c = cluster(seed, Duration.ofMillis(300)).startWithFirstAsPrimary()) {
      ClusterNode old = c.node(0);
      c.addDocs(old, 30);
      long v = old.refresh();
      c.awaitAllAt(v);
      long oldGen = old.primaryGen();

      // Its replication port and links close; its election and ZooKeeper session carry on.
      c.host(0).transport().close();
      // Until it is deposed it still leads (nobody else does): its refreshes publish. After that,
      // every attempt fails, and none of them may reuse a version the new primary serves.
      long lastPublished = v;
      List<Long> refused = new ArrayList<>();
      long deadline = System.nanoTime() + ClusterHarness.TIMEOUT.toNanos();
      while (refused.isEmpty() && System.nanoTime() < deadline) {
        try {
          old.addDocument(c.doc(100_000 + (int) lastPublished));
          lastPublished = old.refresh();
        } catch (NotPrimaryException e) {
          refused.add(lastPublished);
        }
      }
      assertThat(refused).as("seed %d: the cut-off primary was never fenced", seed).isNotEmpty();
      int np = awaitOtherPrimary(c, 0);
      ClusterNode next = c.node(np);
      assertThat(next.primaryGen()).isGreaterThan(oldGen);
      assertThat(c.host(0).zooKeeper().curator().getZookeeperClient().isConnected())
          .as("the deposed primary kept its ZooKeeper session").isTrue();

      await("seed " + seed + ": the deposed primary steps down").atMost(ClusterHarness.TIMEOUT)
          .until(() -> old.role() == Role.REPLICA);
      assertThatThrownBy(() -> old.addDocument(c.doc(1))).isInstanceOf(NotPrimaryException.class);
      assertThatThrownBy(old::refresh).isInstanceOf(NotPrimaryException.class);
      long published = lastPublished;
      assertThatThrownBy(() -> old.election().publishVersion(published + 1_000)).isInstanceOf(NotPrimaryException.class);

      c.addDocs(next, 5);
      long v2 = next.refresh();
      assertThat(v2).as("seed %d: above every version the old primary published", seed).isGreaterThan(lastPublished);
      int other = 3 - np;
      await().atMost(ClusterHarness.TIMEOUT).until(() -> c.node(other).searchingVersion() >= v2);
      assertThat(ClusterHarness.count(c.node(other))).as("seed %d: what the old primary never replicated is gone", seed)
          .isEqualTo(35);
    }
  }

  /** The single writable primary among the nodes other than {@code excluded} (bounded wait). */
  private static int awaitOtherPrimary(ClusterHarness c, int excluded) {
    int[] found = {-1};
    await("a primary other than N" + (excluded + 1)).atMost(ClusterHarness.TIMEOUT).until(() -> {
      for (int i = 0; i < c.size(); i++) {
        if (i != excluded && c.node(i) != null && c.node(i).isWritablePrimary()) {
          found[0] = i;
          return true;
        }
      }
      return false;
    });
    return found[0];
  }
}

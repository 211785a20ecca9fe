package io.nrtcluster.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.common.AdminException;
import io.nrtcluster.common.ClusterMismatchException;
import io.nrtcluster.common.ConnectionException;
import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.NotPrimaryException;
import io.nrtcluster.election.ClusterView;
import io.nrtcluster.election.CommandAck;
import io.nrtcluster.election.Role;
import io.nrtcluster.election.ZkLayout;
import io.nrtcluster.transport.FaultInjection;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(180)
class PromotionTest {
  @TempDir Path dir;

  private static ClusterNode writablePrimary(ClusterHarness c, int nodes) {
    for (int i = 0; i < nodes; i++) {
      ClusterNode n = c.node(i);
      if (n != null && n.isWritablePrimary()) {
        return n;
      }
    }
    return null;
  }

  @Test
  void gracefulPromotionUnderContinuousIndexingLosesNoAcknowledgedWrite() throws Exception {
    long seed = FailoverTest.seed();
    try (ClusterHarness c = new ClusterHarness(dir, seed, 3, List.of(ClusterHarness.INDEX)).startAll();
        ClusterAdmin admin = ClusterAdmin.connect(c.zk, Duration.ofSeconds(10))) {
      int p = c.awaitPrimary();
      int target = (p + 1) % 3;
      Set<Integer> acked = ConcurrentHashMap.newKeySet();
      AtomicLong rejected = new AtomicLong();
      AtomicBoolean running = new AtomicBoolean(true);
      Thread writer = new Thread(() -> {
        int id = 0;
        while (running.get()) {
          ClusterNode primary = writablePrimary(c, 3);
          if (primary == null) {
            rejected.incrementAndGet();
            Thread.onSpinWait();
            continue;
          }
          try {
            primary.addDocument(c.doc(id));
            acked.add(id);
            id++;
            if (id % 25 == 0) {
              primary.refresh();
            }
          } catch (NotPrimaryException e) {
            rejected.incrementAndGet();
          } catch (IOException e) {
            throw new IllegalStateException(e);
          }
        }
      });
      writer.start();
      await().atMost(Duration.ofSeconds(20)).until(() -> acked.size() > 500);

      IndexStatus after = admin.promote(ClusterHarness.CLUSTER, ClusterHarness.INDEX, target + 1, Duration.ofSeconds(30));
      assertThat(after.primaryNodeId()).isEqualTo(target + 1);
      int before = acked.size();
      await().atMost(Duration.ofSeconds(20)).until(() -> acked.size() > before + 500);
      running.set(false);
      writer.join();

      ClusterNode newPrimary = c.node(target);
      assertThat(newPrimary.isWritablePrimary()).isTrue();
      c.assertAllSearchable(newPrimary, acked);
      await().atMost(Duration.ofSeconds(30)).until(() -> c.node(p).role() == Role.REPLICA && c.node(p).primaryGen() == newPrimary.primaryGen());
    }
  }

  @Test
  void aPromotionToAReplicaThatCannotCatchUpTimesOutAndLeavesThePrimaryInCharge() throws Exception {
    long seed = FailoverTest.seed();
    try (ClusterHarness c = new ClusterHarness(dir, seed, 2, List.of(ClusterHarness.INDEX));
        ClusterAdmin admin = ClusterAdmin.connect(c.zk, Duration.ofSeconds(10))) {
      c.start(0);
      assertThat(c.awaitPrimary()).isZero();
      // A link of a few KiB/s cannot carry a heartbeat within the suspicion delay behind 64 KiB chunks:
      // this slow replica would depose a healthy primary alone (it is its only voter). Not this test's subject.
      c.configure(1, b -> b.suspicionDelay(Duration.ZERO));
      c.transport(1, ClusterHarness.transport().toBuilder()
          .faults(FaultInjection.builder().throttleBytesPerSecond(16 * 1024).seed(seed).build()).build());
      c.start(1);
      // The subject is a replica of the in-sync set that cannot catch up. A fresh replica joins the set
      // once it installed the newest version; over 16 KiB/s its first copy can end after the refresh
      // below, and a node outside the set is REFUSED (ClusterAdmin.promote's rule), not timed out.
      assertThat(ClusterView.awaitInSync(c.host(0).zooKeeper(), ZkLayout.of(ClusterHarness.CLUSTER, ClusterHarness.INDEX),
          c.host(1).nodeId(), Duration.ofSeconds(30))).as("seed %d: node 2 joins the in-sync set", seed).isTrue();
      ClusterNode primary = c.node(0);
      c.addDocs(primary, 20_000);
      primary.refresh();

      assertThatThrownBy(() -> admin.promote(ClusterHarness.CLUSTER, ClusterHarness.INDEX, 2, Duration.ofSeconds(2)))
          .isInstanceOfSatisfying(AdminException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.PROMOTION_FAILED))
          .hasMessageContaining("did not reach version");
      await().atMost(Duration.ofSeconds(10)).until(primary::isWritablePrimary);
      assertThat(primary.role()).isEqualTo(Role.PRIMARY);
      primary.addDocument(c.doc(99_999));
      assertThat(admin.status(ClusterHarness.CLUSTER, ClusterHarness.INDEX).primaryNodeId()).isEqualTo(1);
    }
  }

  @Test
  void aForcedPromotionMakesTheChosenNodePrimaryWhenThePrimaryIsDead() throws Exception {
    long seed = FailoverTest.seed();
    try (ClusterHarness c = new ClusterHarness(dir, seed, 3, List.of(ClusterHarness.INDEX)).manualFailover();
        ClusterAdmin admin = ClusterAdmin.connect(c.zk, Duration.ofSeconds(10))) {
      c.start(0);
      c.start(1);
      await().atMost(Duration.ofSeconds(20)).until(() -> {
        try {
          return admin.status(ClusterHarness.CLUSTER, ClusterHarness.INDEX).members().size() == 2;
        } catch (ClusterMismatchException e) {
          return false;
        }
      });
      assertThat(admin.status(ClusterHarness.CLUSTER, ClusterHarness.INDEX).primaryNodeId()).as("manual: nobody claims").isEqualTo(-1);
      admin.forcePromote(ClusterHarness.CLUSTER, ClusterHarness.INDEX, 1, Duration.ofSeconds(30));
      assertThat(c.awaitPrimary()).isZero();
      c.transport(2, ClusterHarness.transport().toBuilder()
          .faults(FaultInjection.builder().throttleBytesPerSecond(32 * 1024).seed(seed).build()).build());
      c.start(2);
      ClusterNode primary = c.node(0);
      c.addDocs(primary, 100);
      c.awaitAllAt(primary.refresh());
      c.addDocs(primary, 10_000);
      long v2 = primary.refresh();
      await().atMost(Duration.ofSeconds(30)).until(() -> c.node(1).searchingVersion() >= v2);
      await().atMost(Duration.ofSeconds(30)).until(() -> admin.status(ClusterHarness.CLUSTER, ClusterHarness.INDEX)
          .members().stream().anyMatch(m -> m.nodeId() == 2 && m.searchingVersion() >= v2));
      assertThat(c.node(2).searchingVersion()).as("N3 is behind").isLessThan(v2);
      c.kill(0);
      await().atMost(Duration.ofSeconds(20)).until(() -> admin.status(ClusterHarness.CLUSTER, ClusterHarness.INDEX).primaryNodeId() == -1);

      ClusterAdmin.ForcePlan plan = admin.planForcedPromotion(ClusterHarness.CLUSTER, ClusterHarness.INDEX, 3);
      assertThat(plan.bestCandidate()).isEqualTo(2);
      assertThat(plan.versionsAhead()).isPositive();
      IndexStatus after = admin.forcePromote(ClusterHarness.CLUSTER, ClusterHarness.INDEX, 3, Duration.ofSeconds(30));
      assertThat(after.primaryNodeId()).isEqualTo(3);
      ClusterNode forced = c.node(2);
      await().atMost(Duration.ofSeconds(20)).until(forced::isWritablePrimary);
      long v3 = forced.refresh();
      await().atMost(Duration.ofSeconds(60)).until(() -> c.node(1).searchingVersion() >= v3);
      assertThat(ClusterHarness.count(c.node(1))).as("N2 ends with the forced primary's documents")
          .isEqualTo(ClusterHarness.count(forced));
    }
  }

  @Test
  void statusAgreesWithEveryNodeAndBadRequestsAreRefusedCleanly() throws Exception {
    long seed = FailoverTest.seed();
    try (ClusterHarness c = new ClusterHarness(dir, seed, 3, List.of(ClusterHarness.INDEX)).startAll();
        ClusterAdmin admin = ClusterAdmin.connect(c.zk, Duration.ofSeconds(10))) {
      int p = c.awaitPrimary();
      c.addDocs(c.node(p), 50);
      long v = c.node(p).refresh();
      c.awaitAllAt(v);
      Map<Integer, CommandAck> commits = admin.commit(ClusterHarness.CLUSTER, ClusterHarness.INDEX, null, Duration.ofSeconds(20));
      assertThat(commits).hasSize(3).allSatisfy((id, answer) -> {
        assertThat(answer.status()).as("node %d: %s", id, answer).isEqualTo(CommandAck.Status.OK);
        assertThat(answer.commitVersion()).isEqualTo(c.node(id - 1).status().commitVersion());
      });
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
        IndexStatus status = admin.status(ClusterHarness.CLUSTER, ClusterHarness.INDEX);
        assertThat(status.primaryNodeId()).isEqualTo(p + 1);
        assertThat(status.members()).hasSize(3);
        for (MemberStatus m : status.members()) {
          NodeStatus own = c.node(m.nodeId() - 1).status();
          assertThat(m.role()).isEqualTo(own.role());
          assertThat(m.primaryGen()).isEqualTo(own.primaryGen());
          assertThat(m.searchingVersion()).isEqualTo(own.searchingVersion());
          assertThat(m.commitVersion()).isEqualTo(own.commitVersion());
          assertThat(m.versionsBehind()).isZero();
        }
      });

      assertThatThrownBy(() -> admin.promote(ClusterHarness.CLUSTER, ClusterHarness.INDEX, 42, Duration.ofSeconds(5)))
          .isInstanceOfSatisfying(AdminException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNKNOWN_NODE));
      assertThatThrownBy(() -> admin.promote(ClusterHarness.CLUSTER, ClusterHarness.INDEX, p + 1, Duration.ofSeconds(5)))
          .isInstanceOfSatisfying(AdminException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.REFUSED));
      assertThatThrownBy(() -> admin.forcePromote(ClusterHarness.CLUSTER, ClusterHarness.INDEX, (p + 1) % 3 + 1, Duration.ofSeconds(5)))
          .isInstanceOfSatisfying(AdminException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.REFUSED));
      assertThatThrownBy(() -> admin.status("no-such-cluster", ClusterHarness.INDEX))
          .isInstanceOfSatisfying(ClusterMismatchException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.WRONG_CLUSTER));
      assertThatThrownBy(() -> admin.status(ClusterHarness.CLUSTER, "no-such-index"))
          .isInstanceOfSatisfying(ClusterMismatchException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNKNOWN_INDEX));
      assertThat(c.awaitPrimary()).as("nothing changed").isEqualTo(p);
    }
    assertThatThrownBy(() -> ClusterAdmin.connect("127.0.0.1:1", Duration.ofSeconds(1))).isInstanceOf(ConnectionException.class);
  }
}

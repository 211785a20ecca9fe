package io.nrtcluster.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nrtcluster.common.AdminException;
import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.election.InSyncRecord;
import io.nrtcluster.election.OutOfSyncReason;
import io.nrtcluster.election.Role;
import io.nrtcluster.transport.FaultInjection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator's levers and the in-sync set, on real nodes, ZooKeeper and Netty: {@link
 * ClusterAdmin#status} shows the set and why a replica left, a graceful promotion of a replica out of
 * the set is refused before anything changes, and a forced promotion's plan says the target is out
 * of the set (the forced promotion itself still goes ahead); the primary's meters count the set and
 * the departure; the primary a graceful promotion replaced stays electable.
 */
@Timeout(180)
class InSyncPromotionTest {
  @TempDir Path dir;

  @Test
  void aReplicaOutOfTheSetIsRefusedAGracefulPromotionAndAForcedPlanSaysItIsOut() throws Exception {
    long seed = FailoverTest.seed();
    System.out.println("InSyncPromotionTest seed " + seed);
    try (ClusterHarness c = new ClusterHarness(dir, seed, 3)) {
      for (int i = 0; i < 3; i++) {
        c.configure(i, b -> b.suspicionDelay(Duration.ofMillis(300)).heartbeatInterval(Duration.ofMillis(50)));
        c.transport(i, ClusterHarness.transport().toBuilder()
            .faults(FaultInjection.builder().switchable(true).seed(seed).build()).build());
      }
      SimpleMeterRegistry meters = new SimpleMeterRegistry();
      c.meters(0, meters);
      c.startWithFirstAsPrimary();
      String cluster = c.hostConfig(0).cluster();
      ClusterNode p = c.node(0);
      for (int id = 0; id < 10; id++) {
        p.addDocument(c.doc(id));
      }
      c.awaitAllAt(p.refresh());
      await("nodes 2 and 3 in sync").atMost(ClusterHarness.TIMEOUT).until(() -> {
        InSyncRecord r = p.inSyncSet();
        return r != null && r.members().keySet().equals(Set.of(2, 3));
      });

      // Node 3's frames wait 5 s: it lacks the next version and leaves the set before it is acknowledged.
      c.host(2).transport().updateLinkDelay(5_000);
      for (int id = 100; id < 105; id++) {
        p.addDocument(c.doc(id));
      }
      Acknowledgement a = p.refresh(Durability.REPLICATED);
      assertThat(a.replicas()).as("seed %d", seed).containsExactly(2);
      await("the primary's meters").atMost(ClusterHarness.TIMEOUT).untilAsserted(() -> {
        assertThat(meters.get(NrtMeters.IN_SYNC_REPLICAS).gauge().value()).isEqualTo(1.0);
        assertThat(meters.get(NrtMeters.IN_SYNC_DEPARTURES).tag(NrtMeters.TAG_REASON, "LAGGED").counter().count())
            .isEqualTo(1.0);
        assertThat(meters.get(NrtMeters.IN_SYNC_DEPARTURES).tag(NrtMeters.TAG_REASON, "RESTARTED").counter().count())
            .isZero();
      });

      try (ClusterAdmin admin = ClusterAdmin.connect(c.zooKeeper(), Duration.ofSeconds(10))) {
        IndexStatus before = admin.status(cluster, ClusterHarness.INDEX);
        assertThat(before.inSync()).isNotNull();
        assertThat(before.inSync().primary()).isEqualTo(1);
        assertThat(before.inSync().members()).containsOnlyKeys(2);
        InSyncRecord.Departure left = before.inSync().departed().get(3);
        assertThat(left.reason()).isEqualTo(OutOfSyncReason.LAGGED);
        assertThat(left.version()).isPositive().isLessThanOrEqualTo(a.version());
        assertThat(before.members()).filteredOn(m -> !m.inSync()).extracting(MemberStatus::nodeId).containsExactly(3);

        assertThatThrownBy(() -> admin.promote(cluster, ClusterHarness.INDEX, 3, Duration.ofSeconds(5)))
            .isInstanceOfSatisfying(AdminException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.REFUSED))
            .hasMessageContaining("not in the in-sync set").hasMessageContaining("primary 1, replicas [2]")
            .hasMessageContaining("--force").hasMessageContaining("acknowledged writes");
        IndexStatus after = admin.status(cluster, ClusterHarness.INDEX);
        assertThat(after.primaryNodeId()).as("nothing changed").isEqualTo(1);
        assertThat(after.primaryGen()).isEqualTo(before.primaryGen());
        assertThat(p.isWritablePrimary()).isTrue();

        // Both nodes of the set die: node 3 is never elected, only forced, and the plan says why that costs.
        c.kill(1);
        c.kill(0);
        c.host(2).transport().updateLinkDelay(0);
        await("seed " + seed + ": no primary, node 3 left alone").atMost(ClusterHarness.TIMEOUT).until(() -> {
          IndexStatus s = admin.status(cluster, ClusterHarness.INDEX);
          return s.primaryNodeId() < 0 && s.members().stream().map(MemberStatus::nodeId).toList().equals(List.of(3));
        });
        ClusterAdmin.ForcePlan plan = admin.planForcedPromotion(cluster, ClusterHarness.INDEX, 3);
        assertThat(plan.inSync()).isFalse();
        assertThat(plan.inSyncNodes()).containsExactly(1, 2);
        IndexStatus forced = admin.forcePromote(cluster, ClusterHarness.INDEX, 3, ClusterHarness.TIMEOUT);
        assertThat(forced.primaryNodeId()).isEqualTo(3);
        await().atMost(ClusterHarness.TIMEOUT).until(() -> c.node(2).role() == Role.PRIMARY);
      }
    }
  }

  /**
   * A graceful promotion's target dies right after it took over, before the old primary, now its
   * replica, could report an install: the old primary handed off with everything it acknowledged
   * committed (the same run of its index goes on) and searched by the target, so the target's first
   * in-sync record names it, and it is elected again. RebalancingTest's host death right after a
   * rebalancing hand-off to it left that index without a primary for minutes: the record named only
   * the dead target.
   */
  @Test
  void theOldPrimaryOfAGracefulPromotionIsElectedWhenItsTargetDiesAtOnce() throws Exception {
    long seed = FailoverTest.seed();
    System.out.println("InSyncPromotionTest seed " + seed);
    try (ClusterHarness c = new ClusterHarness(dir, seed, 2)) {
      for (int i = 0; i < 2; i++) {
        // No failover on suspicion: the old primary's cut link below must not depose its target.
        c.configure(i, b -> b.suspicionDelay(Duration.ZERO));
        c.transport(i, ClusterHarness.transport().toBuilder()
            .faults(FaultInjection.builder().switchable(true).seed(seed).build()).build());
      }
      c.startWithFirstAsPrimary();
      String cluster = c.hostConfig(0).cluster();
      ClusterNode old = c.node(0);
      for (int id = 0; id < 10; id++) {
        old.addDocument(c.doc(id));
      }
      c.awaitAllAt(old.refresh());
      await("node 2 in sync").atMost(ClusterHarness.TIMEOUT).until(() -> {
        InSyncRecord r = old.inSyncSet();
        return r != null && r.members().keySet().equals(Set.of(2));
      });
      // Once it stepped down (before it follows the target), the old primary's frames wait: it never
      // reports an install to the target, so it cannot join the target's set on its own.
      AtomicBoolean cut = new AtomicBoolean();
      old.addRoleListener((node, role, gen) -> {
        if (role == Role.REPLICA && cut.compareAndSet(false, true)) {
          c.host(0).transport().updateLinkDelay(FaultInjection.MAX_LINK_DELAY_MILLIS);
        }
      });

      try (ClusterAdmin admin = ClusterAdmin.connect(c.zooKeeper(), Duration.ofSeconds(10))) {
        assertThat(admin.promote(cluster, ClusterHarness.INDEX, 2, ClusterHarness.TIMEOUT).primaryNodeId()).isEqualTo(2);
      }
      ClusterNode target = c.node(1);
      InSyncRecord first = await("node 2's first in-sync record").atMost(ClusterHarness.TIMEOUT)
          .until(target::inSyncSet, r -> r != null && r.primary() == 2);
      assertThat(cut).as("the old primary stepped down").isTrue();
      c.kill(1);
      c.host(0).transport().updateLinkDelay(0);

      await("seed " + seed + ": node 1 leads again; node 2's first in-sync record: "
          + first.describe(System.currentTimeMillis())).atMost(Duration.ofSeconds(20)).until(old::isWritablePrimary);
      c.assertAllSearchable(old, List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9));
    }
  }
}

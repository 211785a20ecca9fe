package io.nrtcluster.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.election.Role;
import io.nrtcluster.transport.FaultInjection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A primary deposed while it is cut off from both replicas (ZooKeeper reachable) steps down without
 * waiting on them: real nodes, ZooKeeper and Netty on loopback; the cut is the transport's
 * "linkDelay" point holding every frame (and close) of every node for a minute, so the primary's
 * pushes never arrive, its replicas never release what it pushed them, and no connection closes. The primary's
 * close waits up to its {@code closeTimeout} (10 s) for copies in progress; a peer it cannot reach
 * copies nothing.
 */
@Timeout(120)
class CutOffStepDownTest {
  /**
   * From the cut: half the primary's 10 s close timeout; the replicas depose it 300 ms after the cut,
   * and a step-down that waits on nobody takes tens of milliseconds.
   */
  private static final Duration BOUND = Duration.ofSeconds(5);

  @TempDir Path dir;

  @Test
  void aPrimaryDeposedWhileCutOffFromItsReplicasRejoinsWithoutWaitingOnThem() throws Exception {
    long seed = FailoverTest.seed();
    System.out.println("CutOffStepDownTest seed " + seed);
    ClusterHarness c = new ClusterHarness(dir, seed, 3).sessionTimeout(Duration.ofSeconds(30));
    for (int i = 0; i < 3; i++) {
      c.configure(i, b -> b.suspicionDelay(Duration.ofMillis(300)).heartbeatInterval(Duration.ofMillis(50)));
      c.transport(i, ClusterHarness.transport().toBuilder()
          .faults(FaultInjection.builder().switchable(true).seed(seed).build()).build());
    }
    try (c) {
      c.startWithFirstAsPrimary();
      ClusterNode old = c.node(0);
      c.addDocs(old, 30);
      c.awaitAllAt(old.refresh());

      AtomicLong newPrimaryAt = new AtomicLong();
      AtomicLong rejoinedAt = new AtomicLong();
      for (int i = 1; i < 3; i++) {
        c.node(i).addRoleListener((n, role, gen) -> {
          if (role == Role.PRIMARY) {
            newPrimaryAt.compareAndSet(0, System.nanoTime());
          }
        });
      }
      old.addRoleListener((n, role, gen) -> {
        if (role == Role.REPLICA) {
          rejoinedAt.compareAndSet(0, System.nanoTime());
        }
      });

      long cutAt = System.nanoTime();
      cut(c, FaultInjection.MAX_LINK_DELAY_MILLIS);
      try {
        // Published before the replicas depose it (they wait 300 ms of silence): pushed to both, never received.
        c.addDocs(old, 5);
        old.refresh();
        await("seed " + seed + ": the deposed primary rejoins as a replica").atMost(Duration.ofSeconds(60))
            .until(() -> rejoinedAt.get() != 0 && newPrimaryAt.get() != 0);
        Duration rejoined = Duration.ofNanos(rejoinedAt.get() - cutAt);
        System.out.println("CutOffStepDownTest: the old primary rejoined as a replica " + rejoined + " after the cut (the new"
            + " primary took over " + Duration.ofNanos(newPrimaryAt.get() - cutAt) + " after it)");
        assertThat(rejoined).as("seed %d: the step-down waited on replicas it cannot reach", seed).isLessThan(BOUND);
        assertThat(old.state()).isEqualTo(IndexState.REPLICATING);
      } finally {
        cut(c, 0);
      }
    }
  }

  /**
   * Every node's frames, closes included, wait {@code millis}: held on both sides, as over a cut
   * link, so neither end learns that the other closed. (The replicas are cut off from each other
   * too; no transport is needed for the election, only ZooKeeper.)
   */
  private static void cut(ClusterHarness c, long millis) {
    for (int i = 0; i < c.size(); i++) {
      c.host(i).transport().updateLinkDelay(millis);
    }
  }
}

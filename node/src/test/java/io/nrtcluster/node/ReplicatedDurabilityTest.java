package io.nrtcluster.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.common.NotEnoughReplicasException;
import io.nrtcluster.election.InSyncRecord;
import io.nrtcluster.election.OutOfSyncReason;
import io.nrtcluster.election.Role;
import io.nrtcluster.transport.FaultInjection;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.TermQuery;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What each {@link Durability} keeps through a failover: real nodes, ZooKeeper (curator-test) and
 * Netty on loopback; links are cut with the transport's named fault point "linkDelay" (every frame a
 * node sends waits, closes included), processes die with {@link ClusterHarness#kill} (the ZooKeeper
 * session ends with the host, nothing is committed).
 */
@Timeout(180)
class ReplicatedDurabilityTest {
  @TempDir Path dir;

  private static ClusterHarness cluster(Path dir, long seed, int nodes) throws Exception {
    ClusterHarness c = new ClusterHarness(dir, seed, nodes);
    for (int i = 0; i < nodes; i++) {
      c.configure(i, b -> b.suspicionDelay(Duration.ofMillis(300)).heartbeatInterval(Duration.ofMillis(50)));
      c.transport(i, ClusterHarness.transport().toBuilder()
          .faults(FaultInjection.builder().switchable(true).seed(seed).build()).build());
    }
    return c;
  }

  private static void add(ClusterNode p, ClusterHarness c, int from, int n) throws IOException {
    for (int id = from; id < from + n; id++) {
      p.addDocument(c.doc(id));
    }
  }

  /** The ids among {@code ids} that {@code node} cannot find. */
  private static List<Integer> missing(ClusterNode node, List<Integer> ids) throws IOException {
    IndexSearcher s = node.acquireSearcher();
    try {
      List<Integer> out = new ArrayList<>();
      for (int id : ids) {
        if (s.count(new TermQuery(new Term("id", Integer.toString(id)))) == 0) {
          out.add(id);
        }
      }
      return out;
    } finally {
      node.releaseSearcher(s);
    }
  }

  private static List<Integer> range(int from, int n) {
    List<Integer> out = new ArrayList<>();
    for (int i = from; i < from + n; i++) {
      out.add(i);
    }
    return out;
  }

  /**
   * Starts the cluster with node 1 leading, ten documents searched everywhere, and every other node
   * in the in-sync set; returns the primary.
   */
  private static ClusterNode startInSync(ClusterHarness c) throws IOException {
    c.startWithFirstAsPrimary();
    ClusterNode p = c.node(0);
    add(p, c, 0, 10);
    c.awaitAllAt(p.refresh());
    Integer[] others = new Integer[c.size() - 1];
    for (int i = 1; i < c.size(); i++) {
      others[i - 1] = i + 1;
    }
    awaitInSync(p, others);
    return p;
  }

  private static void awaitInSync(ClusterNode primary, Integer... replicas) {
    await("in-sync set " + List.of(replicas)).atMost(ClusterHarness.TIMEOUT).until(() -> {
      InSyncRecord r = primary.inSyncSet();
      return r != null && r.members().keySet().equals(Set.of(replicas));
    });
  }

  @Test
  void aReplicatedAcknowledgementSurvivesAKillOfThePrimaryRightAfterIt() throws Exception {
    long seed = FailoverTest.seed();
    System.out.println("ReplicatedDurabilityTest seed " + seed);
    try (ClusterHarness c = cluster(dir, seed, 3)) {
      ClusterNode p = startInSync(c);

      add(p, c, 1000, 10);
      Acknowledgement a = p.refresh(Durability.REPLICATED);
      assertThat(a.durability()).isEqualTo(Durability.REPLICATED);
      assertThat(a.replicas()).as("seed %d", seed).containsExactlyInAnyOrder(2, 3);
      c.kill(0);

      ClusterNode next = c.node(c.awaitPrimary());
      assertThat(next.searchingVersion()).isGreaterThanOrEqualTo(a.version());
      assertThat(missing(next, range(1000, 10))).as("seed %d: acknowledged documents the new primary lacks", seed).isEmpty();
    }
  }

  /**
   * The difference: a LOCAL acknowledgement that no replica copied yet (the primary's link is cut)
   * is gone once the primary dies, exactly as documented; the same call asking for REPLICATED is
   * refused rather than acknowledged.
   */
  @Test
  void aLocalAcknowledgementNoReplicaCopiedIsLostWithThePrimaryAReplicatedOneIsRefused() throws Exception {
    long seed = FailoverTest.seed();
    System.out.println("ReplicatedDurabilityTest seed " + seed);
    try (ClusterHarness c = cluster(dir, seed, 3)) {
      ClusterNode p = startInSync(c);

      c.host(0).transport().updateLinkDelay(FaultInjection.MAX_LINK_DELAY_MILLIS);
      add(p, c, 2000, 5);
      Acknowledgement local = p.refresh(Durability.LOCAL);
      assertThat(local.replicas()).isEmpty();
      add(p, c, 3000, 5);
      assertThatThrownBy(() -> p.refresh(Durability.REPLICATED)).as("seed %d", seed)
          .isInstanceOf(io.nrtcluster.common.NrtClusterException.class);
      c.kill(0);

      ClusterNode next = c.node(c.awaitPrimary());
      assertThat(missing(next, range(2000, 5))).as("seed %d: LOCAL, never copied: lost with the primary", seed)
          .containsExactlyElementsOf(range(2000, 5));
      assertThat(missing(next, range(0, 10))).isEmpty();
    }
  }

  /**
   * The scenario: a writer acknowledges batches with REPLICATED every 100 ms on whichever node
   * leads, and the primary's links to both replicas are cut (ZooKeeper reachable by all) until the
   * replicas deposed it and another node leads. Every batch acknowledged, before, during or after the cut, is on the primary
   * that leads after the heal.
   */
  @Test
  void aPrimaryCutOffFromBothReplicasLosesNoReplicatedAcknowledgement() throws Exception {
    long seed = FailoverTest.seed();
    System.out.println("ReplicatedDurabilityTest seed " + seed);
    try (ClusterHarness c = cluster(dir, seed, 3)) {
      c.startWithFirstAsPrimary();
      ClusterNode first = c.node(0);
      c.awaitAllAt(first.refresh());
      awaitInSync(first, 2, 3);

      Set<Integer> acked = ConcurrentHashMap.newKeySet();
      AtomicInteger refused = new AtomicInteger();
      AtomicBoolean stop = new AtomicBoolean();
      Thread writer = new Thread(() -> {
        int next = 10_000;
        while (!stop.get()) {
          ClusterNode leader = null;
          for (ClusterNode n : c.nodes(ClusterHarness.INDEX)) {
            if (n != null && n.isWritablePrimary()) {
              leader = n;
            }
          }
          if (leader != null) {
            int from = next;
            next += 5;
            try {
              add(leader, c, from, 5);
              leader.refresh(Durability.REPLICATED);
              acked.addAll(range(from, 5));
            } catch (IOException | RuntimeException e) {
              refused.incrementAndGet();
            }
          }
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
      }, "writer");
      writer.start();
      try {
        await().atMost(ClusterHarness.TIMEOUT).until(() -> acked.size() >= 15);
        int before = acked.size();
        c.host(0).transport().updateLinkDelay(FaultInjection.MAX_LINK_DELAY_MILLIS);
        // The cut lasts until the replicas deposed the primary and another leads with them.
        await("seed " + seed + ": another node leads").atMost(ClusterHarness.TIMEOUT)
            .until(() -> c.node(1).isWritablePrimary() || c.node(2).isWritablePrimary());
        c.host(0).transport().updateLinkDelay(0);
        int during = acked.size() - before;
        await("a new leader acknowledges again").atMost(ClusterHarness.TIMEOUT).until(() -> acked.size() >= before + during + 15);
        System.out.println("ReplicatedDurabilityTest: " + acked.size() + " acknowledged (" + during + " while the primary was cut"
            + " off), " + refused.get() + " batches refused");
      } finally {
        stop.set(true);
        writer.join(TimeUnit.SECONDS.toMillis(30));
      }
      ClusterNode last = c.node(c.awaitPrimary());
      last.refresh(Durability.REPLICATED);
      List<Integer> all = new ArrayList<>(acked);
      all.sort(null);
      assertThat(missing(last, all)).as("seed %d: acknowledged documents lost", seed).isEmpty();
    }
  }

  /**
   * A slow replica leaves the set before the primary acknowledges what it lacks, comes back once it
   * caught up, and is never elected while it is out: with the primary and the in-sync replica dead,
   * it waits.
   */
  @Test
  void aSlowReplicaLeavesTheSetBeforeAnAcknowledgementAndIsNeverElectedWhileOut() throws Exception {
    long seed = FailoverTest.seed();
    System.out.println("ReplicatedDurabilityTest seed " + seed);
    try (ClusterHarness c = cluster(dir, seed, 3)) {
      ClusterNode p = startInSync(c);

      c.host(2).transport().updateLinkDelay(5_000);
      add(p, c, 100, 5);
      Acknowledgement a = p.refresh(Durability.REPLICATED);
      assertThat(a.replicas()).as("seed %d", seed).containsExactly(2);
      InSyncRecord set = p.inSyncSet();
      assertThat(set.members()).containsOnlyKeys(2);
      assertThat(set.departed().get(3).reason()).isEqualTo(OutOfSyncReason.LAGGED);
      assertThat(set.departed().get(3).version()).isLessThanOrEqualTo(a.version());

      c.host(2).transport().updateLinkDelay(0);
      add(p, c, 200, 5);
      p.refresh(Durability.REPLICATED);
      awaitInSync(p, 2, 3);

      c.host(2).transport().updateLinkDelay(FaultInjection.MAX_LINK_DELAY_MILLIS);
      add(p, c, 300, 5);
      assertThat(p.refresh(Durability.REPLICATED).replicas()).containsExactly(2);
      c.kill(1);
      c.kill(0);
      await("seed " + seed + ": node 3, out of the set, never leads").during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(6))
          .until(() -> c.node(2).role() != Role.PRIMARY);
    }
  }

  /**
   * Only a replicated acknowledgement removes a lagging replica: while the application asks for LOCAL
   * acknowledgements only, a replica that lags well past the in-sync timeout stays in the set, so the
   * elections are not narrowed. (RebalancingTest's writer acknowledges LOCAL only, yet replicas left
   * its sets for lag, and an index whose set then named only its dying primary elected nobody.)
   */
  @Test
  void aLaggingReplicaStaysInTheSetWhileOnlyLocalAcknowledgementsAreAsked() throws Exception {
    long seed = FailoverTest.seed();
    System.out.println("ReplicatedDurabilityTest seed " + seed);
    try (ClusterHarness c = cluster(dir, seed, 3)) {
      ClusterNode p = startInSync(c);

      // Node 3's frames wait 5 s: it reports no install of the next versions for five in-sync timeouts.
      c.host(2).transport().updateLinkDelay(5_000);
      add(p, c, 100, 5);
      p.refresh();
      add(p, c, 200, 5);
      p.refresh(Durability.LOCAL);
      await("seed " + seed + ": node 3 stays in the set").during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4))
          .until(() -> p.inSyncSet().members().keySet().equals(Set.of(2, 3)));
      c.host(2).transport().updateLinkDelay(0);
    }
  }

  @Test
  void tooFewInSyncReplicasIsATypedRefusalAndNothingIsAcknowledged() throws Exception {
    long seed = FailoverTest.seed();
    try (ClusterHarness c = cluster(dir, seed, 2)) {
      c.indexOpener((node, host, names) -> host.openIndex(IndexSettings.standard(ClusterHarness.INDEX).withMinInSyncReplicas(2)));
      c.startWithFirstAsPrimary();
      ClusterNode p = c.node(0);
      add(p, c, 0, 5);
      c.awaitAllAt(p.refresh());
      awaitInSync(p, 2);
      add(p, c, 10, 5);
      assertThatThrownBy(() -> p.refresh(Durability.REPLICATED))
          .isInstanceOfSatisfying(NotEnoughReplicasException.class, e -> {
            assertThat(e.required()).isEqualTo(2);
            assertThat(e.replicas()).hasSizeLessThan(2);
          });
      assertThat(p.refresh(Durability.LOCAL).durability()).as("LOCAL still acknowledges").isEqualTo(Durability.LOCAL);
    }
  }

  /**
   * Every node that held a replicated acknowledgement loses its memory at once (all killed): what a
   * commit covered is kept, what only a refresh acknowledged is gone, as documented; and since every
   * node the in-sync set names is back in another incarnation, the election goes on as a
   * whole-cluster restart (the newest commit leads).
   */
  @Test
  void aWholeClusterCrashKeepsWhatAReplicatedCommitCoveredAndElectsTheNewestCommit() throws Exception {
    long seed = FailoverTest.seed();
    System.out.println("ReplicatedDurabilityTest seed " + seed);
    try (ClusterHarness c = cluster(dir, seed, 3)) {
      ClusterNode p = startInSync(c);
      add(p, c, 500, 5);
      Acknowledgement committed = p.commit(Durability.REPLICATED);
      assertThat(committed.replicas()).containsExactlyInAnyOrder(2, 3);
      add(p, c, 600, 5);
      p.refresh(Durability.REPLICATED);
      for (int i = 0; i < 3; i++) {
        c.kill(i);
      }
      for (int i = 0; i < 3; i++) {
        c.start(i);
      }
      ClusterNode next = c.node(c.awaitPrimary());
      assertThat(missing(next, range(500, 5))).as("seed %d: committed", seed).isEmpty();
      assertThat(missing(next, range(600, 5))).as("seed %d: held in memory only, by every node", seed)
          .containsExactlyElementsOf(range(600, 5));
    }
  }
}

package io.nrtcluster.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nrtcluster.election.RebalancePlan;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Placement and rebalancing end to end: real hosts, real ZooKeeper, real Netty on loopback, many
 * indexes per host. Primaries spread over the hosts after start, after a host dies and after it
 * returns, under continuous writes, and nothing acknowledged is lost in the moves; with rebalancing
 * off nothing moves by itself, and an operator's dry run changes nothing.
 */
@Timeout(300)
class RebalancingTest {
  private static final Duration SETTLE = Duration.ofSeconds(120);

  @TempDir Path dir;

  private static List<String> indexes(int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(String.format("i%02d", i));
    }
    return out;
  }

  /**
   * Writes to every index that has a writable primary, round after round: a few documents, then a
   * refresh on the same primary. A document counts as acknowledged once a replica on another host
   * searches the version that refresh returned, in the same generation: what the cluster keeps
   * whatever single host dies (the election picks the most up-to-date survivor; a primary halted
   * before any replica copied loses what it alone had, by design: applications replay it from
   * {@link ClusterNode#replayPosition()}). Graceful hand-offs lose nothing at all.
   */
  private static final class Writer implements AutoCloseable {
    /** A refresh not yet seen on another host. */
    private record Unconfirmed(String index, int primaryNode, long gen, long version, List<Integer> ids, int round) {}

    private final ClusterHarness c;
    private final Map<String, Set<Integer>> acked = new ConcurrentHashMap<>();
    private final Map<String, Integer> nextId = new HashMap<>();
    private final List<Unconfirmed> unconfirmed = new ArrayList<>();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong refused = new AtomicLong();
    private final Thread thread;
    private int round;
    private volatile Throwable failure;

    Writer(ClusterHarness c) {
      this.c = c;
      for (String index : c.indexes()) {
        acked.put(index, ConcurrentHashMap.newKeySet());
        nextId.put(index, 0);
      }
      thread = new Thread(this::run, "test-writer");
      thread.start();
    }

    private void run() {
      try {
        while (running.get()) {
          round++;
          confirm();
          for (String index : c.indexes()) {
            writeSome(index);
          }
          // Paces the load for a 2-core machine; nothing waits on it.
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
      } catch (Throwable t) {
        failure = t;
      }
    }

    private void confirm() {
      unconfirmed.removeIf(u -> {
        List<ClusterNode> nodes = c.nodes(u.index());
        for (int i = 0; i < nodes.size(); i++) {
          ClusterNode n = nodes.get(i);
          if (n != null && i + 1 != u.primaryNode() && n.primaryGen() == u.gen() && n.searchingVersion() >= u.version()) {
            acked.get(u.index()).addAll(u.ids());
            return true;
          }
        }
        // Never replicated in its generation (a failover or hand-off came first): not acknowledged.
        return round - u.round() > 200;
      });
    }

    private void writeSome(String index) {
      List<ClusterNode> nodes = c.nodes(index);
      int p = -1;
      for (int i = 0; i < nodes.size(); i++) {
        if (nodes.get(i) != null && nodes.get(i).isWritablePrimary()) {
          p = i;
        }
      }
      if (p < 0) {
        refused.incrementAndGet();
        return;
      }
      ClusterNode primary = nodes.get(p);
      List<Integer> ids = new ArrayList<>();
      try {
        long gen = primary.primaryGen();
        for (int k = 0; k < 5; k++) {
          int id = nextId.merge(index, 1, Integer::sum);
          primary.addDocument(c.doc(id));
          ids.add(id);
        }
        long version = primary.refresh();
        unconfirmed.add(new Unconfirmed(index, p + 1, gen, version, ids, round));
      } catch (IOException | RuntimeException e) {
        // Not the primary any more, closing, halted: not acknowledged.
        refused.incrementAndGet();
      }
    }

    int acked(String index) {
      return acked.get(index).size();
    }

    Set<Integer> ackedIds(String index) {
      return acked.get(index);
    }

    @Override
    public void close() throws InterruptedException {
      running.set(false);
      thread.join(TimeUnit.SECONDS.toMillis(30));
      assertThat(failure).as("the writer failed").isNull();
    }
  }

  private static double rebalanceHandoffs(List<MeterRegistry> registries) {
    return registries.stream().mapToDouble(r -> r.find(NrtMeters.REBALANCE_HANDOFFS).counters().stream()
        .mapToDouble(io.micrometer.core.instrument.Counter::count).sum()).sum();
  }

  @Test
  void primariesSpreadAfterStartAfterAHostDiesAndAfterItReturnsWithoutLosingAnAcknowledgedWrite() throws Exception {
    long seed = FailoverTest.seed();
    List<String> names = indexes(12);
    List<MeterRegistry> registries = List.of(new SimpleMeterRegistry(), new SimpleMeterRegistry(), new SimpleMeterRegistry());
    try (ClusterHarness c = new ClusterHarness(dir, seed, 3, names)) {
      c.configureAll(b -> b.rebalanceQuietPeriod(Duration.ofSeconds(1)).maxConcurrentHandoffs(2));
      for (int i = 0; i < 3; i++) {
        c.meters(i, registries.get(i));
      }
      c.startAll();
      Writer writer = new Writer(c);
      try {
        c.awaitPrimariesPerNode(List.of(4, 4, 4), SETTLE);

        c.kill(2);
        c.awaitPrimariesPerNode(List.of(6, 6, 0), SETTLE);
        Map<String, Integer> beforeReturn = new HashMap<>();
        names.forEach(i -> beforeReturn.put(i, writer.acked(i)));
        double movesBeforeReturn = rebalanceHandoffs(registries);

        c.start(2);
        c.awaitPrimariesPerNode(List.of(4, 4, 4), SETTLE);
        assertThat(rebalanceHandoffs(registries)).as("seed %d: the returning host got its primaries by hand-offs", seed)
            .isGreaterThanOrEqualTo(movesBeforeReturn + 4);
        // Writes go on after the moves: every index takes new ones from its new primary.
        await("seed " + seed + ": writes on every index after the return").atMost(SETTLE)
            .until(() -> names.stream().allMatch(i -> writer.acked(i) > beforeReturn.get(i) + 10));
      } finally {
        writer.close();
      }
      for (String index : names) {
        int p = c.awaitPrimary(index, ClusterHarness.TIMEOUT);
        assertThat(writer.acked(index)).as("seed %d: %s took writes", seed, index).isPositive();
        c.assertAllSearchable(c.node(p, index), writer.ackedIds(index));
      }
    }
  }

  @Test
  void withRebalancingOffNothingMovesAndADryRunChangesNothing() throws Exception {
    long seed = FailoverTest.seed();
    List<String> names = List.of("a", "b", "c");
    try (ClusterHarness c = new ClusterHarness(dir, seed, 3, names)) {
      c.configureAll(b -> b.rebalance(false).rebalanceQuietPeriod(Duration.ofMillis(500)));
      c.startWithFirstLeadingEveryIndex();
      try (ClusterAdmin admin = ClusterAdmin.connect(c.zooKeeper(), Duration.ofSeconds(10))) {
        RebalancePlan plan = await("seed " + seed + ": the replicas caught up").atMost(SETTLE)
            .until(() -> admin.rebalancePlan(ClusterHarness.CLUSTER), p -> p.moves().size() == 2);
        assertThat(plan.before()).isEqualTo(Map.of(1, 3, 2, 0, 3, 0));
        assertThat(plan.moves()).allMatch(m -> m.from() == 1);
        Map<String, Long> gens = new HashMap<>();
        names.forEach(i -> gens.put(i, c.node(0, i).primaryGen()));

        // Well past the quiet period: nothing moves by itself, and asking for the plan again and again moves nothing either.
        await("seed " + seed + ": nothing moves").during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10))
            .until(() -> c.writablePrimariesPerNode().equals(List.of(3, 0, 0))
                && admin.rebalancePlan(ClusterHarness.CLUSTER).moves().equals(plan.moves()));
        for (String index : names) {
          assertThat(c.node(0, index).primaryGen()).as("seed %d: %s kept its epoch", seed, index).isEqualTo(gens.get(index));
        }
        assertThat(admin.primariesPerNode(ClusterHarness.CLUSTER)).isEqualTo(Map.of(1, 3, 2, 0, 3, 0));

        RebalanceResult result = admin.rebalance(ClusterHarness.CLUSTER, Duration.ofSeconds(30));
        assertThat(result.outcomes()).as("seed %d: %s", seed, result).hasSize(2)
            .allMatch(o -> o.status() == RebalanceResult.Status.MOVED);
        c.awaitPrimariesPerNode(List.of(1, 1, 1), ClusterHarness.TIMEOUT);
        assertThat(admin.primariesPerNode(ClusterHarness.CLUSTER)).isEqualTo(Map.of(1, 1, 2, 1, 3, 1));
        assertThat(admin.rebalancePlan(ClusterHarness.CLUSTER).isEmpty()).isTrue();
      }
    }
  }
}

package io.nrtcluster.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nrtcluster.node.ClusterHarness;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code nrt rebalance} and the primaries per node of {@code nrt status}, against a real cluster. */
@Timeout(180)
class RebalanceCommandTest {
  private static final String CLUSTER = ClusterHarness.CLUSTER;
  @TempDir Path dir;

  @Test
  void theDryRunPrintsThePlanAndChangesNothingThenTheRebalanceEvensThePrimariesOut() throws Exception {
    List<String> indexes = List.of("a", "b", "c");
    // The hosts' own rebalancing off: the primaries stay on node 1 until the command moves them.
    try (ClusterHarness c = new ClusterHarness(dir, 42, 3, indexes).configureAll(b -> b.rebalance(false))
        .startWithFirstLeadingEveryIndex()) {
      String zk = c.zooKeeper();
      NrtRun dry = await("the replicas caught up").atMost(Duration.ofSeconds(60))
          .until(() -> NrtRun.nrt("rebalance", "--zk", zk, "--cluster", CLUSTER, "--dry-run"), r -> r.out().contains("2 move(s)"));
      assertThat(dry.exit()).as(dry.err()).isZero();
      assertThat(dry.out()).contains("primaries per node: node 1: 3, node 2: 0, node 3: 0")
          .contains("rebalance: dry run, nothing changed");
      assertThat(dry.out().lines().filter(l -> l.matches("\\s+[abc]\\s+1\\s+[23]"))).hasSize(2);
      Map<String, Long> gens = new HashMap<>();
      indexes.forEach(i -> gens.put(i, c.node(0, i).primaryGen()));
      assertThat(c.writablePrimariesPerNode()).isEqualTo(List.of(3, 0, 0));
      indexes.forEach(i -> assertThat(c.node(0, i).primaryGen()).as("%s kept its epoch", i).isEqualTo(gens.get(i)));

      NrtRun status = NrtRun.nrt("status", "--zk", zk, "--cluster", CLUSTER);
      assertThat(status.exit()).as(status.err()).isZero();
      assertThat(status.out()).contains("primaries per node: node 1: 3, node 2: 0, node 3: 0");
      NrtRun json = NrtRun.nrt("status", "--zk", zk, "--cluster", CLUSTER, "--json");
      JsonNode perNode = new ObjectMapper().readTree(json.out()).get("primariesPerNode");
      assertThat(perNode.get("1").asInt()).isEqualTo(3);
      assertThat(perNode.get("2").asInt()).isZero();

      NrtRun run = NrtRun.nrt("rebalance", "--zk", zk, "--cluster", CLUSTER, "--timeout", "30s");
      assertThat(run.exit()).as(run.out() + run.err()).isZero();
      assertThat(run.out()).contains("rebalance: 2 moved, 0 skipped, 0 failed")
          .contains("primaries per node: node 1: 1, node 2: 1, node 3: 1");
      c.awaitPrimariesPerNode(List.of(1, 1, 1), ClusterHarness.TIMEOUT);

      NrtRun again = NrtRun.nrt("rebalance", "--zk", zk, "--cluster", CLUSTER);
      assertThat(again.exit()).isZero();
      assertThat(again.out()).contains("rebalance: nothing to move");

      NrtRun unknown = NrtRun.nrt("rebalance", "--zk", zk, "--cluster", "nope", "--dry-run");
      assertThat(unknown.exit()).isEqualTo(4);
      assertThat(unknown.err().strip().lines()).hasSize(1);
    }
  }
}

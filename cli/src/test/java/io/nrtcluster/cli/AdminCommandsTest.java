package io.nrtcluster.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nrtcluster.node.ClusterHarness;
import io.nrtcluster.node.NodeStatus;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(120)
class AdminCommandsTest {
  private static final String CLUSTER = ClusterHarness.CLUSTER;
  @TempDir Path dir;
  private ClusterHarness cluster;
  private String zk;

  private static NrtRun nrt(String... args) {
    return NrtRun.nrt(args);
  }

  @BeforeEach
  void startCluster() throws Exception {
    cluster = new ClusterHarness(dir, 42, 3).startAll();
    zk = cluster.zooKeeper();
  }

  @AfterEach
  void stop() throws Exception {
    cluster.close();
  }

  @Test
  void statusJsonParsesAndAgreesWithEachNodesOwnStatus() throws Exception {
    int p = cluster.awaitPrimary();
    cluster.addDocs(20);
    cluster.awaitAllAt(cluster.refresh());
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      NrtRun run = nrt("status", "--zk", zk, "--cluster", CLUSTER, "--json");
      assertThat(run.exit()).as(run.err()).isZero();
      JsonNode json = new ObjectMapper().readTree(run.out());
      assertThat(json.get("cluster").asText()).isEqualTo(CLUSTER);
      JsonNode index = json.get("indexes").get(0);
      assertThat(index.get("index").asText()).isEqualTo("docs");
      assertThat(index.get("primaryNodeId").asInt()).isEqualTo(p + 1);
      assertThat(index.get("members")).hasSize(3);
      for (JsonNode m : index.get("members")) {
        NodeStatus own = cluster.node(m.get("nodeId").asInt() - 1).status();
        assertThat(m.get("role").asText()).isEqualTo(own.role().name());
        assertThat(m.get("primaryGen").asLong()).isEqualTo(own.primaryGen());
        assertThat(m.get("searchingVersion").asLong()).isEqualTo(own.searchingVersion());
        assertThat(m.get("commitVersion").asLong()).isEqualTo(own.commitVersion());
        assertThat(m.get("address").asText()).isEqualTo(own.address());
        assertThat(m.get("consecutiveCopyFailures").asLong()).as("caught up: no copy failing").isZero();
      }
    });
    NrtRun table = nrt("status", "--zk", zk, "--cluster", CLUSTER, "--index", "docs");
    assertThat(table.exit()).isZero();
    assertThat(table.out()).contains(CLUSTER + "/docs  primary: node " + (p + 1)).contains("copy failures");
  }

  @Test
  void promoteAndCommitWorkAndBadRequestsGiveOneLineErrorsAndStableExitCodes() throws Exception {
    int p = cluster.awaitPrimary();
    int target = (p + 1) % 3 + 1;
    // A replica joins the in-sync set once it installed the newest version (a graceful promotion takes no other).
    cluster.addDocs(5);
    cluster.awaitAllAt(cluster.refresh());
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      NrtRun run = nrt("status", "--zk", zk, "--cluster", CLUSTER, "--json");
      JsonNode members = new ObjectMapper().readTree(run.out()).get("indexes").get(0).get("members");
      for (JsonNode m : members) {
        assertThat(m.get("inSync").asBoolean()).as("node %s in sync", m.get("nodeId")).isTrue();
      }
    });
    NrtRun promote = nrt("promote", "--zk", zk, "--cluster", CLUSTER, "--index", "docs",
        "--node", Integer.toString(target), "--timeout", "30s");
    assertThat(promote.exit()).as(promote.err()).isZero();
    assertThat(promote.out()).contains("promote: node " + target + " is the primary of " + CLUSTER + "/docs");
    assertThat(cluster.awaitPrimary()).isEqualTo(target - 1);

    NrtRun commit = nrt("commit", "--zk", zk, "--cluster", CLUSTER, "--index", "docs");
    assertThat(commit.exit()).as(commit.err()).isZero();
    assertThat(commit.out().lines()).hasSize(3).allMatch(l -> l.matches("node \\d: ok \\d+"));

    NrtRun unknownNode = nrt("promote", "--zk", zk, "--cluster", CLUSTER, "--index", "docs", "--node", "9");
    assertThat(unknownNode.exit()).isEqualTo(4);
    assertThat(unknownNode.err().strip().lines()).hasSize(1).first().asString().contains("node 9 is not a live member");

    NrtRun already = nrt("promote", "--zk", zk, "--cluster", CLUSTER, "--index", "docs", "--node", Integer.toString(target));
    assertThat(already.exit()).isEqualTo(5);

    NrtRun wrongCluster = nrt("status", "--zk", zk, "--cluster", "nope");
    assertThat(wrongCluster.exit()).isEqualTo(4);
    assertThat(wrongCluster.err().strip().lines()).hasSize(1);

    NrtRun noZk = nrt("status", "--zk", "127.0.0.1:1", "--cluster", CLUSTER, "--zk-timeout", "1s");
    assertThat(noZk.exit()).isEqualTo(3);
    assertThat(noZk.err().strip().lines()).hasSize(1).first().asString().contains("unreachable");
  }
}

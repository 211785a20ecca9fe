package io.nrtcluster.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nrtcluster.node.ClusterNode;
import io.nrtcluster.node.HostConfig;
import io.nrtcluster.node.IndexSettings;
import io.nrtcluster.node.NodeStatus;
import io.nrtcluster.node.NrtHost;
import io.nrtcluster.transport.TransportConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.test.TestingServer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(120)
class AdminCommandsTest {
  @TempDir Path dir;
  private TestingServer zk;
  private final List<NrtHost> hosts = new ArrayList<>();

  private static NrtRun nrt(String... args) {
    return NrtRun.nrt(args);
  }

  @BeforeEach
  void startCluster() throws Exception {
    zk = new TestingServer(true);
    for (int i = 1; i <= 3; i++) {
      NrtHost h = NrtHost.start(HostConfig.builder().nodeId(i).cluster("ops").dataDir(dir.resolve("n" + i))
          .zooKeeper(zk.getConnectString()).sessionTimeout(Duration.ofSeconds(4)).electionSettle(Duration.ofMillis(300))
          .transport(TransportConfig.builder().ioThreads(2).requestThreads(8).build()).build());
      h.openIndex(IndexSettings.standard("docs"));
      hosts.add(h);
    }
  }

  @AfterEach
  void stop() throws Exception {
    for (NrtHost h : hosts) {
      h.close();
    }
    zk.close();
  }

  private int primaryIndex() {
    int[] found = {-1};
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      for (int i = 0; i < hosts.size(); i++) {
        if (hosts.get(i).index("docs").isWritablePrimary()) {
          found[0] = i;
          return true;
        }
      }
      return false;
    });
    return found[0];
  }

  @Test
  void statusJsonParsesAndAgreesWithEachNodesOwnStatus() throws Exception {
    int p = primaryIndex();
    ClusterNode primary = hosts.get(p).index("docs");
    for (int i = 0; i < 20; i++) {
      Document d = new Document();
      d.add(new StringField("id", "d" + i, Field.Store.YES));
      primary.addDocument(d);
    }
    long v = primary.refresh();
    for (NrtHost h : hosts) {
      await().atMost(Duration.ofSeconds(30)).until(() -> h.index("docs").searchingVersion() >= v);
    }
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      NrtRun run = nrt("status", "--zk", zk.getConnectString(), "--cluster", "ops", "--json");
      assertThat(run.exit()).as(run.err()).isZero();
      JsonNode json = new ObjectMapper().readTree(run.out());
      assertThat(json.get("cluster").asText()).isEqualTo("ops");
      JsonNode index = json.get("indexes").get(0);
      assertThat(index.get("index").asText()).isEqualTo("docs");
      assertThat(index.get("primaryNodeId").asInt()).isEqualTo(p + 1);
      assertThat(index.get("members")).hasSize(3);
      for (JsonNode m : index.get("members")) {
        NodeStatus own = hosts.get(m.get("nodeId").asInt() - 1).index("docs").status();
        assertThat(m.get("role").asText()).isEqualTo(own.role().name());
        assertThat(m.get("primaryGen").asLong()).isEqualTo(own.primaryGen());
        assertThat(m.get("searchingVersion").asLong()).isEqualTo(own.searchingVersion());
        assertThat(m.get("commitVersion").asLong()).isEqualTo(own.commitVersion());
        assertThat(m.get("address").asText()).isEqualTo(own.address());
      }
    });
    NrtRun table = nrt("status", "--zk", zk.getConnectString(), "--cluster", "ops", "--index", "docs");
    assertThat(table.exit()).isZero();
    assertThat(table.out()).contains("ops/docs  primary: node " + (p + 1));
  }

  @Test
  void promoteAndCommitWorkAndBadRequestsGiveOneLineErrorsAndStableExitCodes() {
    int p = primaryIndex();
    int target = (p + 1) % 3 + 1;
    NrtRun promote = nrt("promote", "--zk", zk.getConnectString(), "--cluster", "ops", "--index", "docs",
        "--node", Integer.toString(target), "--timeout", "30s");
    assertThat(promote.exit()).as(promote.err()).isZero();
    assertThat(promote.out()).contains("promote: node " + target + " is the primary of ops/docs");
    assertThat(primaryIndex()).isEqualTo(target - 1);

    NrtRun commit = nrt("commit", "--zk", zk.getConnectString(), "--cluster", "ops", "--index", "docs");
    assertThat(commit.exit()).as(commit.err()).isZero();
    assertThat(commit.out().lines()).hasSize(3).allMatch(l -> l.matches("node \\d: ok \\d+"));

    NrtRun unknownNode = nrt("promote", "--zk", zk.getConnectString(), "--cluster", "ops", "--index", "docs", "--node", "9");
    assertThat(unknownNode.exit()).isEqualTo(4);
    assertThat(unknownNode.err().strip().lines()).hasSize(1).first().asString().contains("node 9 is not a live member");

    NrtRun already = nrt("promote", "--zk", zk.getConnectString(), "--cluster", "ops", "--index", "docs", "--node", Integer.toString(target));
    assertThat(already.exit()).isEqualTo(5);

    NrtRun wrongCluster = nrt("status", "--zk", zk.getConnectString(), "--cluster", "nope");
    assertThat(wrongCluster.exit()).isEqualTo(4);
    assertThat(wrongCluster.err().strip().lines()).hasSize(1);

    NrtRun noZk = nrt("status", "--zk", "127.0.0.1:1", "--cluster", "ops", "--zk-timeout", "1s");
    assertThat(noZk.exit()).isEqualTo(3);
    assertThat(noZk.err().strip().lines()).hasSize(1).first().asString().contains("unreachable");
  }
}

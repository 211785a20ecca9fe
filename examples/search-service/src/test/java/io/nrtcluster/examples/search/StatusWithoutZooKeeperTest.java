package io.nrtcluster.examples.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 15, defect 4: a node's /status must answer from local state while ZooKeeper is unreachable,
 * which is exactly when an operator needs it (it used to wait out Curator's retries on a live
 * membership read).
 */
@Timeout(120)
class StatusWithoutZooKeeperTest {
  /** Far below the ZooKeeper connection timeout a live read would wait out. */
  private static final Duration STATUS_BOUND = Duration.ofSeconds(3);

  @TempDir Path dir;

  private static JsonNode docs(Http http, SearchNode n) {
    Http.Reply r = http.send(HttpRequest.newBuilder(n.httpUrl().resolve("/status")).timeout(STATUS_BOUND).GET().build());
    assertThat(r.status()).isEqualTo(200);
    return r.json().get("indexes").get("docs");
  }

  @Test
  void statusAnswersFromLocalStateWhileZooKeeperIsDown() throws Exception {
    try (TestingServer zk = new TestingServer(true);
        ServiceCluster cluster = new ServiceCluster(dir, zk.getConnectString(), b -> b);
        Http http = new Http()) {
      SearchNode first = cluster.start(1);
      await().atMost(Duration.ofSeconds(30)).until(() -> docs(http, first).get("writable").asBoolean());
      SearchNode second = cluster.start(2);
      List<SearchNode> nodes = List.of(first, second);
      await().atMost(Duration.ofSeconds(30)).until(() -> nodes.stream().allMatch(n -> docs(http, n).get("members").size() == 2));

      zk.stop();
      try {
        for (SearchNode n : nodes) {
          JsonNode status = docs(http, n);
          assertThat(status.get("members")).as("N%d's members, from its cache", n.nodeId()).hasSize(2);
          assertThat(status.get("searchingVersion").asLong()).isGreaterThanOrEqualTo(0);
        }
      } finally {
        zk.restart();
      }
    }
  }
}

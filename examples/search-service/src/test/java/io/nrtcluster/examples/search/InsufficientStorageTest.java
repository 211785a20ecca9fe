package io.nrtcluster.examples.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.nrtcluster.election.NotWritableReason;
import io.nrtcluster.election.Role;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A primary below its free-space floor (here a floor no disk reaches) answers writes with 507
 * Insufficient Storage naming the data directory, not a 500 or a 503 that invites endless retries;
 * searches and refreshes go on, and {@code /status} says it is not writable and why.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class InsufficientStorageTest {
  @TempDir Path dir;

  @Test
  void writesBelowTheFloorAre507AndSearchesGoOn() throws Exception {
    try (TestingServer zk = new TestingServer(true);
        ServiceCluster cluster = new ServiceCluster(dir, zk.getConnectString(), b -> b, h -> h.minFreeDiskBytes(1L << 60));
        Http http = new Http()) {
      SearchNode node = cluster.start(1);
      URI url = node.httpUrl();
      await().atMost(Duration.ofSeconds(60)).until(() -> node.index("docs").role() == Role.PRIMARY
          && node.index("docs").status().notWritable() != NotWritableReason.PROMOTING);
      Http.Reply r = http.post(url, "/indexes/docs/docs?refresh=true", Map.of("id", "a", "title", "full"));
      HttpApiErrorsTest.assertError(r, 507, "insufficient_storage", dir.resolve("n1").toString());
      assertThat(r.text()).contains("below the floor", "INSUFFICIENT_STORAGE");
      assertThat(http.get(url, "/indexes/docs/search?q=full").status()).isEqualTo(200);
      // /status agrees with the 507: not writable, and why.
      JsonNode docs = http.get(url, "/status").json().get("indexes").get("docs");
      assertThat(docs.get("role").asText()).isEqualTo("PRIMARY");
      assertThat(docs.get("writable").asBoolean()).isFalse();
      assertThat(docs.get("notWritable").asText()).isEqualTo("BELOW_DISK_FLOOR");
      await().atMost(Duration.ofSeconds(10)).until(() -> {
        JsonNode self = http.get(url, "/status").json().get("indexes").get("docs").get("members").get(0);
        return self != null && "BELOW_DISK_FLOOR".equals(self.path("notWritable").asText());
      });
    }
  }
}

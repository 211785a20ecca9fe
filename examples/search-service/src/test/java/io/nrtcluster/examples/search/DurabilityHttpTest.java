package io.nrtcluster.examples.search;

import static io.nrtcluster.examples.search.HttpApiErrorsTest.assertError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code refresh=true} writes with the service's default durability (replicated) and with {@code
 * durability=local}, on real nodes, ZooKeeper and sockets: a lone primary cannot acknowledge a
 * replicated write (a typed 503 naming required and holding replicas), does acknowledge a local one;
 * a bad value is a 400; once a replica joined the in-sync set the reply names it, also when the write
 * reached the replica and was forwarded; and {@code /status} shows the in-sync set.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DurabilityHttpTest {
  @TempDir
  Path dir;

  @Test
  void replicatedByDefaultRefusedAloneAcknowledgedWithAReplicaAlsoWhenForwarded() throws Exception {
    try (TestingServer zk = new TestingServer(true);
        ServiceCluster cluster = new ServiceCluster(dir, zk.getConnectString(), b -> b.refreshInterval(Duration.ofMillis(200)));
        Http http = new Http()) {
      SearchNode primary = cluster.start(1);
      await().atMost(Duration.ofSeconds(60)).until(() -> primary.index("docs").isWritablePrimary());

      // Alone: no replica can hold the version, so the default (replicated) is refused, typed.
      AtomicReference<Http.Reply> refused = new AtomicReference<>();
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
        Http.Reply r = http.post(primary.httpUrl(), "/indexes/docs/docs?refresh=true", Map.of("id", "a", "t", "alone"));
        assertThat(r.status()).as(r.text()).isEqualTo(503);
        refused.set(r);
      });
      assertError(refused.get(), 503, "not_enough_replicas", "1 in-sync replica(s) required");
      assertThat(refused.get().json().get("required").asInt()).isEqualTo(1);
      assertThat(refused.get().json().get("replicas")).isEmpty();
      assertThat(refused.get().json().get("version").asLong()).isPositive();
      assertThat(refused.get().header("Retry-After")).contains("1");

      // Local is acknowledged alone; the reply says what it guarantees.
      Http.Reply local = http.post(primary.httpUrl(), "/indexes/docs/docs?refresh=true&durability=local",
          Map.of("id", "a", "t", "alone"));
      assertThat(local.status()).as(local.text()).isEqualTo(200);
      assertThat(local.json().get("durability").asText()).isEqualTo("local");
      assertThat(local.json().get("replicas")).isEmpty();

      // A bad value is a 400, with or without a refresh; without one no acknowledgement is named.
      assertError(http.post(primary.httpUrl(), "/indexes/docs/docs?refresh=true&durability=sometimes", Map.of("id", "b")),
          400, "bad_request", "durability");
      assertError(http.post(primary.httpUrl(), "/indexes/docs/docs?durability=REPLICATED", Map.of("id", "b")),
          400, "bad_request", "replicated or local");
      Http.Reply unrefreshed = http.post(primary.httpUrl(), "/indexes/docs/docs?durability=local", Map.of("id", "b"));
      assertThat(unrefreshed.status()).as(unrefreshed.text()).isEqualTo(200);
      assertThat(unrefreshed.json().get("refreshed").asBoolean()).isFalse();
      assertThat(unrefreshed.json().has("durability")).isFalse();
      assertThat(unrefreshed.json().has("replicas")).isFalse();

      // A replica joins the in-sync set: the default is now acknowledged, naming it.
      SearchNode replica = cluster.start(2);
      await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
        Http.Reply r = http.post(primary.httpUrl(), "/indexes/docs/docs?refresh=true", Map.of("id", "c", "t", "pair"));
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        assertThat(r.json().get("durability").asText()).isEqualTo("replicated");
        assertThat(ids(r.json().get("replicas"))).containsExactly(2);
      });

      // Both nodes' /status show the set (from their own state: the primary's record, the replica's cache).
      for (SearchNode n : List.of(primary, replica)) {
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
          JsonNode docs = http.get(n.httpUrl(), "/status").json().at("/indexes/docs");
          assertThat(docs.at("/inSync/primary").asInt()).as("N%d: %s", n.nodeId(), docs).isEqualTo(1);
          assertThat(ids(docs.at("/inSync/members"))).containsExactly(2);
          assertThat(docs.at("/inSync/departed").isArray()).isTrue();
          assertThat(docs.get("members")).hasSize(2).allMatch(m -> m.get("inSync").asBoolean());
        });
      }

      // Written on the replica: forwarded, and the primary's reply (and the parameter) relayed unchanged.
      Http.Reply forwarded = http.post(replica.httpUrl(), "/indexes/docs/docs?refresh=true", Map.of("id", "d", "t", "via"));
      assertThat(forwarded.status()).as(forwarded.text()).isEqualTo(200);
      assertThat(forwarded.header(WriteForwarder.FORWARDED_TO)).contains(primary.httpUrl().toString());
      assertThat(forwarded.json().get("node").asInt()).isEqualTo(1);
      assertThat(forwarded.json().get("durability").asText()).isEqualTo("replicated");
      assertThat(ids(forwarded.json().get("replicas"))).containsExactly(2);
      Http.Reply forwardedLocal = http.post(replica.httpUrl(), "/indexes/docs/docs?refresh=true&durability=local",
          Map.of("id", "e", "t", "via"));
      assertThat(forwardedLocal.status()).as(forwardedLocal.text()).isEqualTo(200);
      assertThat(forwardedLocal.json().get("durability").asText()).isEqualTo("local");
      assertError(http.post(replica.httpUrl(), "/indexes/docs/docs?refresh=true&durability=x", Map.of("id", "f")),
          400, "bad_request", "durability");
    }
  }

  static List<Integer> ids(JsonNode array) {
    List<Integer> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asInt()));
    return out;
  }
}

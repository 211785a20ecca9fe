package io.nrtcluster.examples.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Drives the HTTP API of a real three-node cluster (real ZooKeeper, real sockets and files):
 * writes on a replica are forwarded to the primary, every node finds the same documents, pages of
 * one point-in-time read on different nodes join up exactly even though indexing goes on and the
 * primary crashes between the pages, an expired point-in-time is a clear 410, and /metrics scrapes.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class SearchServiceEndToEndTest {
  static final String INDEX = "docs";
  static final String[] WORDS = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"};
  static final int MAX_VERSIONS = 8;

  @TempDir
  Path dir;

  static long seed() {
    String s = System.getProperty("nrt.test.seed");
    return s == null || s.isBlank() ? new Random().nextLong() : Long.parseLong(s);
  }

  @Test
  void indexSearchEverywherePageAcrossFailoverExpireAndScrape() throws Exception {
    long seed = seed();
    Random random = new Random(seed);
    String why = "seed " + seed;
    try (TestingServer zk = new TestingServer(true);
        ServiceCluster cluster = new ServiceCluster(dir, zk.getConnectString(),
            b -> b.pointInTimeMaxVersions(MAX_VERSIONS).refreshInterval(Duration.ofMillis(200)));
        Http http = new Http()) {
      List<SearchNode> nodes = new ArrayList<>();
      for (int id = 1; id <= 3; id++) {
        nodes.add(cluster.start(id));
      }
      SearchNode primary = awaitPrimary(http, nodes, why);
      List<SearchNode> replicas = nodes.stream().filter(n -> n != primary).toList();
      SearchNode a = replicas.get(0);
      SearchNode b = replicas.get(1);
      ServiceCluster.awaitInSync(http, primary, "docs", a.nodeId(), b.nodeId());

      // A write on a replica is forwarded to the primary, whose answer comes back.
      Http.Reply forwarded = http.post(a.httpUrl(), "/indexes/docs/docs", docs(random, 0, 40, true));
      assertThat(forwarded.status()).as(why + ": %s", forwarded.text()).isEqualTo(200);
      assertThat(forwarded.json().get("node").asInt()).as(why).isEqualTo(primary.nodeId());
      assertThat(forwarded.json().get("accepted").asInt()).isEqualTo(40);
      assertThat(forwarded.header(WriteForwarder.FORWARDED_TO)).contains(primary.httpUrl().toString());

      // A write on the primary, made searchable at once: the reply names the version.
      Http.Reply direct = http.post(primary.httpUrl(), "/indexes/docs/docs?refresh=true", docs(random, 40, 80, true));
      assertThat(direct.status()).as(why + ": %s", direct.text()).isEqualTo(200);
      long v0 = direct.json().get("version").asLong();

      // Every node finds all 80, with the same hits, once it searches that version.
      List<String> expected = null;
      for (SearchNode n : nodes) {
        Http.Reply r = http.get(n.httpUrl(), "/indexes/docs/search?q=common&size=100&min_version=" + v0);
        assertThat(r.status()).as(why + " N%d: %s", n.nodeId(), r.text()).isEqualTo(200);
        assertThat(r.json().at("/total/value").asLong()).as(why).isEqualTo(80);
        List<String> ids = ids(r.json());
        assertThat(new HashSet<>(ids)).hasSize(80);
        if (expected == null) {
          expected = ids;
        } else if (r.json().get("version").asLong() == v0) {
          assertThat(ids).as(why + ": same version, same hits in the same order").isEqualTo(expected);
        }
      }

      // Nothing is written now: wait until every node searches and holds v0.
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
        for (SearchNode n : nodes) {
          JsonNode s = http.get(n.httpUrl(), "/status").json().at("/indexes/docs");
          assertThat(s.get("searchingVersion").asLong()).isEqualTo(v0);
          assertThat(versions(s.get("heldVersions"))).contains(v0);
        }
      });

      // The whole result at v0, and its first page, both read on replica A.
      Http.Reply full = http.get(a.httpUrl(), "/indexes/docs/search?q=common&size=100&version=" + v0);
      List<String> all = ids(full.json());
      Http.Reply page1 = http.get(a.httpUrl(), "/indexes/docs/search?q=common&size=25");
      assertThat(page1.status()).as(why + ": %s", page1.text()).isEqualTo(200);
      assertThat(page1.json().get("version").asLong()).isEqualTo(v0);
      List<String> paged = new ArrayList<>(ids(page1.json()));
      String cursor = page1.json().get("cursor").asText();

      // Indexing goes on (through replica B): 20 documents lose the word, 40 new ones have it.
      Http.Reply more = http.post(b.httpUrl(), "/indexes/docs/docs?refresh=true", concat(docs(random, 0, 20, false),
          docs(random, 80, 120, true)));
      assertThat(more.status()).as(why + ": %s", more.text()).isEqualTo(200);
      long v1 = more.json().get("version").asLong();
      assertThat(v1).isGreaterThan(v0);
      Http.Reply now = http.get(a.httpUrl(), "/indexes/docs/search?q=common&size=1&min_version=" + v1);
      assertThat(now.json().at("/total/value").asLong()).as(why + ": the newest version sees the new writes").isEqualTo(100);

      // The primary crashes; one of A and B takes over.
      cluster.halt(primary);
      List<SearchNode> survivors = List.of(a, b);
      SearchNode newPrimary = awaitPrimary(http, survivors, why);
      assertThat(newPrimary).isNotSameAs(primary);

      // Writes go on through either survivor (503 while the failover settles: the client retries).
      long v2 = writeWithRetries(http, a.httpUrl(), "/indexes/docs/docs?refresh=true", docs(random, 120, 130, true), why);
      assertThat(v2).isGreaterThan(v1);

      // Pages 2-4 of the v0 search, alternating between the survivors: the same view as page 1.
      SearchNode[] order = {b, a, b};
      for (SearchNode n : order) {
        Http.Reply page = http.get(n.httpUrl(), "/indexes/docs/search?q=common&size=25&version=" + v0 + "&after=" + cursor);
        assertThat(page.status()).as(why + " N%d: %s", n.nodeId(), page.text()).isEqualTo(200);
        assertThat(page.json().get("version").asLong()).isEqualTo(v0);
        paged.addAll(ids(page.json()));
        cursor = page.json().get("cursor").isNull() ? null : page.json().get("cursor").asText();
      }
      assertThat(cursor).as(why + ": the last page is short and ends the paging").isNull();
      assertThat(paged).as(why + ": no duplicates, no gaps, same order as the whole result at v0").isEqualTo(all);

      // Newer versions push v0 out of every node's window: a clear 410 naming the version.
      for (int i = 0; i < MAX_VERSIONS + 1; i++) {
        writeWithRetries(http, b.httpUrl(), "/indexes/docs/docs?refresh=true", docs(random, 200 + i, 201 + i, true), why);
      }
      for (SearchNode n : survivors) {
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
          Http.Reply gone = http.get(n.httpUrl(), "/indexes/docs/search?q=common&version=" + v0);
          assertThat(gone.status()).isEqualTo(410);
          assertThat(gone.json().get("error").asText()).isEqualTo("version_expired");
          assertThat(gone.json().get("version").asLong()).isEqualTo(v0);
          assertThat(gone.json().get("message").asText()).contains("version " + v0);
        });
      }

      // The scrape holds the service's meters (and the library's, from the same registry).
      for (SearchNode n : survivors) {
        Http.Reply metrics = http.get(n.httpUrl(), "/metrics");
        assertThat(metrics.status()).isEqualTo(200);
        assertThat(metrics.header("Content-Type").orElse("")).startsWith("text/plain");
        assertThat(metrics.text())
            .contains("nrt_example_http_requests_seconds_count{method=\"GET\",route=\"search\",status=\"200\"}")
            .contains("nrt_example_pit_held{index=\"docs\"}")
            .contains("nrt_primary_generation{index=\"docs\",node=\"" + n.nodeId() + "\"}");
      }
      Http.Reply primaryMetrics = http.get(newPrimary.httpUrl(), "/metrics");
      assertThat(primaryMetrics.text()).contains("nrt_example_documents_written_total{index=\"docs\"}")
          .contains("nrt_primary{index=\"docs\",node=\"" + newPrimary.nodeId() + "\"} 1.0");
    }
  }

  /** Waits until exactly one of {@code nodes} is a writable primary that every one of them names. */
  static SearchNode awaitPrimary(Http http, List<SearchNode> nodes, String why) {
    AtomicReference<SearchNode> found = new AtomicReference<>();
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      List<SearchNode> primaries = new ArrayList<>();
      for (SearchNode n : nodes) {
        JsonNode s = http.get(n.httpUrl(), "/status").json().at("/indexes/docs");
        if (s.get("writable").asBoolean()) {
          primaries.add(n);
        }
      }
      assertThat(primaries).as(why).hasSize(1);
      String url = primaries.get(0).httpUrl().toString();
      for (SearchNode n : nodes) {
        assertThat(http.get(n.httpUrl(), "/status").json().at("/indexes/docs/primary/http").asText()).isEqualTo(url);
      }
      found.set(primaries.get(0));
    });
    return found.get();
  }

  /** Posts until the cluster takes the batch (503 while no primary is settled); returns the version. */
  static long writeWithRetries(Http http, URI node, String path, Object body, String why) {
    AtomicReference<Long> version = new AtomicReference<>();
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
      Http.Reply r = http.post(node, path, body);
      assertThat(r.status()).as(why + ": %s", r.text()).isIn(200, 503);
      assertThat(r.status()).isEqualTo(200);
      version.set(r.json().get("version").asLong());
    });
    return version.get();
  }

  static List<Map<String, Object>> docs(Random random, int from, int to, boolean common) {
    List<Map<String, Object>> docs = new ArrayList<>();
    for (int i = from; i < to; i++) {
      Map<String, Object> doc = new LinkedHashMap<>();
      doc.put("id", "d" + i);
      StringBuilder body = new StringBuilder(common ? "common" : "rare");
      int words = 1 + random.nextInt(6);
      for (int w = 0; w < words; w++) {
        body.append(' ').append(WORDS[random.nextInt(WORDS.length)]);
      }
      doc.put("body", body.toString());
      doc.put("meta", Map.of("n", i, "tags", List.of("t" + (i % 3))));
      docs.add(doc);
    }
    return docs;
  }

  static <T> List<T> concat(List<T> x, List<T> y) {
    List<T> all = new ArrayList<>(x);
    all.addAll(y);
    return all;
  }

  static List<String> ids(JsonNode reply) {
    List<String> ids = new ArrayList<>();
    for (JsonNode hit : reply.get("hits")) {
      ids.add(hit.get("id").asText());
    }
    return ids;
  }

  static List<Long> versions(JsonNode array) {
    List<Long> v = new ArrayList<>();
    array.forEach(n -> v.add(n.asLong()));
    return v;
  }
}

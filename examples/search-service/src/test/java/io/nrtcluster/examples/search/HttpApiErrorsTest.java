package io.nrtcluster.examples.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.node.Durability;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input on a real one-node service: each mistake gets its own 4xx with a JSON error naming the
 * problem, never a 500, and a rejected batch writes nothing.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class HttpApiErrorsTest {
  static final int MAX_BODY = 4096;

  @TempDir
  static Path dir;

  static TestingServer zk;
  static ServiceCluster cluster;
  static SearchNode node;
  static URI url;
  static Http http;

  @BeforeAll
  static void start() throws Exception {
    zk = new TestingServer(true);
    cluster = new ServiceCluster(dir, zk.getConnectString(),
        // One node, no replica to hold a version: its refreshes are acknowledged LOCAL (DurabilityHttpTest
        // covers the default, REPLICATED, which a lone node refuses).
        b -> b.maxBodyBytes(MAX_BODY).maxPageSize(50).maxVersionWait(Duration.ofMillis(300)).pointInTimeMaxVersions(2)
            .durability(Durability.LOCAL));
    node = cluster.start(1);
    url = node.httpUrl();
    http = new Http();
    await().atMost(Duration.ofSeconds(60)).until(() -> node.index("docs").isWritablePrimary());
  }

  @AfterAll
  static void stop() throws Exception {
    if (http != null) {
      http.close();
    }
    if (cluster != null) {
      cluster.close();
    }
    if (zk != null) {
      zk.close();
    }
  }

  static void assertError(Http.Reply r, int status, String error, String messagePart) {
    assertThat(r.status()).as(r.text()).isEqualTo(status);
    assertThat(r.json()).as(r.text()).isNotNull();
    assertThat(r.json().get("error").asText()).isEqualTo(error);
    assertThat(r.json().get("message").asText()).contains(messagePart);
    assertThat(r.header("Content-Type").orElse("")).startsWith("application/json");
  }

  @Test
  void badDocumentsAre400AndABadBatchWritesNothing() {
    assertError(http.post(url, "/indexes/docs/docs", "{\"id\": \"a\", "), 400, "bad_request", "not valid JSON");
    assertError(http.post(url, "/indexes/docs/docs", ""), 400, "bad_request", "empty");
    assertError(http.post(url, "/indexes/docs/docs", "{\"title\": \"no id\"}"), 400, "bad_request", "\"id\"");
    assertError(http.post(url, "/indexes/docs/docs", "{\"id\": 1.5}"), 400, "bad_request", "string or an integer");
    assertError(http.post(url, "/indexes/docs/docs", "[1, 2]"), 400, "bad_request", "JSON object");
    assertError(http.post(url, "/indexes/docs/docs", "{\"id\": \"x\", \"_source\": \"mine\"}"), 400, "bad_request", "reserved");
    assertError(http.post(url, "/indexes/docs/docs?refresh=maybe", "{\"id\": \"x\"}"), 400, "bad_request", "refresh");

    Http.Reply batch = http.post(url, "/indexes/docs/docs?refresh=true",
        List.of(Map.of("id", "good", "t", "kept out"), Map.of("t", "no id")));
    assertError(batch, 400, "bad_request", "document 1");
    assertThat(batch.json().get("document").asInt()).isEqualTo(1);

    Http.Reply ok = http.post(url, "/indexes/docs/docs?refresh=true", Map.of("id", "other", "t", "written"));
    assertThat(ok.status()).as(ok.text()).isEqualTo(200);
    Http.Reply all = http.get(url, "/indexes/docs/search?min_version=" + ok.json().get("version").asLong());
    assertThat(SearchServiceEndToEndTest.ids(all.json())).as("the rejected batch wrote nothing").doesNotContain("good");
  }

  @Test
  void oversizedBodiesAre413() {
    String big = "{\"id\": \"big\", \"t\": \"" + "x".repeat(MAX_BODY) + "\"}";
    Http.Reply r = http.post(url, "/indexes/docs/docs", big);
    assertError(r, 413, "payload_too_large", Integer.toString(MAX_BODY));
  }

  @Test
  void unknownIndexesRoutesAndMethodsAre404And405() {
    assertError(http.get(url, "/indexes/nope/search?q=a"), 404, "not_found", "nope");
    assertError(http.post(url, "/indexes/nope/docs", "{\"id\": 1}"), 404, "not_found", "nope");
    assertError(http.get(url, "/nothing/here"), 404, "not_found", "/nothing/here");
    Http.Reply wrong = http.get(url, "/indexes/docs/docs");
    assertError(wrong, 405, "method_not_allowed", "POST");
    assertThat(wrong.header("Allow")).contains("POST");
    assertError(http.send(HttpRequest.newBuilder(url.resolve("/status")).DELETE().build()), 405, "method_not_allowed", "GET");
  }

  @Test
  void badSearchParametersAre400() {
    assertError(http.get(url, "/indexes/docs/search?q=" + Http.enc("body:(unclosed")), 400, "bad_request", "cannot parse query");
    assertError(http.get(url, "/indexes/docs/search?q=" + Http.enc("*leading")), 400, "bad_request", "cannot parse query");
    assertError(http.get(url, "/indexes/docs/search?size=0"), 400, "bad_request", "size");
    assertError(http.get(url, "/indexes/docs/search?size=51"), 400, "bad_request", "size");
    assertError(http.get(url, "/indexes/docs/search?size=ten"), 400, "bad_request", "size");
    assertError(http.get(url, "/indexes/docs/search?version=-1"), 400, "bad_request", "version");
    assertError(http.get(url, "/indexes/docs/search?after=" + Http.enc("not a cursor!")), 400, "bad_request", "after");
    assertError(http.get(url, "/indexes/docs/search?after=AAAA"), 400, "bad_request", "after");

    Http.Reply first = http.get(url, "/indexes/docs/search?size=1");
    assertThat(first.status()).as(first.text()).isEqualTo(200);
    long version = first.json().get("version").asLong();
    String cursor = new Cursor(version, 0, 1f).encode();
    assertError(http.get(url, "/indexes/docs/search?version=" + (version + 1) + "&after=" + cursor), 400, "bad_request",
        "belongs to version " + version);
    String beyond = new Cursor(version, 1_000_000, 1f).encode();
    assertError(http.get(url, "/indexes/docs/search?after=" + beyond), 400, "bad_request", "does not have");
  }

  @Test
  void versionsNotHereAre409Or410AndAMissedMinVersionIs504() {
    Http.Reply first = http.get(url, "/indexes/docs/search");
    long version = first.json().get("version").asLong();

    Http.Reply ahead = http.get(url, "/indexes/docs/search?version=" + (version + 1000));
    assertError(ahead, 409, "version_ahead", "version " + (version + 1000));
    assertThat(ahead.json().get("version").asLong()).isEqualTo(version + 1000);

    // Two newer versions push it out of this node's window (it keeps 2).
    long newest = version;
    for (int i = 0; i < 2; i++) {
      Http.Reply w = http.post(url, "/indexes/docs/docs?refresh=true", Map.of("id", "v" + i, "t", "newer"));
      assertThat(w.status()).as(w.text()).isEqualTo(200);
      newest = w.json().get("version").asLong();
    }
    long last = newest;
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      Http.Reply gone = http.get(url, "/indexes/docs/search?version=" + version);
      assertError(gone, 410, "version_expired", "version " + version);
      assertThat(gone.json().get("version").asLong()).isEqualTo(version);
      assertThat(SearchServiceEndToEndTest.versions(gone.json().get("heldVersions"))).contains(last).doesNotContain(version);
    });

    assertError(http.get(url, "/indexes/docs/search?min_version=" + (newest + 1000)), 504, "timeout",
        "did not reach version " + (newest + 1000));
  }
}

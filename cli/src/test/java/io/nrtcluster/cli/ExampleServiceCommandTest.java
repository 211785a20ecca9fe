package io.nrtcluster.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ExampleServiceCommandTest {
  @TempDir Path dir;

  @Test
  void threeNodesWithEmbeddedZooKeeperServeTheHttpApiAndStopGracefully() throws Exception {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cmd = Main.commandLine();
    cmd.setOut(new PrintWriter(out, true));
    cmd.setErr(new PrintWriter(err, true));
    ExampleServiceCommand command = cmd.getSubcommands().get("example-service").getCommand();
    CompletableFuture<Integer> exit = new CompletableFuture<>();
    Thread.ofPlatform().name("nrt-example-test").start(() -> exit.complete(
        cmd.execute("example-service", "--http-port", "0", "--dir", dir.toString())));
    try (HttpClient http = HttpClient.newHttpClient()) {
      await().atMost(Duration.ofSeconds(60)).until(() -> out.toString().contains("Try ") || exit.isDone());
      assertThat(exit).as("stderr: %s", err).isNotDone();
      List<URI> urls = new ArrayList<>();
      Matcher m = Pattern.compile("(?m)^N\\d  http (\\S+)  replication ").matcher(out.toString());
      while (m.find()) {
        urls.add(URI.create(m.group(1)));
      }
      assertThat(urls).hasSize(3);
      assertThat(out.toString()).contains("curl -s -XPOST '" + urls.get(0) + "/indexes/docs/docs?refresh=true'")
          .contains("(embedded)");
      await().atMost(Duration.ofSeconds(60)).until(() -> out.toString().contains("is now PRIMARY"));

      ObjectMapper json = new ObjectMapper();
      HttpRequest write = HttpRequest.newBuilder(urls.get(2).resolve("/indexes/docs/docs?refresh=true"))
          .POST(HttpRequest.BodyPublishers.ofString("{\"id\":\"1\",\"title\":\"segment replication\"}")).build();
      // A replicated write before any replica joined the in-sync set is a 503 not_enough_replicas, which
      // the API documents as retryable (the write is by id, so a retry is the same write).
      java.util.concurrent.atomic.AtomicReference<HttpResponse<String>> last = new java.util.concurrent.atomic.AtomicReference<>();
      await().atMost(Duration.ofSeconds(30)).until(() -> {
        last.set(http.send(write, HttpResponse.BodyHandlers.ofString()));
        return last.get().statusCode() != 503 || !last.get().body().contains("not_enough_replicas");
      });
      HttpResponse<String> written = last.get();
      assertThat(written.statusCode()).as(written.body()).isEqualTo(200);
      long version = json.readTree(written.body()).get("version").asLong();
      HttpResponse<String> found = http.send(HttpRequest.newBuilder(
          urls.get(0).resolve("/indexes/docs/search?q=replication&min_version=" + version)).build(),
          HttpResponse.BodyHandlers.ofString());
      JsonNode reply = json.readTree(found.body());
      assertThat(reply.at("/hits/0/id").asText()).as(found.body()).isEqualTo("1");
    } finally {
      command.shutdown(); // What Ctrl-C does.
    }
    assertThat(exit.get(60, TimeUnit.SECONDS)).as("stderr: %s", err).isZero();
    assertThat(out.toString()).endsWith("stopped" + System.lineSeparator());
  }

  @Test
  void aNodeOfAnotherClusterNeedsItsId() {
    StringWriter err = new StringWriter();
    CommandLine cmd = Main.commandLine();
    cmd.setOut(new PrintWriter(new StringWriter(), true));
    cmd.setErr(new PrintWriter(err, true));
    int exit = cmd.execute("example-service", "--zookeeper", "127.0.0.1:2181");
    assertThat(exit).isEqualTo(2);
    assertThat(err.toString().strip()).doesNotContain("\n").contains("--node-id");
  }
}

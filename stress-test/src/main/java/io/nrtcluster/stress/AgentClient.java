package io.nrtcluster.stress;

import io.nrtcluster.node.Durability;
import io.nrtcluster.stress.agent.AgentApi;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Calls one node process's control endpoint. Every call has a deadline (a paused process never
 * answers), and every failure is an {@link AgentException}.
 */
final class AgentClient {
  private final int nodeId;
  private final JsonClient json;

  AgentClient(int nodeId, String host, int port) {
    this.nodeId = nodeId;
    this.json = new JsonClient("N" + nodeId, host, port);
  }

  private <T> T get(String path, Duration timeout, Class<T> type) throws AgentException {
    return json.get(path, timeout, type);
  }

  private <T> T post(String path, Object body, Duration timeout, Class<T> type) throws AgentException {
    return json.post(path, body, timeout, type);
  }

  AgentApi.WriteReply write(List<AgentApi.Op> ops) throws AgentException {
    return post("/ops", new AgentApi.WriteRequest(ops), Duration.ofSeconds(10), AgentApi.WriteReply.class);
  }

  /** {@link #write(List)}, given up as soon as {@code giveUp} names a reason (see {@link JsonClient}). */
  AgentApi.WriteReply write(List<AgentApi.Op> ops, Supplier<String> giveUp) throws AgentException {
    return json.post("/ops", new AgentApi.WriteRequest(ops), Duration.ofSeconds(10), AgentApi.WriteReply.class, giveUp);
  }

  /** {@link #refresh(long)}, given up as soon as {@code giveUp} names a reason. */
  AgentApi.RefreshReply refresh(long position, Supplier<String> giveUp) throws AgentException {
    return json.post("/refresh?position=" + position, null, Duration.ofSeconds(20), AgentApi.RefreshReply.class, giveUp);
  }

  /**
   * A refresh asking for {@code durability}'s acknowledgement ({@code AgentApi.RefreshReply#acknowledged}
   * false when the library refused it for lack of in-sync replicas), given up as soon as {@code giveUp}
   * names a reason.
   */
  AgentApi.RefreshReply refresh(long position, Durability durability, Supplier<String> giveUp) throws AgentException {
    return json.post("/refresh?position=" + position + "&durability=" + durability.name(), null, Duration.ofSeconds(20),
        AgentApi.RefreshReply.class, giveUp);
  }

  AgentApi.RefreshReply refresh(long position) throws AgentException {
    return post("/refresh?position=" + position, null, Duration.ofSeconds(20), AgentApi.RefreshReply.class);
  }

  /** A refresh recording no position (the probe's: it asks whoever claims to lead). */
  AgentApi.RefreshReply refresh() throws AgentException {
    return post("/refresh", null, Duration.ofSeconds(20), AgentApi.RefreshReply.class);
  }

  AgentApi.CommitReply commit() throws AgentException {
    return post("/commit", null, Duration.ofSeconds(30), AgentApi.CommitReply.class);
  }

  AgentApi.SearchReply search(String term) throws AgentException {
    return get("/search?term=" + term, Duration.ofSeconds(3), AgentApi.SearchReply.class);
  }

  AgentApi.FingerprintReply fingerprint() throws AgentException {
    return get("/fingerprint", Duration.ofSeconds(10), AgentApi.FingerprintReply.class);
  }

  AgentApi.Status status() throws AgentException {
    return get("/status", Duration.ofSeconds(2), AgentApi.Status.class);
  }

  /** Status, with the version first-seen times collected since the last such call (only one caller may drain). */
  AgentApi.Status statusDraining() throws AgentException {
    return get("/status?drain=1", Duration.ofSeconds(2), AgentApi.Status.class);
  }

  void faults(double bitFlipProbability, long throttleBytesPerSecond) throws AgentException {
    faults(bitFlipProbability, throttleBytesPerSecond, 0);
  }

  /** Wire faults on this node's transport; {@code dropAfterFileBytes} > 0 drops each connection after that much file data. */
  void faults(double bitFlipProbability, long throttleBytesPerSecond, long dropAfterFileBytes) throws AgentException {
    post("/faults?bitFlipProbability=" + bitFlipProbability + "&throttleBytesPerSecond=" + throttleBytesPerSecond
        + "&dropAfterFileBytes=" + dropAfterFileBytes, null, Duration.ofSeconds(3), Map.class);
  }

  void shutdown() throws AgentException {
    post("/shutdown", null, Duration.ofSeconds(5), Map.class);
  }

  /** Asks the process to {@code Runtime.halt}; the request dies with it, so no answer is expected. */
  void halt() {
    HttpRequest request = HttpRequest.newBuilder(URI.create(json.base() + "/halt")).timeout(Duration.ofSeconds(2))
        .POST(HttpRequest.BodyPublishers.noBody()).build();
    try {
      json.send(request, HttpResponse.BodyHandlers.discarding());
    } catch (AgentException e) {
      // expected: the process died while answering
    }
  }

  /** Every live document of the version the node searches now: (version, id -> revision). */
  Docs docs() throws AgentException {
    HttpRequest request = HttpRequest.newBuilder(URI.create(json.base() + "/docs")).timeout(Duration.ofSeconds(60)).GET().build();
    HttpResponse<InputStream> response = json.send(request, HttpResponse.BodyHandlers.ofInputStream());
    try (BufferedReader in = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
      if (response.statusCode() != 200) {
        throw new AgentException("HTTP_" + response.statusCode(), "N" + nodeId + " /docs: " + in.readLine());
      }
      String header = in.readLine();
      if (header == null || !header.startsWith("version ")) {
        throw new AgentException("PROTOCOL", "N" + nodeId + " /docs: no version line");
      }
      long version = Long.parseLong(header.substring(8));
      Map<String, Long> docs = new HashMap<>();
      for (String line; (line = in.readLine()) != null; ) {
        int sp = line.indexOf(' ');
        docs.put(line.substring(0, sp), Long.parseLong(line.substring(sp + 1)));
      }
      return new Docs(version, docs);
    } catch (IOException | RuntimeException e) {
      if (e instanceof AgentException a) {
        throw a;
      }
      throw new AgentException("N" + nodeId + " /docs failed: " + e, e);
    }
  }

  record Docs(long version, Map<String, Long> revisions) {}
}

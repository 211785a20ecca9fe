package io.nrtcluster.examples.search;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/** A tiny JSON-over-HTTP client for the tests (java.net.http). */
final class Http implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
      .version(HttpClient.Version.HTTP_1_1).build();

  /** One reply: status, body (JSON when it parses, else null) and raw text. */
  record Reply(int status, JsonNode json, String text, HttpResponse<String> raw) {
    Optional<String> header(String name) {
      return raw.headers().firstValue(name);
    }
  }

  Reply get(URI base, String pathAndQuery) {
    return send(HttpRequest.newBuilder(base.resolve(pathAndQuery)).timeout(Duration.ofSeconds(30)).GET().build());
  }

  Reply post(URI base, String pathAndQuery, Object body) {
    return post(base, pathAndQuery, body, Duration.ofSeconds(30));
  }

  /** As {@link #post(URI, String, Object)}, waiting at most {@code timeout} for the reply. */
  Reply post(URI base, String pathAndQuery, Object body, Duration timeout) {
    String text;
    try {
      text = body instanceof String s ? s : JSON.writeValueAsString(body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return send(HttpRequest.newBuilder(base.resolve(pathAndQuery)).timeout(timeout)
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(text)).build());
  }

  Reply send(HttpRequest request) {
    try {
      HttpResponse<String> r = client.send(request, HttpResponse.BodyHandlers.ofString());
      JsonNode json = null;
      try {
        json = JSON.readTree(r.body());
      } catch (IOException e) {
        // Not JSON (e.g. the Prometheus scrape).
      }
      return new Reply(r.statusCode(), json, r.body(), r);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    client.close();
  }
}

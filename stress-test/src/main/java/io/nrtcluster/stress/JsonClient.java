package io.nrtcluster.stress;

import io.nrtcluster.stress.agent.AgentApi;
import io.nrtcluster.stress.agent.JsonHttp;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Calls a node process's JSON endpoint ({@link JsonHttp}) on loopback. Every call has a deadline (a
 * paused process never answers); every failure, refused or unreachable, is an {@link AgentException}.
 */
public final class JsonClient {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2))
      .version(HttpClient.Version.HTTP_1_1).build();
  private final String who;
  private final String base;

  public JsonClient(String who, int port) {
    this(who, "127.0.0.1", port);
  }

  /** A client of the endpoint at {@code host} (an IPv4 address or name) and {@code port}. */
  public JsonClient(String who, String host, int port) {
    this.who = who;
    this.base = "http://" + host + ":" + port;
  }

  String base() {
    return base;
  }

  public <T> T get(String path, Duration timeout, Class<T> type) throws AgentException {
    return call(HttpRequest.newBuilder(URI.create(base + path)).timeout(timeout).GET().build(), type);
  }

  public <T> T post(String path, Object body, Duration timeout, Class<T> type) throws AgentException {
    HttpRequest.BodyPublisher publisher;
    try {
      publisher = body == null ? HttpRequest.BodyPublishers.noBody()
          : HttpRequest.BodyPublishers.ofByteArray(JsonHttp.JSON.writeValueAsBytes(body));
    } catch (IOException e) {
      throw new AgentException(who + ": cannot encode " + path, e);
    }
    return call(HttpRequest.newBuilder(URI.create(base + path)).timeout(timeout)
        .header("Content-Type", "application/json").POST(publisher).build(), type);
  }

  private <T> T call(HttpRequest request, Class<T> type) throws AgentException {
    HttpResponse<byte[]> response = send(request, HttpResponse.BodyHandlers.ofByteArray());
    try {
      if (response.statusCode() == 200) {
        return JsonHttp.JSON.readValue(response.body(), type);
      }
      AgentApi.ErrorReply error = JsonHttp.JSON.readValue(response.body(), AgentApi.ErrorReply.class);
      throw new AgentException(error.error(), who + " " + request.uri().getPath() + ": " + error.message());
    } catch (AgentException e) {
      throw e;
    } catch (IOException e) {
      throw new AgentException("PROTOCOL", who + " " + request.uri().getPath() + ": unreadable answer (HTTP "
          + response.statusCode() + "): " + e.getMessage());
    }
  }

  <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler) throws AgentException {
    try {
      return HTTP.send(request, handler);
    } catch (IOException e) {
      throw new AgentException(who + " " + request.uri().getPath() + " unreachable: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AgentException(who + " " + request.uri().getPath() + " interrupted", e);
    }
  }
}

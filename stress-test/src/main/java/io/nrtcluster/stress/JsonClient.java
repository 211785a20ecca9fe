package io.nrtcluster.stress;

import io.nrtcluster.stress.agent.AgentApi;
import io.nrtcluster.stress.agent.JsonHttp;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

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
    return call(postRequest(path, body, timeout), type);
  }

  /**
   * {@link #post}, given up as soon as {@code giveUp} names a reason (it is asked every {@link
   * WriteRoute#POLL_MILLIS} while the answer is awaited): the request is then cancelled and this fails
   * with that reason. A request given up may still have reached the endpoint.
   */
  public <T> T post(String path, Object body, Duration timeout, Class<T> type, Supplier<String> giveUp)
      throws AgentException {
    HttpRequest request = postRequest(path, body, timeout);
    CompletableFuture<HttpResponse<byte[]>> pending = HTTP.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray());
    while (true) {
      HttpResponse<byte[]> response;
      try {
        response = pending.get(WriteRoute.POLL_MILLIS, TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        String why = giveUp.get();
        if (why != null) {
          pending.cancel(true);
          throw new AgentException("GIVEN_UP", who + " " + path + " given up: " + why);
        }
        continue;
      } catch (ExecutionException e) {
        throw new AgentException(who + " " + path + " unreachable: " + e.getCause(), e.getCause());
      } catch (InterruptedException e) {
        pending.cancel(true);
        Thread.currentThread().interrupt();
        throw new AgentException(who + " " + path + " interrupted", e);
      }
      return read(request, response, type);
    }
  }

  private HttpRequest postRequest(String path, Object body, Duration timeout) throws AgentException {
    HttpRequest.BodyPublisher publisher;
    try {
      publisher = body == null ? HttpRequest.BodyPublishers.noBody()
          : HttpRequest.BodyPublishers.ofByteArray(JsonHttp.JSON.writeValueAsBytes(body));
    } catch (IOException e) {
      throw new AgentException(who + ": cannot encode " + path, e);
    }
    return HttpRequest.newBuilder(URI.create(base + path)).timeout(timeout)
        .header("Content-Type", "application/json").POST(publisher).build();
  }

  private <T> T call(HttpRequest request, Class<T> type) throws AgentException {
    return read(request, send(request, HttpResponse.BodyHandlers.ofByteArray()), type);
  }

  private <T> T read(HttpRequest request, HttpResponse<byte[]> response, Class<T> type) throws AgentException {
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

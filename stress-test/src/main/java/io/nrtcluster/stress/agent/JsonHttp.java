package io.nrtcluster.stress.agent;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.nrtcluster.common.NamedThreadFactory;
import io.nrtcluster.common.NotPrimaryException;
import io.nrtcluster.common.NrtClusterException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;

/**
 * A small JSON-over-HTTP control endpoint on loopback (JDK {@link HttpServer}) for the node processes
 * the harnesses drive. Maps the library's typed errors to status codes: {@link NotPrimaryException}
 * 409 (with the primary it names), other {@link NrtClusterException}s 503, a bad request 400.
 */
public final class JsonHttp implements AutoCloseable {
  /** The JSON mapper of both sides. */
  public static final ObjectMapper JSON = new ObjectMapper();
  private static final int MAX_BODY = 16 << 20;

  /** One route's work. */
  @FunctionalInterface
  public interface Handler {
    void handle(HttpExchange exchange) throws Exception;
  }

  private final HttpServer server;
  private final ExecutorService executor;
  private final Logger log;
  private final String who;

  public JsonHttp(String who, int port, int threads, Logger log) throws IOException {
    this(who, "127.0.0.1", port, threads, log);
  }

  /** An endpoint listening on {@code host} (an address of this machine, or of its network namespace). */
  public JsonHttp(String who, String host, int port, int threads, Logger log) throws IOException {
    this.who = who;
    this.log = log;
    this.server = HttpServer.create(new InetSocketAddress(host, port), 64);
    this.executor = Executors.newFixedThreadPool(threads, new NamedThreadFactory("agent-http"));
    server.setExecutor(executor);
  }

  public void route(String path, Handler handler) {
    server.createContext(path, exchange -> {
      try (exchange) {
        try {
          handler.handle(exchange);
        } catch (NotPrimaryException e) {
          reply(exchange, 409, new AgentApi.ErrorReply(e.code().name(), e.getMessage(), e.primaryAddress()));
        } catch (NrtClusterException e) {
          reply(exchange, 503, new AgentApi.ErrorReply(e.code().name(), e.getMessage(), null));
        } catch (IllegalArgumentException e) {
          reply(exchange, 400, new AgentApi.ErrorReply("BAD_REQUEST", e.getMessage(), null));
        } catch (Exception e) {
          log.warn("{}: {} failed", who, path, e);
          reply(exchange, 500, new AgentApi.ErrorReply("INTERNAL", e.toString(), null));
        }
      } catch (IOException e) {
        log.debug("{}: could not answer {}: {}", who, path, e.toString());
      }
    });
  }

  public void start() {
    server.start();
  }

  public int port() {
    return server.getAddress().getPort();
  }

  /** The request body, refused beyond 16 MiB. */
  public static byte[] body(HttpExchange ex) throws IOException {
    byte[] bytes = ex.getRequestBody().readNBytes(MAX_BODY + 1);
    if (bytes.length > MAX_BODY) {
      throw new IllegalArgumentException("request body over " + MAX_BODY + " bytes");
    }
    return bytes;
  }

  /** A query parameter, or null. */
  public static String query(HttpExchange ex, String name) {
    String q = ex.getRequestURI().getRawQuery();
    if (q == null) {
      return null;
    }
    for (String pair : q.split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0 && pair.substring(0, eq).equals(name)) {
        return URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      }
    }
    return null;
  }

  /** A numeric query parameter, or {@code fallback} when absent; a malformed one is a bad request. */
  public static long number(HttpExchange ex, String name, long fallback) {
    String v = query(ex, name);
    if (v == null) {
      return fallback;
    }
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be a number, got '" + v + "'");
    }
  }

  public static void reply(HttpExchange ex, int status, Object body) throws IOException {
    byte[] bytes = JSON.writeValueAsBytes(body);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}

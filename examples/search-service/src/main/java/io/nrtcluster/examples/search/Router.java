package io.nrtcluster.examples.search;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.NotEnoughReplicasException;
import io.nrtcluster.common.NrtClusterException;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.store.AlreadyClosedException;

/**
 * The one {@link HttpHandler} of the server: finds the route of a request, runs it, and turns every
 * failure into a JSON error with the right status ({@link ApiError}): bad input is always a 4xx,
 * the cluster's own states (no primary, closing, a refresh the primary could not publish, a replica
 * reopening its index, a read of rotten bytes the node is checking) a 503 with {@code Retry-After}, and
 * only a failure of the service itself a 500. Times every request ({@code nrt.example.http.requests}, by route, method and status).
 */
final class Router implements HttpHandler {
  /** A route under {@code /indexes/{name}/}. */
  interface IndexRoute {
    void handle(HttpExchange exchange, HostedIndex index) throws IOException;
  }

  /** A route of its own path. */
  interface Route {
    void handle(HttpExchange exchange) throws IOException;
  }

  private final ObjectMapper json;
  private final NodeLog log;
  private final MeterRegistry registry;
  private final Map<String, HostedIndex> indexes;
  private final IndexRoute docs;
  private final IndexRoute search;
  private final Route status;
  private final Route metrics;

  Router(ObjectMapper json, NodeLog log, MeterRegistry registry, Map<String, HostedIndex> indexes, IndexRoute docs,
      IndexRoute search, Route status, Route metrics) {
    this.json = json;
    this.log = log;
    this.registry = registry;
    this.indexes = indexes;
    this.docs = docs;
    this.search = search;
    this.status = status;
    this.metrics = metrics;
  }

  @Override
  public void handle(HttpExchange exchange) {
    long start = System.nanoTime();
    String route = "unknown";
    try {
      String path = exchange.getRequestURI().getPath();
      String method = exchange.getRequestMethod();
      String[] parts = path.split("/", -1);
      if (path.equals("/status")) {
        route = "status";
        requireMethod(method, "GET");
        status.handle(exchange);
      } else if (path.equals("/metrics")) {
        route = "metrics";
        requireMethod(method, "GET");
        metrics.handle(exchange);
      } else if (parts.length == 4 && parts[0].isEmpty() && parts[1].equals("indexes")
          && (parts[3].equals("docs") || parts[3].equals("search"))) {
        route = parts[3];
        requireMethod(method, route.equals("docs") ? "POST" : "GET");
        HostedIndex index = indexes.get(parts[2]);
        if (index == null) {
          throw new ApiException(ApiError.NOT_FOUND, "index '" + parts[2] + "' is not hosted here (indexes: "
              + String.join(", ", indexes.keySet()) + ")", Map.of("index", parts[2]));
        }
        (route.equals("docs") ? docs : search).handle(exchange, index);
      } else {
        throw new ApiException(ApiError.NOT_FOUND, "no such route: " + path
            + " (routes: POST /indexes/{name}/docs, GET /indexes/{name}/search, GET /status, GET /metrics)");
      }
    } catch (ApiException e) {
      fail(exchange, e);
    } catch (NrtClusterException e) {
      fail(exchange, translate(e));
    } catch (AlreadyClosedException e) {
      fail(exchange, new ApiException(ApiError.UNAVAILABLE, "the index closed during the request (a role change?): retry",
          Map.of(), e));
    } catch (IOException | RuntimeException e) {
      log.warn("{} {} failed: {}", exchange.getRequestMethod(), exchange.getRequestURI().getPath(), e.toString());
      fail(exchange, new ApiException(ApiError.INTERNAL, "internal error: " + e.getClass().getSimpleName(), Map.of(), e));
    } finally {
      exchange.close();
      Timer.builder("nrt.example.http.requests")
          .description("HTTP requests of the example search service")
          .tag("route", route)
          .tag("method", exchange.getRequestMethod())
          .tag("status", Integer.toString(exchange.getResponseCode()))
          .register(registry)
          .record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
    }
  }

  private static void requireMethod(String method, String allowed) {
    if (!method.equals(allowed)) {
      throw new ApiException(ApiError.METHOD_NOT_ALLOWED, method + " is not allowed here; use " + allowed,
          Map.of("allow", allowed));
    }
  }

  /** The library's typed errors, by code (never by message). */
  private static ApiException translate(NrtClusterException e) {
    if (e instanceof NotEnoughReplicasException n) {
      Map<String, Object> details = new LinkedHashMap<>();
      details.put("cause", e.code().name());
      details.put("version", n.version());
      details.put("required", n.required());
      details.put("replicas", n.replicas());
      return new ApiException(ApiError.NOT_ENOUGH_REPLICAS, e.getMessage() + " (" + n.required()
          + " in-sync replica(s) required, " + n.replicas().size() + " held it: " + n.replicas()
          + "); the documents are written, retry the batch once replicas are back, or use durability=local", details, e);
    }
    ApiError error = switch (e.code()) {
      case NOT_PRIMARY -> ApiError.NO_PRIMARY;
      case NODE_CLOSED, CONNECTION, NOT_PUBLISHED, OBJECT_STORE_UNAVAILABLE, INDEX_UNAVAILABLE -> ApiError.UNAVAILABLE;
      case CORRUPT_INDEX_READ -> ApiError.CORRUPT_READ;
      case TIMEOUT -> ApiError.TIMEOUT;
      case WRITER_LOST -> ApiError.WRITER_LOST;
      case INSUFFICIENT_STORAGE -> ApiError.INSUFFICIENT_STORAGE;
      case NOT_ENOUGH_REPLICAS -> ApiError.NOT_ENOUGH_REPLICAS;
      default -> ApiError.INTERNAL;
    };
    return new ApiException(error, e.getMessage(), Map.of("cause", e.code().name()), e);
  }

  private void fail(HttpExchange exchange, ApiException e) {
    if (e.error() == ApiError.INTERNAL) {
      log.warn("{} {}: {}", exchange.getRequestMethod(), exchange.getRequestURI().getPath(), e.toString());
    } else {
      log.debug("{} {}: {} {}", exchange.getRequestMethod(), exchange.getRequestURI().getPath(), e.error().status(),
          e.getMessage());
    }
    if (exchange.getResponseCode() != -1) {
      return; // The reply had begun: the status is out already; closing the exchange ends it.
    }
    try {
      if (e.error() == ApiError.METHOD_NOT_ALLOWED) {
        exchange.getResponseHeaders().set("Allow", String.valueOf(e.details().get("allow")));
      }
      if (e.error().status() == 503) {
        exchange.getResponseHeaders().set("Retry-After", "1");
      }
      Exchanges.sendJson(exchange, e.error().status(), Exchanges.errorBody(e), json);
    } catch (IOException io) {
      log.debug("could not send an error reply: {}", io.toString());
    }
  }
}

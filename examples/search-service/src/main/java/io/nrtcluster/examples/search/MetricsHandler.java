package io.nrtcluster.examples.search;

import com.sun.net.httpserver.HttpExchange;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * {@code GET /metrics}: the Prometheus scrape of the node's registry: the library's meters (the
 * registry passed to {@code NrtHost.start}) and this service's own ({@code nrt_example_*}).
 */
final class MetricsHandler implements Router.Route {
  /** Prometheus text exposition format 0.0.4. */
  static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private final PrometheusMeterRegistry registry;

  MetricsHandler(PrometheusMeterRegistry registry) {
    this.registry = registry;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    Exchanges.send(exchange, 200, CONTENT_TYPE, registry.scrape().getBytes(StandardCharsets.UTF_8));
  }
}

package io.nrtcluster.examples.search;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import io.micrometer.core.instrument.MeterRegistry;
import io.nrtcluster.common.NotPrimaryException;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * {@code POST /indexes/{name}/docs[?refresh=true]}: a JSON object or an array of them. On the
 * primary, applied here; on a replica, checked here (bad input is a 400 on any node) and forwarded
 * to the primary, whose answer is relayed (header {@value WriteForwarder#FORWARDED_TO} names it),
 * following the primary through a failover as {@link WriteForwarder} says (applied here when this
 * node took over meanwhile; header {@value WriteForwarder#ABANDONED} names attempts given up on).
 * With {@code refresh=true} the primary publishes a new point-in-time before answering and the reply
 * carries its {@code version}: a search with {@code min_version=<version>} on any node then sees the
 * write.
 */
final class DocsHandler implements Router.IndexRoute {
  private final ObjectMapper json;
  private final DocumentWriter writer;
  private final WriteForwarder forwarder;
  private final int nodeId;
  private final int maxBodyBytes;
  private final MeterRegistry registry;

  DocsHandler(ObjectMapper json, WriteForwarder forwarder, int nodeId, int maxBodyBytes, MeterRegistry registry) {
    this.json = json;
    this.writer = new DocumentWriter(json);
    this.forwarder = forwarder;
    this.nodeId = nodeId;
    this.maxBodyBytes = maxBodyBytes;
    this.registry = registry;
  }

  @Override
  public void handle(HttpExchange exchange, HostedIndex index) throws IOException {
    Map<String, String> params = Exchanges.query(exchange);
    boolean refresh = Exchanges.flag(params, "refresh");
    byte[] body = Exchanges.body(exchange, maxBodyBytes);
    List<DocumentMapper.Mapped> docs = writer.parse(body);
    String forwardedBy = exchange.getRequestHeaders().getFirst(WriteForwarder.FORWARDED_BY);
    WriteForwarder.Forward forward = forwarder.begin(index);
    while (true) {
      // Taken before this node's view is read (here, or by the NotPrimaryException): no change is missed.
      CompletableFuture<Void> change = forward.watch();
      long version;
      try {
        writer.apply(index, docs);
        version = refresh ? index.node().refresh() : -1;
      } catch (NotPrimaryException e) {
        if (forwardedBy != null) {
          // The primary changed after the sender looked: no second hop (no loops); the sender follows the view.
          throw new ApiException(ApiError.NO_PRIMARY, "node " + nodeId + " is not the primary of index " + index.name()
              + " any more: retry the batch (documents are replaced by id, so a retry is applied once)",
              Map.of("primary", String.valueOf(e.primaryAddress())), e);
        }
        String primary = e.primaryAddress() != null ? e.primaryAddress() : index.node().primaryAddress();
        Optional<WriteForwarder.Relayed> relayed = forward.attempt(primary, exchange.getRequestURI().getRawQuery(), body, change);
        if (relayed.isEmpty()) {
          continue;
        }
        registry.counter("nrt.example.writes.forwarded", "index", index.name()).increment();
        exchange.getResponseHeaders().set(WriteForwarder.FORWARDED_TO, relayed.get().primary().toString());
        markAbandoned(exchange, forward);
        Exchanges.send(exchange, relayed.get().status(), relayed.get().contentType(), relayed.get().body());
        return;
      }
      registry.counter("nrt.example.documents.written", "index", index.name()).increment(docs.size());
      Map<String, Object> reply = new LinkedHashMap<>();
      reply.put("index", index.name());
      reply.put("node", nodeId);
      reply.put("accepted", docs.size());
      reply.put("refreshed", refresh);
      if (refresh) {
        reply.put("version", version);
      }
      markAbandoned(exchange, forward);
      Exchanges.sendJson(exchange, 200, reply, json);
      return;
    }
  }

  private static void markAbandoned(HttpExchange exchange, WriteForwarder.Forward forward) {
    List<WriteForwarder.Abandoned> abandoned = forward.abandoned();
    if (!abandoned.isEmpty()) {
      exchange.getResponseHeaders().set(WriteForwarder.ABANDONED,
          String.join(", ", abandoned.stream().map(WriteForwarder.Abandoned::toString).toList()));
    }
  }
}

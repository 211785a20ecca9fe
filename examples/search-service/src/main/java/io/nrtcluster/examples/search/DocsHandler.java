package io.nrtcluster.examples.search;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import io.micrometer.core.instrument.MeterRegistry;
import io.nrtcluster.common.NotPrimaryException;
import io.nrtcluster.node.Acknowledgement;
import io.nrtcluster.node.Durability;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * {@code POST /indexes/{name}/docs[?refresh=true[&durability=replicated|local]]}: a JSON object or an array of them. On the
 * primary, applied here; on a replica, checked here (bad input is a 400 on any node) and forwarded
 * to the primary, whose answer is relayed (header {@value WriteForwarder#FORWARDED_TO} names it),
 * following the primary through a failover as {@link WriteForwarder} says (applied here when this
 * node took over meanwhile; header {@value WriteForwarder#ABANDONED} names attempts given up on).
 * With {@code refresh=true} the primary publishes a new point-in-time before answering and the reply
 * carries its {@code version}: a search with {@code min_version=<version>} on any node then sees the
 * write. It also carries the acknowledgement's {@code durability} and the {@code replicas} (node ids)
 * that had installed the version ({@link Acknowledgement}): with {@code durability=replicated} (the
 * configured default, {@link SearchServiceConfig#durability()}) every in-sync replica, at least {@code
 * minInSyncReplicas}, did before the reply, so the write survives a crash of the primary; too few is
 * a 503 {@code not_enough_replicas} (written and published, not acknowledged). Without {@code
 * refresh=true} there is no refresh to acknowledge: the reply says {@code refreshed: false} and
 * carries neither field (the parameter is still checked).
 */
final class DocsHandler implements Router.IndexRoute {
  private final ObjectMapper json;
  private final DocumentWriter writer;
  private final WriteForwarder forwarder;
  private final int nodeId;
  private final int maxBodyBytes;
  private final Durability defaultDurability;
  private final MeterRegistry registry;

  DocsHandler(ObjectMapper json, WriteForwarder forwarder, int nodeId, int maxBodyBytes, Durability defaultDurability,
      MeterRegistry registry) {
    this.json = json;
    this.writer = new DocumentWriter(json);
    this.forwarder = forwarder;
    this.nodeId = nodeId;
    this.maxBodyBytes = maxBodyBytes;
    this.defaultDurability = defaultDurability;
    this.registry = registry;
  }

  @Override
  public void handle(HttpExchange exchange, HostedIndex index) throws IOException {
    Map<String, String> params = Exchanges.query(exchange);
    boolean refresh = Exchanges.flag(params, "refresh");
    Durability durability = durability(params);
    byte[] body = Exchanges.body(exchange, maxBodyBytes);
    List<DocumentMapper.Mapped> docs = writer.parse(body);
    String forwardedBy = exchange.getRequestHeaders().getFirst(WriteForwarder.FORWARDED_BY);
    WriteForwarder.Forward forward = forwarder.begin(index);
    while (true) {
      // Taken before this node's view is read (here, or by the NotPrimaryException): no change is missed.
      CompletableFuture<Void> change = forward.watch();
      Acknowledgement ack;
      try {
        writer.apply(index, docs);
        ack = refresh ? index.node().refresh(durability) : null;
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
      if (ack != null) {
        reply.put("version", ack.version());
        reply.put("durability", code(ack.durability()));
        reply.put("replicas", ack.replicas());
      }
      markAbandoned(exchange, forward);
      Exchanges.sendJson(exchange, 200, reply, json);
      return;
    }
  }

  /** The {@code durability} parameter (the configured default when absent); anything but replicated or local is a 400. */
  private Durability durability(Map<String, String> params) {
    String v = params.get("durability");
    if (v == null) {
      return defaultDurability;
    }
    for (Durability d : Durability.values()) {
      if (code(d).equals(v)) {
        return d;
      }
    }
    throw new ApiException(ApiError.BAD_REQUEST, "parameter 'durability' must be replicated or local, got '" + v + "'",
        Map.of("parameter", "durability"));
  }

  /** The wire name of a durability: {@code replicated}, {@code local}. */
  static String code(Durability d) {
    return d.name().toLowerCase(Locale.ROOT);
  }

  private static void markAbandoned(HttpExchange exchange, WriteForwarder.Forward forward) {
    List<WriteForwarder.Abandoned> abandoned = forward.abandoned();
    if (!abandoned.isEmpty()) {
      exchange.getResponseHeaders().set(WriteForwarder.ABANDONED,
          String.join(", ", abandoned.stream().map(WriteForwarder.Abandoned::toString).toList()));
    }
  }
}

package io.nrtcluster.examples.search;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.nrtcluster.common.NamedThreadFactory;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.NotPrimaryException;
import io.nrtcluster.node.ClusterNode;
import io.nrtcluster.node.IndexSettings;
import io.nrtcluster.node.NrtHost;
import io.nrtcluster.node.RoleListener;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.util.IOUtils;
import org.slf4j.LoggerFactory;

/**
 * One node of the example search service: the library's {@link NrtHost} with one {@link
 * ClusterNode} per index, and an HTTP API (JDK {@link HttpServer}) in front of it. Any node takes
 * writes (a replica forwards them to the primary) and searches (from its own copy of the primary's
 * points-in-time). In the background each node records every new point-in-time it searches, for
 * paging, and the primary publishes a new one every {@code refreshInterval}.
 *
 * <p>Started by {@link #start}; {@link #close()} leaves gracefully (each index commits and
 * resigns), {@link #halt()} stops as a crash would.
 */
public final class SearchNode implements Closeable {
  private final SearchServiceConfig config;
  private final NodeLog log;
  private final NrtHost host;
  private final Map<String, HostedIndex> indexes;
  private final HttpServer server;
  private final ExecutorService httpPool;
  private final WriteForwarder forwarder;
  private final ScheduledExecutorService background;
  private final URI http;

  private SearchNode(SearchServiceConfig config, NodeLog log, NrtHost host, Map<String, HostedIndex> indexes,
      HttpServer server, ExecutorService httpPool, WriteForwarder forwarder,
      ScheduledExecutorService background, URI http) {
    this.config = config;
    this.log = log;
    this.host = host;
    this.indexes = indexes;
    this.server = server;
    this.httpPool = httpPool;
    this.forwarder = forwarder;
    this.background = background;
    this.http = http;
  }

  /**
   * Starts the node: joins the cluster (the library's meters go to {@code registry}) with its HTTP
   * address as member metadata, opens every index and starts serving HTTP. Fails with the library's typed
   * errors (for example {@code ConnectionException} when ZooKeeper is unreachable) or an {@link
   * IOException} when the HTTP port cannot be bound; nothing is left running then. {@code
   * listeners} hear every role change of every index, the first included.
   */
  public static SearchNode start(SearchServiceConfig config, PrometheusMeterRegistry registry, RoleListener... listeners)
      throws IOException {
    ObjectMapper json = new ObjectMapper();
    int nodeId = config.host().nodeId();
    List<Closeable> started = new ArrayList<>();
    ScheduledExecutorService background = null;
    ExecutorService httpPool = null;
    HttpServer server = null;
    try {
      NrtHost host = NrtHost.start(config.host(), registry);
      started.add(host);
      // Bound before the indexes open, so that every membership carries the HTTP URL from the start.
      server = HttpServer.create(new InetSocketAddress(config.httpHost(), config.httpPort()), 0);
      URI http = httpUri(config.httpHost(), server.getAddress().getPort());
      host.setMemberMetadata(HttpAddressBook.metadata(http));
      Map<String, HostedIndex> indexes = new LinkedHashMap<>();
      PrimaryViews views = new PrimaryViews();
      RoleListener[] all = Arrays.copyOf(listeners, listeners.length + 1);
      all[listeners.length] = views;
      for (String name : config.indexes()) {
        ClusterNode node = host.openIndex(IndexSettings.standard(name).withMinInSyncReplicas(config.minInSyncReplicas()), all);
        NodeLog indexLog = new NodeLog(LoggerFactory.getLogger(PointInTimeSearchers.class), "N" + nodeId + "/" + name,
            node::primaryGen);
        PointInTimeSearchers searchers = new PointInTimeSearchers(node, indexLog, config.pointInTimeMaxAge(),
            config.pointInTimeMaxVersions());
        started.add(searchers);
        indexes.put(name, new HostedIndex(name, node, searchers));
        Gauge.builder("nrt.example.pit.held", searchers, s -> s.heldVersions().size())
            .description("points-in-time this node keeps open for paging")
            .tag("index", name).register(registry);
      }
      ClusterNode first = indexes.values().iterator().next().node();
      NodeLog log = new NodeLog(LoggerFactory.getLogger(SearchNode.class), "N" + nodeId + "/http", first::primaryGen);

      List<ClusterNode> nodes = indexes.values().stream().map(HostedIndex::node).toList();
      HttpAddressBook addresses = new HttpAddressBook(() -> nodes);
      WriteForwarder forwarder = new WriteForwarder(addresses, views, nodeId, host.address().toString(),
          config.forwardTimeout(), log);
      started.add(forwarder::close);

      Map<String, HostedIndex> hosted = Collections.unmodifiableMap(indexes);
      Router router = new Router(json, log, registry, hosted,
          new DocsHandler(json, forwarder, nodeId, config.maxBodyBytes(), config.durability(), registry),
          new SearchHandler(json, new SearchService(json, config.maxVersionWait()), nodeId, config.maxPageSize()),
          new StatusHandler(json, host, http, hosted, addresses),
          new MetricsHandler(registry));
      httpPool = Executors.newFixedThreadPool(config.httpThreads(), new NamedThreadFactory("nrt-http-" + nodeId));
      server.createContext("/", router);
      server.setExecutor(httpPool);

      background = Executors.newSingleThreadScheduledExecutor(new NamedThreadFactory("nrt-service-" + nodeId));
      SearchNode node = new SearchNode(config, log, host, indexes, server, httpPool, forwarder, background, http);
      long poll = config.pollInterval().toMillis();
      background.scheduleWithFixedDelay(node::pollSearchers, 0, Math.max(1, poll), TimeUnit.MILLISECONDS);
      long refresh = config.refreshInterval().toMillis();
      background.scheduleWithFixedDelay(node::refreshPrimaries, refresh, Math.max(1, refresh), TimeUnit.MILLISECONDS);
      server.start();
      log.info("search service at {} (replication {}, indexes {})", http, host.address(), config.indexes());
      return node;
    } catch (IOException | RuntimeException e) {
      if (server != null) {
        server.stop(0);
      }
      if (background != null) {
        background.shutdownNow();
      }
      if (httpPool != null) {
        httpPool.shutdownNow();
      }
      IOUtils.closeWhileHandlingException(started.reversed());
      throw e;
    }
  }

  private static URI httpUri(String host, int port) {
    try {
      return new URI("http", null, host, port, null, null, null);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("httpHost '" + host + "' does not make a URL: " + e.getMessage(), e);
    }
  }

  private void pollSearchers() {
    for (HostedIndex index : indexes.values()) {
      index.searchers().poll();
    }
  }

  /** The primary publishes what was written since the last refresh; a no-op on replicas and when nothing changed. */
  private void refreshPrimaries() {
    for (HostedIndex index : indexes.values()) {
      ClusterNode node = index.node();
      if (node.isWritablePrimary()) {
        try {
          node.refresh();
        } catch (NotPrimaryException | AlreadyClosedException e) {
          log.debug("periodic refresh of {} skipped: {}", index.name(), e.toString());
        } catch (IOException | RuntimeException e) {
          log.warn("periodic refresh of {} failed: {}", index.name(), e.toString());
        }
      }
    }
  }

  /** Base URL of this node's HTTP API, e.g. {@code http://127.0.0.1:8081}. */
  public URI httpUrl() {
    return http;
  }

  public int nodeId() {
    return host.nodeId();
  }

  /** The library's host underneath (its replication address, ZooKeeper connect string). */
  public NrtHost host() {
    return host;
  }

  /** The cluster node of index {@code name}, or null if this service does not host it. */
  public ClusterNode index(String name) {
    HostedIndex i = indexes.get(name);
    return i == null ? null : i.node();
  }

  public SearchServiceConfig config() {
    return config;
  }

  private void stopServing() {
    server.stop(0);
    background.shutdownNow();
    httpPool.shutdownNow();
    forwarder.close();
    for (HostedIndex index : indexes.values()) {
      IOUtils.closeWhileHandlingException(index.searchers());
    }
  }

  /** Leaves gracefully: stops serving HTTP, then each index commits and resigns (see {@link NrtHost#close()}). */
  @Override
  public void close() throws IOException {
    stopServing();
    host.close();
    log.info("search service stopped");
  }

  /** Stops at once, as a crash looks to the others: no commit, no resignation (see {@link NrtHost#halt()}). */
  public void halt() {
    stopServing();
    host.halt();
  }
}

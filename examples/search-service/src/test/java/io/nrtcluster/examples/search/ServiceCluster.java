package io.nrtcluster.examples.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.nrtcluster.node.HostConfig;
import io.nrtcluster.transport.TransportConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Search-service nodes in this JVM against a real ZooKeeper (curator-test's TestingServer), each
 * with its own data directory, ports, ZooKeeper sessions and Prometheus registry.
 */
final class ServiceCluster implements AutoCloseable {
  static final String CLUSTER = "svc";

  private final Path root;
  private final String zooKeeper;
  private final UnaryOperator<SearchServiceConfig.Builder> tune;
  private final UnaryOperator<HostConfig.Builder> tuneHost;
  private final List<SearchNode> nodes = new ArrayList<>();

  ServiceCluster(Path root, String zooKeeper, UnaryOperator<SearchServiceConfig.Builder> tune) {
    this(root, zooKeeper, tune, b -> b);
  }

  /** As above, with each node's host settings changed by {@code tuneHost} too. */
  ServiceCluster(Path root, String zooKeeper, UnaryOperator<SearchServiceConfig.Builder> tune,
      UnaryOperator<HostConfig.Builder> tuneHost) {
    this.root = root;
    this.zooKeeper = zooKeeper;
    this.tune = tune;
    this.tuneHost = tuneHost;
  }

  SearchServiceConfig config(int nodeId) {
    HostConfig host = tuneHost.apply(HostConfig.builder().nodeId(nodeId).cluster(CLUSTER).dataDir(root.resolve("n" + nodeId))
        .zooKeeper(zooKeeper).bindHost("127.0.0.1").port(0).sessionTimeout(Duration.ofSeconds(4))
        .electionSettle(Duration.ofMillis(200))
        .transport(TransportConfig.builder().ioThreads(1).requestThreads(4).build())).build();
    return tune.apply(SearchServiceConfig.builder().host(host).httpPort(0).httpThreads(4)).build();
  }

  SearchNode start(int nodeId) throws IOException {
    SearchNode node = SearchNode.start(config(nodeId), new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    nodes.add(node);
    return node;
  }

  /**
   * Waits (bounded) until {@code primary}'s status names every one of {@code replicas} in the
   * index's in-sync set: before that a replicated acknowledgement (the service's default) can be
   * refused with {@code not_enough_replicas}, as documented, when no replica is connected yet.
   */
  static void awaitInSync(Http http, SearchNode primary, String index, Integer... replicas) {
    await("the in-sync set of " + index + " on N" + primary.nodeId() + " holds " + List.of(replicas))
        .atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50)).untilAsserted(() -> {
          JsonNode members = http.get(primary.httpUrl(), "/status").json().at("/indexes/" + index + "/inSync/members");
          Set<Integer> ids = new HashSet<>();
          members.forEach(m -> ids.add(m.asInt()));
          assertThat(ids).contains(replicas);
        });
  }

  /** Crash-like stop: the node's ZooKeeper sessions end at once, nothing is committed or resigned. */
  void halt(SearchNode node) {
    nodes.remove(node);
    node.halt();
  }

  @Override
  public void close() throws IOException {
    IOException first = null;
    for (SearchNode n : nodes.reversed()) {
      try {
        n.close();
      } catch (IOException e) {
        first = first == null ? e : first;
      }
    }
    nodes.clear();
    if (first != null) {
      throw first;
    }
  }
}

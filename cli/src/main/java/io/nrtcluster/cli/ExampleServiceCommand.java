package io.nrtcluster.cli;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.nrtcluster.cli.Main.CliException;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.examples.search.SearchNode;
import io.nrtcluster.examples.search.SearchServiceConfig;
import io.nrtcluster.node.HostConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code nrt example-service}: the example search service (module {@code examples/search-service})
 * in the foreground: three nodes in this process with an embedded ZooKeeper, or one node of a
 * cluster given {@code --zookeeper}. Prints each node's HTTP URL, example curl commands and role
 * changes; stops gracefully on Ctrl-C or SIGTERM.
 */
@Command(
    name = "example-service",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Runs the example search service: JSON documents indexed and searched over HTTP on any node, writes "
          + "forwarded to the primary, point-in-time paging across nodes, Prometheus metrics at /metrics.",
      "Without --zookeeper: three nodes (N1-N3) in this process on --bind, N1 running an embedded ZooKeeper "
          + "(a one-host trial: stopping N1 stops ZooKeeper). With --zookeeper: one node, --node-id, of that cluster.",
      "Prints each node's HTTP URL and example curl commands; runs until Ctrl-C or SIGTERM, then every node "
          + "commits and leaves."
    })
public final class ExampleServiceCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--zookeeper", paramLabel = "HOST:PORT",
      description = "ZooKeeper connect string: run ONE node (--node-id) of that cluster. Default: three nodes "
          + "with an embedded ZooKeeper.")
  String zookeeper;

  @Option(names = "--node-id", paramLabel = "N", description = "Node id (1-65535), with --zookeeper.")
  Integer nodeId;

  @Option(names = "--http-port", paramLabel = "PORT", defaultValue = "8081",
      description = "HTTP port; three nodes use PORT, PORT+1, PORT+2; 0 picks free ports (default: ${DEFAULT-VALUE}).")
  int httpPort;

  @Option(names = "--port", paramLabel = "PORT", defaultValue = "0",
      description = "Replication port, with --zookeeper (default: ${DEFAULT-VALUE}, a free one).")
  int port;

  @Option(names = "--zk-port", paramLabel = "PORT", defaultValue = "0",
      description = "Client port of the embedded ZooKeeper, without --zookeeper (default: ${DEFAULT-VALUE}, a free one).")
  int zkPort;

  @Option(names = "--bind", paramLabel = "HOST", defaultValue = "127.0.0.1",
      description = "Address to listen on and advertise (default: ${DEFAULT-VALUE}).")
  String bind;

  @Option(names = "--cluster", paramLabel = "NAME", defaultValue = "example",
      description = "Cluster name (default: ${DEFAULT-VALUE}).")
  String cluster;

  @Option(names = "--index", paramLabel = "NAME", defaultValue = "docs",
      description = "Index to host; repeat for several (default: ${DEFAULT-VALUE}).")
  List<String> indexes;

  @Option(names = "--dir", paramLabel = "DIR",
      description = "Data directory, kept afterwards (three nodes: DIR/n1..n3). Default: a new temporary "
          + "directory, deleted at the end.")
  Path dir;

  @Option(names = "--session-timeout", paramLabel = "TIME", defaultValue = "4s", converter = DurationConverter.class,
      description = "ZooKeeper session timeout: how long a crashed primary keeps its role (default: ${DEFAULT-VALUE}).")
  Duration sessionTimeout;

  private final CountDownLatch stop = new CountDownLatch(1);

  /** Asks the running service to stop gracefully (what SIGTERM does). */
  void shutdown() {
    stop.countDown();
  }

  @Override
  public Integer call() throws Exception {
    validate();
    Console out = new Console(spec.commandLine().getOut());
    boolean temporary = dir == null;
    Path root = temporary ? Files.createTempDirectory("nrt-example-") : dir.toAbsolutePath().normalize();
    List<SearchNode> nodes = new ArrayList<>();
    try (StopSignal signal = StopSignal.install("nrt-example", this::shutdown, Main.ownsJvm(), Duration.ofMinutes(1))) {
      boolean interrupted;
      try {
        if (zookeeper == null) {
          Hosts.requireFreeZooKeeperPort(zkPort);
          String zk = HostConfig.EMBEDDED;
          for (int id = 1; id <= 3; id++) {
            SearchNode n = start(id, root.resolve("n" + id), zk, 0, httpPort == 0 ? 0 : httpPort + id - 1, out);
            nodes.add(n);
            zk = n.host().zooKeeperConnectString();
          }
        } else {
          nodes.add(start(nodeId, root, zookeeper, port, httpPort, out));
        }
        printUsage(nodes, out);
        interrupted = awaitStop();
        out.println("stopping: every index commits and leaves");
      } finally {
        for (SearchNode n : nodes.reversed()) {
          Hosts.closeUninterruptibly(n);
        }
        if (temporary) {
          DemoCommand.deleteRecursively(root);
        }
      }
      out.println("stopped");
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
      return signal.done(0);
    }
  }

  private SearchNode start(int id, Path data, String zk, int replicationPort, int http, Console out) throws IOException {
    HostConfig host = HostConfig.builder().nodeId(id).cluster(cluster).dataDir(data).zooKeeper(zk)
        .embeddedZooKeeperPort(zkPort).bindHost(bind).port(replicationPort).sessionTimeout(sessionTimeout)
        .electionSettle(Duration.ofMillis(300)).transport(Hosts.transport()).build();
    SearchServiceConfig config = SearchServiceConfig.builder().host(host).httpPort(http).indexes(indexes).build();
    String what = "node N" + id + " could not start: ";
    SearchNode node;
    try {
      node = SearchNode.start(config, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), (n, role, gen) ->
          out.println(String.format(Locale.ROOT, "N%d/%s is now %s (generation %d)", id, n.index(), role, gen)));
    } catch (NrtClusterException e) {
      throw new NrtClusterException(e.code(), what + e.getMessage(), e);
    } catch (IOException | RuntimeException e) {
      throw new CliException(what + Main.describe(e), e);
    }
    out.println(String.format(Locale.ROOT, "N%d  http %s  replication %s  zookeeper %s  data %s", id, node.httpUrl(),
        node.host().address(), node.host().zooKeeperConnectString()
            + (config.host().embeddedZooKeeper() ? " (embedded)" : ""), data));
    return node;
  }

  private void printUsage(List<SearchNode> nodes, Console out) {
    String first = nodes.get(0).httpUrl().toString();
    String last = nodes.get(nodes.size() - 1).httpUrl().toString();
    String index = indexes.get(0);
    out.println("Try (any node takes writes and searches; Ctrl-C stops):");
    out.println("  curl -s -XPOST '" + first + "/indexes/" + index + "/docs?refresh=true' -H 'Content-Type: application/json' "
        + "-d '[{\"id\":\"1\",\"title\":\"near real time\"},{\"id\":\"2\",\"title\":\"segment replication\"}]'");
    out.println("  curl -s '" + last + "/indexes/" + index + "/search?q=replication&size=1'");
    out.println("  curl -s '" + last + "/indexes/" + index + "/search?q=*:*&size=1&after=<cursor of the previous reply>'");
    out.println("  curl -s '" + first + "/status'");
    out.println("  curl -s '" + first + "/metrics'");
  }

  private boolean awaitStop() {
    try {
      stop.await();
      return false;
    } catch (InterruptedException e) {
      return true;
    }
  }

  private void validate() {
    if (zookeeper != null && nodeId == null) {
      throw new ParameterException(spec.commandLine(), "--zookeeper runs one node: give its --node-id");
    }
    if (zookeeper == null && nodeId != null) {
      throw new ParameterException(spec.commandLine(), "--node-id needs --zookeeper (without it, three nodes N1-N3 run)");
    }
    if (nodeId != null && (nodeId < 1 || nodeId > 65535)) {
      throw new ParameterException(spec.commandLine(), "--node-id must be between 1 and 65535, got " + nodeId);
    }
    if (httpPort < 0 || httpPort > 65533 || port < 0 || port > 65535 || zkPort < 0 || zkPort > 65535) {
      throw new ParameterException(spec.commandLine(), "ports must be between 0 and 65535 (--http-port at most 65533)");
    }
    if (sessionTimeout.isZero() || sessionTimeout.isNegative() || sessionTimeout.compareTo(Duration.ofMinutes(10)) > 0) {
      throw new ParameterException(spec.commandLine(), "--session-timeout must be between 1ms and 10m, got "
          + Units.human(sessionTimeout));
    }
    try {
      // The builder names a bad index or cluster name.
      SearchServiceConfig.builder().host(HostConfig.builder().nodeId(1).cluster(cluster).dataDir(Path.of(".")).build())
          .indexes(indexes).build();
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }
}

package io.nrtcluster.node;

import io.micrometer.core.instrument.MeterRegistry;
import io.nrtcluster.common.ConnectionException;
import io.nrtcluster.common.Durations;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.transport.NodeAddress;
import io.nrtcluster.transport.Transport;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.lucene.util.IOUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One process's membership in a cluster: one replication server (Netty) and one ZooKeeper client
 * (Curator) shared by all the indexes (shards) this process hosts, each opened with {@link
 * #openIndex}. Optionally runs an embedded ZooKeeper server for a one-host trial.
 */
public final class NrtHost implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(NrtHost.class);

  private final HostConfig config;
  private final EmbeddedZooKeeper embedded;
  private final Transport transport;
  private final CuratorFramework curator;
  private final NodeAddress address;
  private final MeterRegistry registry;
  private final Map<String, ClusterNode> indexes = new ConcurrentHashMap<>();

  private NrtHost(HostConfig config, EmbeddedZooKeeper embedded, Transport transport, CuratorFramework curator, NodeAddress address,
      MeterRegistry registry) {
    this.config = config;
    this.registry = registry;
    this.embedded = embedded;
    this.transport = transport;
    this.curator = curator;
    this.address = address;
  }

  /**
   * Starts the host: the embedded ZooKeeper if asked for, the replication server, and the ZooKeeper
   * client. Fails with {@link ConnectionException} when ZooKeeper is unreachable within the
   * connection timeout or the port cannot be bound. No meters: see {@link #start(HostConfig,
   * MeterRegistry)}.
   */
  public static NrtHost start(HostConfig config) throws IOException {
    return start(config, null);
  }

  /**
   * Starts the host like {@link #start(HostConfig)} and registers, for every index it opens, the
   * meters named in {@link NrtMeters} in {@code registry} (tagged with the index and this node's
   * id); closing an index removes them. The meters follow role changes: whichever role the node
   * holds feeds the same meters. A null {@code registry} means no meters and no metrics work at
   * all, exactly as {@link #start(HostConfig)}.
   */
  public static NrtHost start(HostConfig config, MeterRegistry registry) throws IOException {
    Files.createDirectories(config.dataDir());
    EmbeddedZooKeeper embedded = null;
    Transport transport = null;
    CuratorFramework curator = null;
    try {
      String connect = config.zooKeeper();
      if (config.embeddedZooKeeper()) {
        embedded = EmbeddedZooKeeper.start(config.dataDir().resolve("zookeeper"), config.embeddedZooKeeperPort());
        connect = embedded.connectString();
        LOG.warn("N{}: started an embedded ZooKeeper at {}: for trials on one host only; production uses an ensemble",
            config.nodeId(), connect);
      }
      transport = Transport.create("N" + config.nodeId(), config.transport());
      NodeAddress address = transport.bind(config.bindHost(), config.port(), config.cluster()).localAddress();
      curator = CuratorFrameworkFactory.builder()
          .connectString(connect)
          .sessionTimeoutMs((int) config.sessionTimeout().toMillis())
          .connectionTimeoutMs((int) Math.min(config.connectionTimeout().toMillis(), config.sessionTimeout().toMillis()))
          .retryPolicy(new ExponentialBackoffRetry(100, 10, 2000))
          .build();
      curator.start();
      if (!curator.blockUntilConnected((int) config.connectionTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
        throw new ConnectionException("ZooKeeper at " + connect + " unreachable within " + Durations.format(config.connectionTimeout()));
      }
      LOG.info("N{}: host of cluster {} at {} (ZooKeeper {})", config.nodeId(), config.cluster(), address, connect);
      return new NrtHost(config, embedded, transport, curator, address, registry);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      close(curator, transport, embedded);
      throw new ConnectionException("interrupted while connecting to ZooKeeper", e);
    } catch (IOException | RuntimeException e) {
      close(curator, transport, embedded);
      throw e;
    }
  }

  private static void close(CuratorFramework curator, Transport transport, EmbeddedZooKeeper embedded) {
    if (curator != null) {
      curator.close();
    }
    if (transport != null) {
      transport.close();
    }
    if (embedded != null) {
      embedded.close();
    }
  }

  /**
   * Joins {@code settings.name()} as a member: serves the local index at once, then becomes primary
   * or replica as the election decides. {@code listeners} hear every role change, the first included.
   */
  public ClusterNode openIndex(IndexSettings settings, RoleListener... listeners) throws NrtClusterException, IOException {
    if (indexes.containsKey(settings.name())) {
      throw new IllegalStateException("index " + settings.name() + " is already open on this host");
    }
    ClusterNode node = ClusterNode.open(this, settings, listeners);
    indexes.put(settings.name(), node);
    return node;
  }

  /** The open index {@code name}, or null. */
  public ClusterNode index(String name) {
    return indexes.get(name);
  }

  /** The meters of {@code node}, registered now; nothing at all without a registry. */
  IndexMetrics metricsFor(ClusterNode node) {
    return registry == null ? IndexMetrics.NONE : new MicrometerIndexMetrics(registry, node, config.nodeId(), node.index());
  }

  HostConfig config() {
    return config;
  }

  /** The host's one transport (all indexes' replication traffic), for its fault-injection switch and statistics. */
  public Transport transport() {
    return transport;
  }

  CuratorFramework curator() {
    return curator;
  }

  /** The replication address other nodes reach this one at. */
  public NodeAddress address() {
    return address;
  }

  public int nodeId() {
    return config.nodeId();
  }

  /** ZooKeeper connect string in use (the embedded server's when embedded). */
  public String zooKeeperConnectString() {
    return embedded != null ? embedded.connectString() : config.zooKeeper();
  }

  void forget(ClusterNode node) {
    indexes.remove(node.index(), node);
  }

  /**
   * Stops at once, as a crash looks to the rest of the cluster: the ZooKeeper session and every
   * connection end first, then local files are closed without committing or resigning anything.
   * For operators' emergency stops and for tests that need an abrupt failure in one JVM.
   */
  public void halt() {
    // Recipes first: Curator's recipes misbehave when their client closes under them. The session
    // end then removes this node's ephemeral znodes at once, as a crash would after the timeout.
    List<ClusterNode> nodes = List.copyOf(indexes.values());
    for (ClusterNode node : nodes) {
      node.leaveElectionAbruptly();
    }
    curator.close();
    transport.close();
    for (ClusterNode node : nodes) {
      node.halt();
    }
    if (embedded != null) {
      embedded.close();
    }
  }

  /** Gracefully leaves: every index commits and resigns, then the client, server and ZooKeeper stop. */
  @Override
  public void close() throws IOException {
    try {
      IOUtils.close(indexes.values());
    } finally {
      close(curator, transport, embedded);
    }
  }
}

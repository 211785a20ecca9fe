package io.nrtcluster.node;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.nrtcluster.common.ConnectionException;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.Stable;
import io.nrtcluster.election.ElectionConfig;
import io.nrtcluster.election.EmbeddedZooKeeper;
import io.nrtcluster.election.HostDirectory;
import io.nrtcluster.election.IndexElection;
import io.nrtcluster.election.MemberMetadata;
import io.nrtcluster.election.Placement;
import io.nrtcluster.election.PlacementSource;
import io.nrtcluster.election.ZkLayout;
import io.nrtcluster.election.ZooKeeperAccess;
import io.nrtcluster.election.ZooKeeperSession;
import io.nrtcluster.transport.NodeAddress;
import io.nrtcluster.transport.Transport;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.lucene.util.IOUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One process's membership in a cluster: one replication server (Netty) and one ZooKeeper client
 * (Curator) shared by all the indexes (shards) this process hosts, each opened with {@link
 * #openIndex}, and one set of thread pools ({@link HostThreads}) that every index's background work
 * runs on, so an index costs no thread of its own. Optionally runs an embedded ZooKeeper server for
 * a one-host trial.
 *
 * <p>Placement: the host publishes which of its indexes it leads in its record under {@link
 * ZkLayout#hostsPath} and keeps one cache of every host's record ({@link HostDirectory}), which all
 * its indexes' elections weigh (among equally up-to-date candidates, the host with fewer primaries
 * wins); its {@link Rebalancer} hands its own primaries off to hosts holding fewer ({@link
 * HostConfig#rebalance}).
 */
@Stable
public final class NrtHost implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(NrtHost.class);

  private final HostConfig config;
  private final EmbeddedZooKeeper embedded;
  private final Transport transport;
  private final ZooKeeperSession zk;
  private final NodeAddress address;
  private final MeterRegistry registry;
  private final HostExecutors executors;
  private final Map<String, ClusterNode> indexes = new ConcurrentHashMap<>();
  private final HostDirectory directory;
  private final Rebalancer rebalancer;
  private final Counter rebalanceHandoffs;
  /** The transport's byte meters; removed with the host's other meters. */
  private final List<Meter> transportMeters = new ArrayList<>();
  /** Orders the computations of this host's record with their publication. */
  private final Object leadershipLock = new Object();
  private volatile Map<String, String> memberMetadata;

  private NrtHost(HostConfig config, EmbeddedZooKeeper embedded, Transport transport, ZooKeeperSession zk, NodeAddress address,
      MeterRegistry registry, HostDirectory directory, HostExecutors executors) {
    this.config = config;
    this.executors = executors;
    this.registry = registry;
    this.embedded = embedded;
    this.transport = transport;
    this.zk = zk;
    this.address = address;
    this.memberMetadata = config.memberMetadata();
    this.directory = directory;
    this.rebalanceHandoffs = registry == null ? null
        : registry.counter(NrtMeters.REBALANCE_HANDOFFS, NrtMeters.TAG_NODE, Integer.toString(config.nodeId()));
    if (registry != null) {
      String node = Integer.toString(config.nodeId());
      transportMeters.add(FunctionCounter.builder(NrtMeters.TRANSPORT_BYTES_SENT, transport,
              t -> t.traffic().bytesSent()).baseUnit("bytes").tag(NrtMeters.TAG_NODE, node).register(registry));
      transportMeters.add(FunctionCounter.builder(NrtMeters.TRANSPORT_BYTES_RECEIVED,
              transport, t -> t.traffic().bytesReceived()).baseUnit("bytes").tag(NrtMeters.TAG_NODE, node)
          .register(registry));
    }
    NodeLog log = new NodeLog(LoggerFactory.getLogger(Rebalancer.class), "N" + config.nodeId(), () -> -1);
    this.rebalancer = new Rebalancer(config, zk, directory, indexes::values, this::leadershipChanged,
        () -> {
          if (rebalanceHandoffs != null) {
            rebalanceHandoffs.increment();
          }
        }, log, System::nanoTime);
    rebalancer.start();
  }

  /**
   * Starts the host: the embedded ZooKeeper if asked for, the replication server, and the ZooKeeper
   * client. Fails with {@link ConnectionException} when ZooKeeper is unreachable within the
   * connection timeout or the port cannot be bound, and with {@link
   * io.nrtcluster.common.ZooKeeperAccessException} before joining anything when the configured
   * ZooKeeper credentials (or their absence) cannot use every znode of the cluster, or when
   * credentials are configured and some of them are still open to anyone. No meters: see {@link
   * #start(HostConfig, MeterRegistry)}.
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
    ZooKeeperSession zk = null;
    HostDirectory directory = null;
    HostExecutors executors = null;
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
      zk = ZooKeeperSession.builder().connectString(connect).auth(config.zooKeeperAuth())
          .sessionTimeout(config.sessionTimeout()).connectionTimeout(config.connectionTimeout()).connect();
      // Wrong credentials are only found out by a denied operation: check them before anything runs.
      ZooKeeperAccess.verify(zk, config.cluster());
      if (config.zooKeeperAuth() != null && ZooKeeperAccess.sharedRootOpen(zk)) {
        LOG.warn("N{}: {} (shared by every cluster on this ZooKeeper) is open to anyone: anyone can list the cluster "
            + "names and add clusters there; this cluster's own znodes are protected (docs/operations.md)", config.nodeId(), ZkLayout.ROOT);
      }
      directory = new HostDirectory(zk, config.cluster(), config.nodeId(),
          new NodeLog(LoggerFactory.getLogger(HostDirectory.class), "N" + config.nodeId(), () -> -1));
      directory.start(config.connectionTimeout());
      LOG.info("N{}: host of cluster {} at {} (ZooKeeper {}, {}; rebalancing {})", config.nodeId(), config.cluster(), address,
          connect, config.zooKeeperAuth() == null ? "no authentication, open ACLs" : "digest user " + config.zooKeeperAuth().user(),
          config.rebalance() ? "on, " + config.maxConcurrentHandoffs() + " hand-off(s) at a time" : "off");
      executors = new HostExecutors(config.nodeId(), config.threads());
      return new NrtHost(config, embedded, transport, zk, address, registry, directory, executors);
    } catch (IOException | RuntimeException e) {
      close(directory, zk, transport, embedded);
      if (executors != null) {
        executors.close();
      }
      throw e;
    }
  }

  private static void close(HostDirectory directory, ZooKeeperSession zk, Transport transport, EmbeddedZooKeeper embedded) {
    if (directory != null) {
      directory.close();
    }
    if (zk != null) {
      zk.close();
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
    // It may have won its epoch while opening, before the map held it.
    leadershipChanged();
    // A setMemberMetadata that ran while the index opened may not have seen it in the map: the
    // volatile write there comes before its look at the map, the put here before this read.
    IndexElection election = node.election();
    if (election != null) {
      election.setMemberMetadata(memberMetadata);
    }
    return node;
  }

  /** The election settings of index {@code index} on this host: its place in ZooKeeper and this host's timings. */
  ElectionConfig electionConfig(String index) {
    return ElectionConfig.builder()
        .layout(ZkLayout.of(config.cluster(), index))
        .nodeId(nodeId())
        .address(address().toString())
        .settleTime(config.electionSettle())
        .retryInterval(config.electionSettle())
        .zkTimeout(config.connectionTimeout())
        .automatic(config.automaticFailover())
        .suspicionDelay(config.suspicionDelay())
        .memberMetadata(memberMetadata())
        .build();
  }

  /** The application metadata this host publishes with its membership of every index. */
  public Map<String, String> memberMetadata() {
    return memberMetadata;
  }

  /**
   * Replaces the application metadata every index of this host publishes with its membership
   * (indexes opened later start with it too), at once and without waiting for ZooKeeper; peers see
   * it in {@link ClusterNode#members()}. An {@link IllegalArgumentException} naming the bad entry,
   * and nothing changes, when it is out of the bounds of {@link MemberMetadata}.
   */
  public void setMemberMetadata(Map<String, String> metadata) {
    Map<String, String> checked = MemberMetadata.checked("memberMetadata", metadata);
    memberMetadata = checked;
    for (ClusterNode node : indexes.values()) {
      IndexElection election = node.election();
      if (election != null) {
        election.setMemberMetadata(checked);
      }
    }
  }

  /** The cluster this host belongs to. */
  public String cluster() {
    return config.cluster();
  }

  /**
   * The node directory of index {@code name} ({@code <data dir>/<name>}: the Lucene index in {@code
   * index/}, the node's durable facts in {@code node.state}), whether or not it is open: where tools
   * that prepare an index before it opens (a restore, a bootstrap from backups) work.
   */
  public Path indexDirectory(String name) {
    return config.dataDir().resolve(IndexSettings.standard(name).name());
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

  /** Where this host's elections read who leads how many indexes (every host's record). */
  PlacementSource placement() {
    return directory;
  }

  /**
   * Who leads what, by host, as this host last saw the hosts' records (its own entry always
   * current): the elections' and the rebalancing's input.
   */
  public Placement placementView() {
    return directory.current();
  }

  /**
   * One of this host's indexes may have gained or lost the primary role (won an epoch, stepped
   * down, closed): publishes the indexes whose election holds the epoch now. Never waits for
   * ZooKeeper; the computation and its publication are ordered, so an older picture never
   * overwrites a newer one.
   */
  void leadershipChanged() {
    synchronized (leadershipLock) {
      Set<String> led = new TreeSet<>();
      for (ClusterNode n : indexes.values()) {
        IndexElection e = n.election();
        if (e != null && e.hold().claimed()) {
          led.add(n.index());
        }
      }
      directory.lead(led);
    }
  }

  /** The host's one transport (all indexes' replication traffic), for its fault-injection switch and statistics. */
  public Transport transport() {
    return transport;
  }

  /** The host's shared thread pools, which every index's background work runs on. */
  HostExecutors executors() {
    return executors;
  }

  /** The host's one ZooKeeper session, shared by all its indexes. */
  ZooKeeperSession zooKeeper() {
    return zk;
  }

  /** The replication address other nodes reach this one at. */
  public NodeAddress address() {
    return address;
  }

  /** This host's node id, the same for every index it hosts. */
  public int nodeId() {
    return config.nodeId();
  }

  /** ZooKeeper connect string in use (the embedded server's when embedded). */
  public String zooKeeperConnectString() {
    return embedded != null ? embedded.connectString() : config.zooKeeper();
  }

  void forget(ClusterNode node) {
    indexes.remove(node.index(), node);
    leadershipChanged();
  }

  /**
   * Stops at once, as a crash looks to the rest of the cluster: the ZooKeeper session and every
   * connection end first, then local files are closed without committing or resigning anything.
   * For operators' emergency stops and for tests that need an abrupt failure in one JVM.
   */
  public void halt() {
    // Recipes first: Curator's recipes misbehave when their client closes under them. The session
    // end then removes this node's ephemeral znodes at once, as a crash would after the timeout.
    rebalancer.stop(Duration.ZERO);
    List<ClusterNode> nodes = List.copyOf(indexes.values());
    for (ClusterNode node : nodes) {
      node.leaveElectionAbruptly();
    }
    directory.close();
    removeMeters();
    zk.close();
    transport.close();
    for (ClusterNode node : nodes) {
      node.halt();
    }
    executors.halt();
    if (embedded != null) {
      embedded.close();
    }
  }

  /** Gracefully leaves: every index commits and resigns, then the client, server and ZooKeeper stop. */
  @Override
  public void close() throws IOException {
    rebalancer.stop(config.connectionTimeout());
    try {
      IOUtils.close(indexes.values());
    } finally {
      removeMeters();
      try {
        close(directory, zk, transport, embedded);
      } finally {
        // Last: closing indexes waits for their tasks on these pools.
        executors.close();
      }
    }
  }

  private void removeMeters() {
    if (rebalanceHandoffs != null) {
      registry.remove(rebalanceHandoffs);
    }
    transportMeters.forEach(m -> registry.remove(m));
  }
}

package io.nrtcluster.cli;

import io.nrtcluster.cli.Main.CliException;
import io.nrtcluster.common.Checks;
import io.nrtcluster.common.ExecutorSource;
import io.nrtcluster.election.ElectionConfig;
import io.nrtcluster.node.ClusterNode;
import io.nrtcluster.node.HostConfig;
import io.nrtcluster.node.HostThreads;
import io.nrtcluster.node.IndexSettings;
import io.nrtcluster.primary.CopyTreeConfig;
import io.nrtcluster.node.NrtHost;
import io.nrtcluster.objectstore.HostObjectStore;
import io.nrtcluster.objectstore.HostStoreConfig;
import io.nrtcluster.objectstore.StoreFollowerConfig;
import io.nrtcluster.objectstore.StoreFollowers;
import io.nrtcluster.transport.TransportConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code nrt node}: one cluster node in the foreground (one {@link NrtHost}, one {@link ClusterNode}
 * per {@code --index}) until SIGTERM or Ctrl-C, then a graceful leave (each index commits and
 * resigns) and exit code 0.
 */
@Command(
    name = "node",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Runs one cluster node in the foreground: joins each --index, becomes its primary or a replica as the "
          + "ZooKeeper election decides, and follows role changes, until SIGTERM or Ctrl-C; then every index "
          + "commits and resigns and the node exits with code 0.",
      "Prints on stdout one line at start, one per role change (role, generation, version, primary address) and "
          + "a status line per index every --status-every."
    })
public final class NodeCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--zk", paramLabel = "HOST:PORT|embedded",
      description = "ZooKeeper connect string (host:port[,host:port...]), or 'embedded' to run a single ZooKeeper "
          + "server in this process (trials on one host only: it is a single point of failure).")
  String zk;

  @Mixin ZooKeeperAuthOptions zkAuth;

  @Option(names = "--zk-port", paramLabel = "PORT", defaultValue = "2181",
      description = "Client port of the embedded ZooKeeper (with --zk embedded; default: ${DEFAULT-VALUE}).")
  int zkPort;

  @Option(names = "--cluster", required = true, paramLabel = "NAME", description = "Cluster name.")
  String cluster;

  @Option(names = "--index", required = true, paramLabel = "NAME",
      description = "Index (shard) to join; repeat for several indexes.")
  List<String> indexes;

  @Option(names = "--direct-replicas", paramLabel = "N", defaultValue = "2",
      description = "Replicas (and every in-sync one) that copy from the primary; the others copy from a replica "
          + "that already holds each file, and never join the in-sync set. 0: every replica copies from the primary. "
          + "Default: ${DEFAULT-VALUE}.")
  int directReplicas;

  @Option(names = "--copy-fanout", paramLabel = "N", defaultValue = "2",
      description = "Most replicas that copy from one replica (1 to 64). Default: ${DEFAULT-VALUE}.")
  int copyFanOut;

  @Option(names = "--data", required = true, paramLabel = "DIR",
      description = "Node directory: one subdirectory per index, node.id, and the embedded ZooKeeper's data.")
  Path data;

  @Option(names = "--port", paramLabel = "PORT",
      description = "Replication port (0: any free port). Required, except with --follow-store.")
  Integer port;

  @Option(names = "--follow-store",
      description = "Follow each index through the object store alone (needs --backup-bucket): no ZooKeeper, no "
          + "replication port, never a primary nor in an election; serves the newest point the primaries backed up "
          + "(--backup-mode point on them for NRT freshness).")
  boolean followStore;

  @Option(names = "--follow-poll", paramLabel = "TIME", defaultValue = "500ms", converter = DurationConverter.class,
      description = "With --follow-store: how often the store is asked for a newer point (default: ${DEFAULT-VALUE}).")
  Duration followPoll;

  @Option(names = "--id", paramLabel = "N",
      description = "Node id, unique in the cluster (1-65535). Default: the id kept in DIR/node.id, a random one "
          + "created on first start.")
  Integer id;

  @Option(names = "--bind", paramLabel = "HOST", defaultValue = "127.0.0.1",
      description = "Address to listen on and advertise to the other nodes (default: ${DEFAULT-VALUE}).")
  String bind;

  @Option(names = "--session-timeout", paramLabel = "TIME", defaultValue = "10s", converter = DurationConverter.class,
      description = "ZooKeeper session timeout: how long a dead node keeps its role (default: ${DEFAULT-VALUE}).")
  Duration sessionTimeout;

  @Option(names = "--connect-timeout", paramLabel = "TIME", defaultValue = "10s", converter = DurationConverter.class,
      description = "How long to wait for ZooKeeper at start (default: ${DEFAULT-VALUE}).")
  Duration connectTimeout;

  @Option(names = "--election-settle", paramLabel = "TIME", defaultValue = "500ms", converter = DurationConverter.class,
      description = "Wait after the primary vanished for members to report before electing (default: ${DEFAULT-VALUE}).")
  Duration electionSettle;

  @Option(names = "--suspicion-delay", paramLabel = "TIME", defaultValue = "500ms", converter = DurationConverter.class,
      description = "Failover on the replicas' evidence: how long a replica hears nothing from its primary before it "
          + "records a suspicion; a majority of suspicious replicas elects a new primary without waiting for the "
          + "session timeout. 0 turns it off; otherwise 20ms to 10m, above --heartbeat-interval "
          + "(default: ${DEFAULT-VALUE}).")
  Duration suspicionDelay;

  @Option(names = "--heartbeat-interval", paramLabel = "TIME", defaultValue = "100ms", converter = DurationConverter.class,
      description = "How often a replica pings its primary while suspicion is on (default: ${DEFAULT-VALUE}).")
  Duration heartbeatInterval;

  @Option(names = "--rebalance", negatable = true, defaultValue = "true", fallbackValue = "true",
      description = "Hand this node's primaries off to nodes holding fewer until every node holds within one of the "
          + "others (graceful: no acknowledged write lost; only to caught-up replicas, never during a failover). "
          + "--no-rebalance keeps them where the elections put them (default: on; use the same on every node).")
  boolean rebalance;

  @Option(names = "--max-concurrent-handoffs", paramLabel = "N", defaultValue = "2",
      description = "How many of this node's primaries the rebalancing hands off at once, 1 to 64 (default: ${DEFAULT-VALUE}).")
  int maxConcurrentHandoffs;

  @Option(names = "--rebalance-quiet-period", paramLabel = "TIME", defaultValue = "10s", converter = DurationConverter.class,
      description = "How long after the last failover this node saw the rebalancing waits before it moves anything "
          + "(default: ${DEFAULT-VALUE}).")
  Duration rebalanceQuietPeriod;

  @Option(names = "--threads", paramLabel = "POOL=N", split = ",",
      description = "Most threads of one of the host's shared pools, which every index's background work runs on "
          + "(a thread starts only when all are busy and ends when idle); repeatable, e.g. --threads copy=8,work=16. "
          + "Pools and defaults: tick=2 (reports, heartbeats), election=32, events=32 (role switches), operator=4, "
          + "work=32 (catch-up, scrub, file checks), copy=32; 1 to 1024 each.")
  Map<String, Integer> threads = new LinkedHashMap<>();

  @Option(names = "--thread-idle", paramLabel = "TIME", defaultValue = "10s", converter = DurationConverter.class,
      description = "How long an idle pool thread lives before it ends (100ms to 1h; default: ${DEFAULT-VALUE}).")
  Duration threadIdle;

  @Option(names = "--status-every", paramLabel = "TIME", defaultValue = "5s", converter = DurationConverter.class,
      description = "Interval of the status lines (default: ${DEFAULT-VALUE}).")
  Duration statusEvery;

  @Mixin
  TlsOptions tls;

  @ArgGroup(exclusive = false, heading = "%nObject store (bootstrap, backups, retention):%n")
  NodeBackupOptions backup;

  /** Counted down to leave gracefully: by SIGTERM/SIGINT, or by tests through {@link #shutdown()}. */
  private final CountDownLatch stop = new CountDownLatch(1);

  /** Asks the running node to leave gracefully (what SIGTERM does). */
  void shutdown() {
    stop.countDown();
  }

  @Override
  public Integer call() throws Exception {
    validate();
    if (followStore) {
      return follow(new Console(spec.commandLine().getOut()));
    }
    copyTree(); // refuses a bad --direct-replicas or --copy-fanout before anything starts
    TransportConfig transport = tls.apply(Hosts.transport(), spec.commandLine(), System.getenv());
    Console out = new Console(spec.commandLine().getOut());
    if (HostConfig.EMBEDDED.equals(zk)) {
      Hosts.requireFreeZooKeeperPort(zkPort);
    }
    Path dir = dataDir();
    int nodeId = id != null ? id : NodeIdFile.read(dir, out);
    HostConfig config = HostConfig.builder().nodeId(nodeId).cluster(cluster).dataDir(dir).zooKeeper(zk)
        .embeddedZooKeeperPort(zkPort).bindHost(bind).port(port).sessionTimeout(sessionTimeout)
        .connectionTimeout(connectTimeout).electionSettle(electionSettle).transport(transport)
        .suspicionDelay(suspicionDelay).heartbeatInterval(heartbeatInterval)
        .rebalance(rebalance).maxConcurrentHandoffs(maxConcurrentHandoffs).rebalanceQuietPeriod(rebalanceQuietPeriod)
        .zooKeeperAuth(zkAuth.auth()).threads(hostThreads()).build();
    ScheduledExecutorService printer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "nrt-node-status");
      t.setDaemon(true);
      return t;
    });
    HostStoreConfig storeConfig = storeConfig();
    try (StopSignal signal = StopSignal.install("nrt-node", this::shutdown, Main.ownsJvm(), Duration.ofMinutes(1))) {
      NrtHost host = Hosts.start(config);
      HostObjectStore store = null;
      boolean interrupted = false;
      try {
        out.println(String.format(Locale.ROOT, "node N%d started: address=%s cluster=%s zookeeper=%s data=%s indexes=%s",
            nodeId, host.address(), cluster, Hosts.zooKeeper(host, config), dir, String.join(",", indexes)));
        if (storeConfig != null) {
          store = HostObjectStore.open(host, storeConfig);
          if (!store.storeAttached()) {
            out.println(NodeLines.storeState(nodeId, false, storeConfig));
          }
        }
        NodeLines.RolePrinter roles = new NodeLines.RolePrinter(printer, out::println);
        if (store == null) {
          for (String index : indexes) {
            roles.watch(host.openIndex(settings(index)));
          }
        } else {
          // Bootstraps run side by side; a store that does not answer cost the node one start timeout.
          HostObjectStore opening = store;
          LongSupplier bytes = () -> indexes.stream().mapToLong(i -> opening.metrics(i)
              .map(m -> m.snapshot().bytesDownloaded()).orElse(0L)).sum();
          LongSupplier files = () -> indexes.stream().mapToLong(i -> opening.metrics(i)
              .map(m -> m.snapshot().filesDownloaded()).orElse(0L)).sum();
          try (TerminalProgress progress = TerminalProgress.onTerminal()
              ? TerminalProgress.start("bootstrap from the store", spec.commandLine().getErr(), true, 0, 0, bytes, files)
              : TerminalProgress.NONE) {
            store.openIndexes(indexes.stream().map(this::settings).toList()).forEach(roles::watch);
          }
          for (String index : indexes) {
            store.bootstrapResult(index).ifPresent(r -> out.println(NodeLines.bootstrap(nodeId, index, r)));
            out.println(String.format(Locale.ROOT, "N%d/%s backups %s to %s", nodeId, index,
                storeConfig.backups() ? storeConfig.mode() : "off", store.layout(index).root()));
          }
        }
        long every = statusEvery.toMillis();
        StorePrinter storeLines = store == null ? null : new StorePrinter(store, storeConfig, nodeId, out);
        printer.scheduleAtFixedRate(() -> {
          printStatus(host, out);
          if (storeLines != null) {
            storeLines.print(indexes);
          }
        }, every, every, TimeUnit.MILLISECONDS);
        interrupted = awaitStop();
        out.println("node N" + nodeId + " stopping: each index commits and resigns");
      } finally {
        printer.shutdownNow();
        if (store != null) {
          // Before the host: the indexes it leads commit, and those commits are backed up (bounded).
          if (!store.close(interrupted ? Duration.ZERO : connectTimeout.multipliedBy(3))) {
            out.println("node N" + nodeId + ": the last backup of some index did not complete (see the log)");
          }
        }
        Hosts.closeUninterruptibly(host);
      }
      out.println("node N" + nodeId + " stopped");
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
      return signal.done(0);
    }
  }

  /** Waits for {@link #shutdown()} or a signal; an interrupt stops the node too (true then). */
  private boolean awaitStop() {
    try {
      stop.await();
      return false;
    } catch (InterruptedException e) {
      return true;
    }
  }

  private void printStatus(NrtHost host, Console out) {
    for (String index : indexes) {
      ClusterNode node = host.index(index);
      try {
        if (node != null) {
          out.println(NodeLines.status(node.status(), node.trafficByPeer(), node.replica() == null ? -1 : node.replica().copySource()));
        }
      } catch (RuntimeException e) {
        out.println("N" + host.nodeId() + "/" + index + " status unavailable: " + Main.describe(e));
      }
    }
  }

  /**
   * {@code --follow-store}: each index followed through the store ({@link StoreFollowers}), a status
   * line per index every {@code --status-every}, until a signal or {@link #shutdown()}.
   */
  private int follow(Console out) throws Exception {
    HostStoreConfig storeConfig = storeConfig();
    Path dir = dataDir();
    int nodeId = id != null ? id : NodeIdFile.read(dir, out);
    StoreFollowerConfig followerConfig;
    try {
      followerConfig = StoreFollowerConfig.builder().pollInterval(followPoll).build();
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--follow-poll: " + e.getMessage());
    }
    try (StopSignal signal = StopSignal.install("nrt-follower", this::shutdown, Main.ownsJvm(), Duration.ofMinutes(1));
        StoreFollowers followers = StoreFollowers.open(nodeId, cluster, dir, storeConfig, followerConfig, null)) {
      for (String index : indexes) {
        followers.follow(index);
      }
      out.println(String.format(Locale.ROOT, "follower F%d started: cluster=%s bucket=%s data=%s indexes=%s", nodeId,
          cluster, storeConfig.store().bucket(), dir, String.join(",", indexes)));
      ScheduledExecutorService printer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "nrt-follower-status");
        t.setDaemon(true);
        return t;
      });
      boolean interrupted;
      try {
        long every = statusEvery.toMillis();
        printer.scheduleAtFixedRate(() -> indexes.forEach(index -> followers.follower(index)
            .ifPresent(f -> out.println(NodeLines.follower(nodeId, index, f.status())))), every, every, TimeUnit.MILLISECONDS);
        interrupted = awaitStop();
      } finally {
        printer.shutdownNow();
      }
      out.println("follower F" + nodeId + " stopped");
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
      return signal.done(0);
    }
  }

  private void validate() {
    if (followStore) {
      if (backup == null) {
        throw new ParameterException(spec.commandLine(), "--follow-store needs --backup-bucket: it follows the store");
      }
      if (zk != null || port != null) {
        throw new ParameterException(spec.commandLine(), "--follow-store takes no --zk and no --port: a follower "
            + "never joins the cluster");
      }
    } else if (zk == null || port == null) {
      throw new ParameterException(spec.commandLine(), "Missing required option: " + (zk == null ? "'--zk=HOST:PORT|embedded'"
          : "'--port=PORT'"));
    }
    if (id != null && (id < 1 || id > 65535)) {
      throw new ParameterException(spec.commandLine(), "--id must be between 1 and 65535, got " + id);
    }
    if ((port != null && (port < 0 || port > 65535)) || zkPort < 0 || zkPort > 65535) {
      throw new ParameterException(spec.commandLine(), "--port and --zk-port must be between 0 and 65535");
    }
    if (new LinkedHashSet<>(indexes).size() != indexes.size()) {
      throw new ParameterException(spec.commandLine(), "--index names the same index twice: " + indexes);
    }
    if (HostConfig.EMBEDDED.equals(zk) && indexes.contains("zookeeper")) {
      throw new ParameterException(spec.commandLine(), "with --zk embedded, DIR/zookeeper holds ZooKeeper's data: "
          + "choose another --index name than 'zookeeper'");
    }
    if (maxConcurrentHandoffs < 1 || maxConcurrentHandoffs > 64) {
      throw new ParameterException(spec.commandLine(), "--max-concurrent-handoffs must be between 1 and 64, got "
          + maxConcurrentHandoffs);
    }
    for (Duration d : List.of(sessionTimeout, connectTimeout, electionSettle, statusEvery, rebalanceQuietPeriod)) {
      if (d.isZero() || d.isNegative() || d.compareTo(Duration.ofHours(1)) > 0) {
        throw new ParameterException(spec.commandLine(), "durations must be between 1ms and 1h, got " + Units.human(d));
      }
    }
    try {
      ElectionConfig.checkSuspicionDelay("--suspicion-delay", suspicionDelay);
      Checks.atMost("--heartbeat-interval", heartbeatInterval, Duration.ofSeconds(10));
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    if (!suspicionDelay.isZero() && heartbeatInterval.compareTo(suspicionDelay) >= 0) {
      throw new ParameterException(spec.commandLine(), "--heartbeat-interval must be below --suspicion-delay");
    }
    hostThreads();
  }

  /** The object store settings of the --backup-* options, or null; a usage error (exit 2) naming a bad value. */
  private HostStoreConfig storeConfig() throws IOException {
    if (backup == null) {
      return null;
    }
    try {
      return backup.config();
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage().startsWith("--") ? e.getMessage()
          : "--backup-*: " + e.getMessage());
    }
  }

  /** The pool sizes of --threads and --thread-idle; a usage error (exit 2) naming a bad pool or size. */
  HostThreads hostThreads() {
    try {
      HostThreads t = HostThreads.builder().idleTimeout(threadIdle).build();
      for (Map.Entry<String, Integer> e : threads.entrySet()) {
        ExecutorSource.Pool pool = Arrays.stream(ExecutorSource.Pool.values())
            .filter(p -> p.name().equalsIgnoreCase(e.getKey())).findFirst()
            .orElseThrow(() -> new IllegalArgumentException("--threads names no pool '" + e.getKey() + "' (pools: "
                + Arrays.stream(ExecutorSource.Pool.values()).map(p -> p.name().toLowerCase(Locale.ROOT)).toList() + ")"));
        t = t.with(pool, e.getValue());
      }
      return t;
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage().startsWith("--") ? e.getMessage() : "--threads/--thread-idle: "
          + e.getMessage());
    }
  }

  /** The node directory, created if needed; a {@link CliException} if it cannot be used. */
  private Path dataDir() {
    Path dir = data.toAbsolutePath().normalize();
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new CliException("data directory " + dir + " is not usable: " + Main.describe(e), e);
    }
    if (!Files.isWritable(dir)) {
      throw new CliException("data directory " + dir + " is not usable: not writable");
    }
    return dir;
  }

  /** An index's settings with the copy tree of {@code --direct-replicas} and {@code --copy-fanout}. */
  private IndexSettings settings(String index) {
    return IndexSettings.standard(index).withCopyTree(copyTree());
  }

  private CopyTreeConfig copyTree() {
    try {
      return directReplicas == 0 ? CopyTreeConfig.OFF
          : new CopyTreeConfig(directReplicas, copyFanOut, CopyTreeConfig.defaults().parentWait());
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--direct-replicas/--copy-fanout: " + e.getMessage()
          + " (--direct-replicas 0 to 1024, --copy-fanout 1 to 64)");
    }
  }
}

package io.nrtcluster.stress.agent;

import io.nrtcluster.node.ClusterNode;
import io.nrtcluster.node.HostConfig;
import io.nrtcluster.node.IndexSettings;
import io.nrtcluster.node.NrtHost;
import io.nrtcluster.node.ReplicaTuning;
import io.nrtcluster.objectstore.BackupMode;
import io.nrtcluster.objectstore.BootstrapResult;
import io.nrtcluster.objectstore.HostObjectStore;
import io.nrtcluster.objectstore.HostStoreConfig;
import io.nrtcluster.objectstore.ObjectStoreConfig;
import io.nrtcluster.objectstore.RetentionPolicy;
import io.nrtcluster.transport.FaultInjection;
import io.nrtcluster.transport.TransportConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * One chaos node process: the real embeddable node ({@link NrtHost} and one {@link ClusterNode})
 * with its transport's fault-injection point switchable, and the {@link AgentServer} the harness
 * drives it through. Writes {@code ready.json} into its directory once it serves; leaves gracefully
 * (commit, resign) on SIGTERM or {@code POST /shutdown}; dies however the harness kills it. With
 * {@code --store-endpoint} the index opens through a {@link HostObjectStore}: bootstrapped from the
 * newest backup first (the outcome goes into {@code ready.json}), backed up while this node leads,
 * old backups swept.
 */
@Command(name = "chaos-node", mixinStandardHelpOptions = true, description = "A node process of the chaos test.")
public final class ChaosNodeMain implements Callable<Integer> {
  private static final Logger LOG = LoggerFactory.getLogger(ChaosNodeMain.class);

  @Option(names = "--zk", required = true, description = "ZooKeeper connect string.")
  String zk;

  @Option(names = "--cluster", required = true)
  String cluster;

  @Option(names = "--index", required = true)
  String index;

  @Option(names = "--data", required = true, description = "The node's directory.")
  Path data;

  @Option(names = "--id", required = true)
  int id;

  @Option(names = "--session-timeout-ms", defaultValue = "4000")
  long sessionTimeoutMs;

  @Option(names = "--fault-seed", defaultValue = "1", description = "Seed of the wire fault injection.")
  long faultSeed;

  @Option(names = "--http-port", defaultValue = "0")
  int httpPort;

  @Option(names = "--drop-every-nth-write", defaultValue = "0",
      description = "Harness self-test only: acknowledge but silently drop every Nth write (0: never), so a run "
          + "must end with lost documents and an invalid verdict.")
  int dropEveryNthWrite;

  @Option(names = "--ack-unpublished-every", defaultValue = "0",
      description = "Harness self-test only: answer every Nth refresh with a version one above the one published "
          + "(0: never), so a run must end with an unpublished acknowledgement and an invalid verdict.")
  int ackUnpublishedEvery;

  @Option(names = "--bind-host", defaultValue = "127.0.0.1",
      description = "Address the replication transport and the control endpoint listen on (and advertise).")
  String bindHost;

  @Mixin StoreOptions storeOptions;

  @Option(names = "--store-backups", defaultValue = "EVERY_COMMIT", description = "EVERY_COMMIT or EVERY_POINT.")
  BackupMode storeBackups;

  @Option(names = "--store-keep-last", defaultValue = "3", description = "Retention: the newest backups kept.")
  int storeKeepLast;

  @Option(names = "--store-sweep-ms", defaultValue = "5000", description = "Retention: how often the primary sweeps.")
  long storeSweepMs;

  private final CountDownLatch stopped = new CountDownLatch(1);
  private final AtomicBoolean stopping = new AtomicBoolean();

  public static void main(String[] args) {
    System.exit(new CommandLine(new ChaosNodeMain()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    Files.createDirectories(data);
    Files.deleteIfExists(data.resolve(AgentApi.Ready.FILE));
    TransportConfig transport = TransportConfig.builder().ioThreads(2).requestThreads(8)
        .faults(FaultInjection.builder().switchable(true).seed(faultSeed).build()).build();
    HostConfig config = HostConfig.builder().nodeId(id).cluster(cluster).dataDir(data).zooKeeper(zk)
        .bindHost(bindHost).port(0).sessionTimeout(Duration.ofMillis(sessionTimeoutMs))
        .connectionTimeout(Duration.ofSeconds(30)).electionSettle(Duration.ofMillis(500)).transport(transport)
        // Wire faults flip bits on purpose: a file reported after repeated flips (the primary finds it
        // intact) waits seconds before the next try, not the production default of up to minutes.
        .replicaTuning(ReplicaTuning.builder().badFileBackoff(Duration.ofMillis(200), Duration.ofSeconds(5))
            .scrub(AgentApi.SCRUB).build())
        .build();
    NrtHost host = NrtHost.start(config);
    HostObjectStore store = storeOptions.enabled() ? HostObjectStore.open(host, storeConfig()) : null;
    ClusterNode node = store == null ? host.openIndex(IndexSettings.standard(index))
        : store.openIndex(IndexSettings.standard(index));
    BootstrapResult boot = store == null ? null : store.bootstrapResult(index).orElse(null);
    VersionClock clock = new VersionClock(node::searchingVersion, 5);
    AgentServer agent = new AgentServer(host, node, clock, bindHost, httpPort, dropEveryNthWrite, ackUnpublishedEvery,
        () -> stop(host, store));
    Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(host, store), "chaos-node-sigterm"));
    AgentApi.Ready ready = new AgentApi.Ready(ProcessHandle.current().pid(), bindHost, agent.port(),
        host.address().toString(), boot == null ? null : boot.outcome().name(),
        boot == null || boot.manifest() == null ? -1 : boot.manifest().version());
    ready.writeTo(data);
    LOG.info("N{}: chaos node serving: {}", id, ready);
    stopped.await();
    agent.close();
    clock.close();
    return 0;
  }

  /** The store as the harness gave it: quick retries and timeouts, so an outage is seen within seconds. */
  private HostStoreConfig storeConfig() throws IOException {
    ObjectStoreConfig.Builder store = storeOptions.config().maxAttempts(3).backoff(Duration.ofMillis(50), Duration.ofMillis(500))
        .connectTimeout(Duration.ofSeconds(1)).socketTimeout(Duration.ofSeconds(10))
        .partSize(ObjectStoreConfig.MIN_PART_SIZE).multipartThreshold(ObjectStoreConfig.MIN_PART_SIZE)
        .backupLease(Duration.ofSeconds(60)).sweepLease(Duration.ofSeconds(10)).clockMargin(Duration.ofSeconds(2));
    return HostStoreConfig.builder().store(store.build()).backups(true).mode(storeBackups).bootstrap(true)
        .retention(RetentionPolicy.keepLast(storeKeepLast)).retentionInterval(Duration.ofMillis(storeSweepMs))
        // Verification under chaos too (every primary rereads its newest backup), paced to spare the 2 cores.
        .verifyInterval(Duration.ofSeconds(30)).verifyBytesPerSecond(8L << 20).startTimeout(Duration.ofSeconds(2)).build();
  }

  /** Leaves gracefully: backups stop, the index commits and resigns, the host closes. Runs once. */
  private void stop(NrtHost host, HostObjectStore store) {
    if (!stopping.compareAndSet(false, true)) {
      try {
        stopped.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return;
    }
    try {
      LOG.info("N{}: leaving gracefully", id);
      if (store != null) {
        store.close(); // before the host, as HostObjectStore asks
      }
      host.close();
    } catch (Exception e) {
      LOG.warn("N{}: graceful close failed", id, e);
    } finally {
      stopped.countDown();
    }
  }
}

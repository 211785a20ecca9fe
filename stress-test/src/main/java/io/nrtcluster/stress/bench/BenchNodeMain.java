package io.nrtcluster.stress.bench;

import io.nrtcluster.node.ClusterNode;
import io.nrtcluster.node.HostConfig;
import io.nrtcluster.node.IndexSettings;
import io.nrtcluster.node.NrtHost;
import io.nrtcluster.objectstore.BackupMode;
import io.nrtcluster.objectstore.HostObjectStore;
import io.nrtcluster.objectstore.HostStoreConfig;
import io.nrtcluster.objectstore.ObjectStoreConfig;
import io.nrtcluster.primary.CopyTreeConfig;
import io.nrtcluster.stress.agent.AgentApi;
import io.nrtcluster.stress.agent.StoreOptions;
import io.nrtcluster.transport.FaultInjection;
import io.nrtcluster.transport.TransportConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.index.IndexWriterConfig;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * A benchmark node process: either a cluster node (the embeddable node, role from ZooKeeper) or, with
 * {@code --standalone}, a single-node Lucene application (one IndexWriter, NRT readers reopened from
 * it): the baseline the cluster is compared with. Driven through a {@link BenchAgent}.
 */
@Command(name = "bench-node", mixinStandardHelpOptions = true, description = "A node process of the benchmarks.")
public final class BenchNodeMain implements Callable<Integer> {
  @Option(names = "--zk", description = "ZooKeeper connect string (cluster mode).")
  String zk;

  @Option(names = "--standalone", description = "A single-node application instead of a cluster node.")
  boolean standalone;

  @Option(names = "--data", required = true)
  Path data;

  @Option(names = "--id", defaultValue = "1")
  int id;

  @Option(names = "--session-timeout-ms", defaultValue = "4000")
  long sessionTimeoutMs;

  @Option(names = "--merge-wait-ms", defaultValue = "0",
      description = "IndexWriterConfig.maxFullFlushMergeWaitMillis of the writer.")
  long mergeWaitMs;

  @Option(names = "--cluster", defaultValue = "bench", description = "Cluster name in ZooKeeper.")
  String cluster;

  @Option(names = "--indexes", defaultValue = "0",
      description = "Host this many indexes (s000, s001, ...: the scale figure) instead of the one index 'bench'.")
  int indexes;

  @Option(names = "--link-delay-switch",
      description = "Install the transport's switchable fault points, so a link delay can be set while it runs (figure 8).")
  boolean linkDelaySwitch;

  @Option(names = "--ram-buffer-mb", defaultValue = "0",
      description = "IndexWriterConfig.ramBufferSizeMB of the writer (0: Lucene's default).")
  int ramBufferMb;

  /** With {@code --store-endpoint} the index opens through a HostObjectStore (the bootstrap figure). */
  @Mixin StoreOptions storeOptions;

  @Option(names = "--store-backups", description = "Back up every commit while this node leads.")
  boolean storeBackups;

  @Option(names = "--store-points", description = "With --store-backups: back up every published point, not every commit.")
  boolean storePoints;

  @Option(names = "--store-bootstrap", description = "Restore the newest backup before the index opens.")
  boolean storeBootstrap;

  @Option(names = "--copy-tree", paramLabel = "DIRECT,FANOUT[,WAIT_MS]|off",
      description = "The index's copy tree: replicas that copy from the primary, children per parent and how long a "
          + "child waits for its parent (ms, default 2000); 'off': every replica copies from the primary. Default: the "
          + "library's (CopyTreeConfig.defaults()).")
  String copyTree;

  private final CountDownLatch stopped = new CountDownLatch(1);

  /** Backups of every commit and/or the bootstrap, as the options say; long timeouts for large files. */
  private HostStoreConfig storeConfig() throws IOException {
    ObjectStoreConfig.Builder b = storeOptions.config().socketTimeout(Duration.ofMinutes(2)).backupLease(Duration.ofMinutes(30));
    return HostStoreConfig.builder().store(b.build()).backups(storeBackups).bootstrap(storeBootstrap)
        .mode(storePoints ? BackupMode.EVERY_POINT : BackupMode.EVERY_COMMIT)
        .build();
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new BenchNodeMain()).execute(args));
  }

  /** The copy tree {@code spec} names ({@code off} or {@code direct,fanOut[,parentWaitMs]}), or null for the default. */
  static CopyTreeConfig copyTree(String spec) {
    if (spec == null) {
      return null;
    }
    if (spec.equalsIgnoreCase("off")) {
      return CopyTreeConfig.OFF;
    }
    String[] parts = spec.split(",");
    if (parts.length < 2 || parts.length > 3) {
      throw new IllegalArgumentException("--copy-tree: 'off' or DIRECT,FANOUT[,WAIT_MS], not '" + spec + "'");
    }
    Duration wait = parts.length == 3 ? Duration.ofMillis(Long.parseLong(parts[2].trim())) : Duration.ofSeconds(2);
    return new CopyTreeConfig(Integer.parseInt(parts[0].trim()), Integer.parseInt(parts[1].trim()), wait);
  }

  /** The one index's settings, with the copy tree of {@code --copy-tree} when given. */
  private IndexSettings benchSettings() {
    IndexSettings s = new IndexSettings("bench", this::writerConfig);
    CopyTreeConfig tree = copyTree(copyTree);
    return tree == null ? s : s.withCopyTree(tree);
  }

  IndexWriterConfig writerConfig() {
    IndexWriterConfig c = new IndexWriterConfig(new StandardAnalyzer()).setMaxFullFlushMergeWaitMillis(mergeWaitMs);
    return ramBufferMb > 0 ? c.setRAMBufferSizeMB(ramBufferMb) : c;
  }

  @Override
  public Integer call() throws Exception {
    Files.createDirectories(data);
    Files.deleteIfExists(data.resolve(AgentApi.Ready.FILE));
    BenchAgent agent;
    String address;
    NrtHost host = null;
    HostObjectStore store = null;
    BootstrapEndpoints bootstrap = null;
    CopyTreeEndpoints copyTreeStatus = null;
    if (standalone) {
      agent = BenchAgent.standalone(id, data.resolve("index"), writerConfig(), stopped::countDown);
      address = "standalone";
    } else {
      if (zk == null) {
        throw new CommandLine.ParameterException(new CommandLine(this), "--zk or --standalone is required");
      }
      host = NrtHost.start(HostConfig.builder().nodeId(id).cluster(cluster).dataDir(data).zooKeeper(zk)
          .bindHost("127.0.0.1").port(0).sessionTimeout(Duration.ofMillis(sessionTimeoutMs))
          .connectionTimeout(Duration.ofSeconds(30)).electionSettle(Duration.ofMillis(300))
          .transport(TransportConfig.builder().ioThreads(2).requestThreads(8)
              .faults(linkDelaySwitch ? FaultInjection.builder().switchable(true).build() : FaultInjection.NONE).build())
          .build());
      // One after the other, as bin/nrt node opens its --index options.
      List<ClusterNode> open = new ArrayList<>();
      if (indexes == 0 && storeOptions.enabled()) {
        store = HostObjectStore.open(host, storeConfig());
        open.add(store.openIndex(benchSettings()));
      } else if (indexes == 0) {
        open.add(host.openIndex(benchSettings()));
      }
      for (int i = 0; i < indexes; i++) {
        open.add(host.openIndex(new IndexSettings(ScaleEndpoints.indexName(i), this::writerConfig)));
      }
      agent = BenchAgent.cluster(host, open, stopped::countDown);
      if (indexes == 0) {
        bootstrap = new BootstrapEndpoints("bench", open.get(0), store);
        bootstrap.register(agent);
        copyTreeStatus = new CopyTreeEndpoints(open.get(0), host);
        copyTreeStatus.register(agent);
      }
      address = host.address().toString();
    }
    AgentApi.Ready ready = new AgentApi.Ready(ProcessHandle.current().pid(), "127.0.0.1", agent.port(), address);
    ready.writeTo(data);
    stopped.await();
    if (bootstrap != null) {
      bootstrap.close();
    }
    if (copyTreeStatus != null) {
      copyTreeStatus.close();
    }
    agent.close();
    if (store != null) {
      store.close();
    }
    if (host != null) {
      host.close();
    }
    return 0;
  }
}

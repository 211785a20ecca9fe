package io.nrtcluster.objectstore;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.Stable;
import io.nrtcluster.election.Role;
import io.nrtcluster.node.ClusterNode;
import io.nrtcluster.node.IndexSettings;
import io.nrtcluster.node.NrtHost;
import io.nrtcluster.node.RoleListener;
import java.io.Closeable;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.LoggerFactory;

/**
 * An {@link NrtHost}'s indexes with an object store behind them: open each index through {@link
 * #openIndex} instead of {@link NrtHost#openIndex}, and, as {@link HostStoreConfig} says,
 *
 * <ul>
 *   <li>before the index opens, its directory is bootstrapped from the newest backup when it is empty
 *       or older ({@link NodeRestore#bootstrap}): only the difference is then copied from the primary,
 *       and a store that cannot be used leaves the directory as it was (the primary sends it all);
 *   <li>whenever this node leads the index, its commits (or every point) are backed up ({@link
 *       PrimaryBackups}): refreshes and writes never wait for the store, and an unreachable store makes
 *       backups fail, retry with the next point and count, while indexing and replication go on;
 *   <li>while it leads, the index's old backups are swept whenever the index's last sweep, by
 *       whichever node led it then, is {@link HostStoreConfig#retentionInterval()} old ({@link
 *       RetentionSchedule}, {@link RetentionRun}; {@link RetentionSweeper} is safe against a backup
 *       running at the same moment), on one thread shared by all the host's indexes that waits for
 *       nothing but the store.
 * </ul>
 *
 * The indexes share one store client and its connection pool ({@link BlobStore#view}); each has its
 * own {@link ObjectStoreMetrics} (so requests, bytes and backup lag are per index), registered as
 * {@link ObjectStoreMeters} tagged with the index and node when a registry is given. {@link #open}
 * fails at once, naming the bucket, on wrong credentials or a missing bucket (no retry loop); a store
 * that does not answer at start is only logged, since the node is useful without it.
 *
 * <p>Close this before the host, with {@link #close(Duration)} for a graceful stop (each index it leads
 * commits and that commit is backed up) or {@link #close()} at once (a backup under way writes no
 * manifest); the connections close, and the indexes themselves stay the host's.
 */
@Stable
public final class HostObjectStore implements Closeable {
  private final NrtHost host;
  private final HostStoreConfig config;
  private final MeterRegistry registry;
  private final NodeLog log;
  private final Map<String, IndexStore> indexes = new ConcurrentHashMap<>();
  /** The host's one store client: each index's store is a view of it. */
  private final BlobStore shared;
  /** Sweeps only (store waits): no other work of the host waits for it. Null without retention. */
  private final RetentionSchedule retention;

  private HostObjectStore(NrtHost host, HostStoreConfig config, MeterRegistry registry) {
    this.host = host;
    this.config = config;
    this.registry = registry;
    this.log = new NodeLog(LoggerFactory.getLogger(HostObjectStore.class), "N" + host.nodeId(), () -> -1);
    this.shared = BlobStore.connect(config.store(), new ObjectStoreMetrics(), log);
    this.retention = config.retention().isEmpty() ? null
        : new RetentionSchedule(config.retention().get(), config.retentionInterval(), host.nodeId(), Clock.systemUTC());
  }

  /**
   * Checks the store (one attempt) and returns the host's view of it; no meters.
   *
   * @throws ObjectStoreAccessException wrong credentials, no permission or no such bucket (named)
   */
  public static HostObjectStore open(NrtHost host, HostStoreConfig config) throws IOException {
    return open(host, config, null);
  }

  /** {@link #open(NrtHost, HostStoreConfig)}, registering each index's store meters in {@code registry} (null: none). */
  public static HostObjectStore open(NrtHost host, HostStoreConfig config, MeterRegistry registry) throws IOException {
    ObjectStoreConfig once = config.store().toBuilder().maxAttempts(1).build();
    try (BlobStore probe = BlobStore.open(once, new ObjectStoreMetrics(),
        new NodeLog(LoggerFactory.getLogger(HostObjectStore.class), "N" + host.nodeId(), () -> -1))) {
      // Opening checked the bucket and the credentials.
    } catch (ObjectStoreUnavailableException e) {
      LoggerFactory.getLogger(HostObjectStore.class).warn(
          "N{}: object store of bucket {} not answering at start ({}): backups retry, bootstraps copy from the primary",
          host.nodeId(), config.store().bucket(), e.getMessage());
    }
    HostObjectStore s = new HostObjectStore(host, config, registry);
    s.log.info("object store {}: backups {}, bootstrap {}, retention {}", config.store(),
        config.backups() ? config.mode() : "off", config.bootstrap() ? "on" : "off",
        config.retention().map(Object::toString).orElse("off"));
    return s;
  }

  /**
   * Bootstraps the index's directory from the store if configured, then opens it on the host with
   * automatic backups if configured; {@code listeners} hear role changes as with {@link
   * NrtHost#openIndex}. The store never makes this fail; the local disk and the cluster can.
   */
  public ClusterNode openIndex(IndexSettings settings, RoleListener... listeners) throws NrtClusterException, IOException {
    String name = settings.name();
    if (indexes.containsKey(name) || host.index(name) != null) {
      throw new IllegalStateException("index " + name + " is already open on this host");
    }
    String logName = "N" + host.nodeId() + "/" + name;
    ObjectStoreMetrics metrics = new ObjectStoreMetrics();
    BlobStore store = shared.view(metrics, new NodeLog(LoggerFactory.getLogger(BlobStore.class), logName, () -> -1));
    IndexStore is = null;
    try {
      ManifestStore manifests = new ManifestStore(store, StoreLayout.of(config.store().prefix(), host.cluster(), name));
      NodeLog indexLog = new NodeLog(LoggerFactory.getLogger(HostObjectStore.class), logName, () -> -1);
      BootstrapResult boot = config.bootstrap()
          ? new NodeRestore(manifests, indexLog).bootstrap(host.indexDirectory(name)) : null;
      PrimaryBackups backups = config.backups() ? new PrimaryBackups(manifests, config.mode(), logName) : null;
      ObjectStoreMeters meters = registry == null ? null
          : ObjectStoreMeters.register(registry, metrics, Tags.of("index", name, "node", Integer.toString(host.nodeId())));
      is = new IndexStore(store, manifests, backups, boot, meters, indexLog);
      List<RoleListener> all = new ArrayList<>(Arrays.asList(listeners));
      if (backups != null) {
        all.add(backups);
      }
      if (retention != null) {
        IndexStore target = is;
        retention.add(name, target);
        all.add((n, role, gen) -> {
          if (role == Role.PRIMARY) {
            target.node = n; // the first role change may come before openIndex returns
            retention.checkSoon(name);
          }
        });
      }
      ClusterNode node = host.openIndex(settings, all.toArray(RoleListener[]::new));
      is.node = node;
      indexes.put(name, is);
      return node;
    } catch (IOException | RuntimeException e) {
      if (retention != null) {
        retention.remove(name);
      }
      if (is != null) {
        is.close();
      } else {
        store.close();
      }
      throw e;
    }
  }

  /** How the bootstrap of {@code index} ended; empty when it did not run (off, or no such index). */
  public Optional<BootstrapResult> bootstrapResult(String index) {
    IndexStore is = indexes.get(index);
    return is == null ? Optional.empty() : Optional.ofNullable(is.bootstrap);
  }

  /** The automatic backups of {@code index}; empty when backups are off or no such index is open here. */
  public Optional<PrimaryBackups> backups(String index) {
    IndexStore is = indexes.get(index);
    return is == null ? Optional.empty() : Optional.ofNullable(is.backups);
  }

  /** The store counters of {@code index} (bytes, files, backups, lag); empty when no such index is open here. */
  public Optional<ObjectStoreMetrics> metrics(String index) {
    IndexStore is = indexes.get(index);
    return is == null ? Optional.empty() : Optional.of(is.store.metrics());
  }

  /**
   * The last retention sweep of {@code index} this host read or wrote in the store (by whichever node
   * swept); empty without retention, before this host looked, or when no sweep ever ran.
   */
  public Optional<RetentionRun> lastRetentionRun(String index) {
    return retention == null ? Optional.empty() : retention.lastSeen(index);
  }

  /** The index's place in the store, for status and restores. */
  public StoreLayout layout(String index) {
    return StoreLayout.of(config.store().prefix(), host.cluster(), index);
  }

  public HostStoreConfig config() {
    return config;
  }

  /**
   * A graceful stop's last backups, then {@link #close()}: each index this host leads commits, and its
   * backup is waited for, up to {@code timeout} for all of them together. A backup that fails or does
   * not end in time is logged and abandoned (it writes no manifest); the stop goes on. Call it before
   * the host closes, so that the point the primary searches last is in the store.
   *
   * @return whether every leading index's last point was backed up in time
   */
  public boolean close(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    boolean all = true;
    try {
      List<CompletableFuture<BackupResult>> last = new ArrayList<>();
      for (IndexStore is : indexes.values()) {
        ClusterNode node = is.node;
        if (is.backups == null || node == null || node.role() != Role.PRIMARY) {
          continue;
        }
        try {
          node.commit(); // hands the point to the backups on this thread
          last.add(is.backups.lastBackup());
        } catch (IOException | RuntimeException e) {
          all = false;
          is.log.warn("no last backup: the commit failed ({})", e.toString());
        }
      }
      for (CompletableFuture<BackupResult> f : last) {
        try {
          f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        } catch (ExecutionException | TimeoutException e) {
          all = false;
          log.warn("a last backup did not complete within {}: {}", timeout, e.toString());
        }
      }
      return all;
    } finally {
      close();
    }
  }

  /** Stops sweeps and backups at once (a backup under way writes no manifest) and closes the connections. */
  @Override
  public void close() {
    if (retention != null) {
      retention.close();
    }
    for (IndexStore is : indexes.values()) {
      is.close();
    }
    indexes.clear();
    shared.close(); // last: the indexes' backups send through it until they stop
  }

  /** One index's connection, backups and meters. */
  private static final class IndexStore implements RetentionSchedule.Target {
    final BlobStore store;
    final ManifestStore manifests;
    final PrimaryBackups backups;
    final BootstrapResult bootstrap;
    final ObjectStoreMeters meters;
    final NodeLog log;
    volatile ClusterNode node;

    IndexStore(BlobStore store, ManifestStore manifests, PrimaryBackups backups, BootstrapResult bootstrap,
        ObjectStoreMeters meters, NodeLog log) {
      this.store = store;
      this.manifests = manifests;
      this.backups = backups;
      this.bootstrap = bootstrap;
      this.meters = meters;
      this.log = log;
    }

    @Override
    public ClusterNode node() {
      return node;
    }

    @Override
    public ManifestStore manifests() {
      return manifests;
    }

    @Override
    public NodeLog log() {
      return log;
    }

    void close() {
      try {
        if (backups != null) {
          backups.close();
        }
      } finally {
        if (meters != null) {
          meters.close();
        }
        store.close();
      }
    }
  }
}

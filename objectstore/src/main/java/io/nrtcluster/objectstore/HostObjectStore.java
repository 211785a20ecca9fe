package io.nrtcluster.objectstore;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.nrtcluster.common.NamedThreadFactory;
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
import java.io.InterruptedIOException;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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
 *       nothing but the store;
 *   <li>while it leads, the index's newest backup is reread and checked every {@link
 *       HostStoreConfig#verifyInterval()} at {@link HostStoreConfig#verifyBytesPerSecond()} ({@link
 *       BackupVerification}, on its own thread): damage is logged, counted ({@link
 *       ObjectStoreMeters#VERIFY_DAMAGED}), reported by {@link #verification}, and the next backup
 *       uploads a fresh copy of each damaged object.
 * </ul>
 *
 * <p><b>A store that does not answer at start</b> costs the host one look bounded by {@link
 * HostStoreConfig#startTimeout()}, whatever the number of indexes: the store is then detached, every
 * index opens without it (its bootstrap falls back at once: the node serves its local index and
 * copies from the primary), backups try and count their failures, and a probe every start timeout
 * attaches the store again once it answers ({@link #storeAttached()}). An index's own first look at
 * the store is bounded the same way, and one that finds it silent detaches it for the others. {@link
 * #openIndexes} bootstraps {@link HostStoreConfig#openParallelism()} indexes at once.
 *
 * <p>The indexes share one store client and its connection pool ({@link BlobStore#view}); each has its
 * own {@link ObjectStoreMetrics} (so requests, bytes and backup lag are per index), registered as
 * {@link ObjectStoreMeters} tagged with the index and node when a registry is given. {@link #open}
 * fails at once, naming the bucket, on wrong credentials or a missing bucket (no retry loop).
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
  private final StoreAttachment attachment;
  /** Sweeps only (store waits): no other work of the host waits for it. Null without retention. */
  private final RetentionSchedule retention;
  /** Verifications only, on their own thread (they read whole backups). Null when off. */
  private final VerificationSchedule verifications;

  private HostObjectStore(NrtHost host, HostStoreConfig config, MeterRegistry registry) {
    this.host = host;
    this.config = config;
    this.registry = registry;
    this.log = new NodeLog(LoggerFactory.getLogger(HostObjectStore.class), "N" + host.nodeId(), () -> -1);
    this.shared = BlobStore.connect(config.store(), new ObjectStoreMetrics(), log);
    this.attachment = new StoreAttachment(shared, config.startTimeout(), log, "nrt-N" + host.nodeId() + "-store-probe");
    this.retention = config.retention().isEmpty() ? null
        : new RetentionSchedule(config.retention().get(), config.retentionInterval(), host.nodeId(), Clock.systemUTC());
    this.verifications = config.verifyInterval().isZero() || !config.backups() ? null
        : new VerificationSchedule(config.verifyInterval(), host.nodeId());
  }

  /**
   * Looks at the store once (bounded by {@link HostStoreConfig#startTimeout()}) and returns the
   * host's view of it; no meters.
   *
   * @throws ObjectStoreAccessException wrong credentials, no permission or no such bucket (named)
   */
  public static HostObjectStore open(NrtHost host, HostStoreConfig config) throws IOException {
    return open(host, config, null);
  }

  /** {@link #open(NrtHost, HostStoreConfig)}, registering each index's store meters in {@code registry} (null: none). */
  public static HostObjectStore open(NrtHost host, HostStoreConfig config, MeterRegistry registry) throws IOException {
    HostObjectStore s = new HostObjectStore(host, config, registry);
    try {
      if (!s.attachment.probe()) {
        s.log.warn("object store of bucket {} did not answer within {} at start: indexes open without it "
            + "(bootstraps copy from their primaries), backups retry", config.store().bucket(), config.startTimeout());
      }
    } catch (IOException | RuntimeException e) {
      s.close();
      throw e;
    }
    s.log.info("object store {}: backups {}, bootstrap {}, retention {}, verification {}", config.store(),
        config.backups() ? config.mode() : "off", config.bootstrap() ? "on" : "off",
        config.retention().map(Object::toString).orElse("off"),
        s.verifications == null ? "off" : "every " + config.verifyInterval());
    return s;
  }

  /**
   * Bootstraps the index's directory from the store if configured, then opens it on the host with
   * automatic backups if configured; {@code listeners} hear role changes as with {@link
   * NrtHost#openIndex}. The store never makes this fail, and costs it at most one start timeout when
   * it does not answer (nothing when it is known not to); the local disk and the cluster can fail it.
   */
  public ClusterNode openIndex(IndexSettings settings, RoleListener... listeners) throws NrtClusterException, IOException {
    return open(prepare(settings.name()), settings, listeners);
  }

  /**
   * {@link #openIndex} for many indexes: their bootstraps run {@link
   * HostStoreConfig#openParallelism()} at once, and each index opens on the host, in the given order,
   * once its bootstrap ended. An index that fails to open does not stop the others: the first failure
   * is thrown once every other index was opened (the rest suppressed in it).
   *
   * @return the open indexes, in the order of {@code settings}
   */
  public List<ClusterNode> openIndexes(List<IndexSettings> settings, RoleListener... listeners)
      throws NrtClusterException, IOException {
    ExecutorService pool = Executors.newFixedThreadPool(Math.min(config.openParallelism(), Math.max(1, settings.size())),
        new NamedThreadFactory("nrt-N" + host.nodeId() + "-bootstrap"));
    List<ClusterNode> opened = new ArrayList<>();
    Exception first = null;
    try {
      List<Future<IndexStore>> prepared = new ArrayList<>();
      for (IndexSettings s : settings) {
        prepared.add(pool.submit(() -> prepare(s.name())));
      }
      for (int i = 0; i < settings.size(); i++) {
        try {
          opened.add(open(await(prepared.get(i)), settings.get(i), listeners));
        } catch (IOException | RuntimeException e) {
          if (first == null) {
            first = e;
          } else {
            first.addSuppressed(e);
          }
        }
      }
    } finally {
      pool.shutdownNow();
    }
    if (first instanceof IOException io) {
      throw io;
    }
    if (first != null) {
      throw (RuntimeException) first;
    }
    return opened;
  }

  private static IndexStore await(Future<IndexStore> f) throws IOException {
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while bootstrapping indexes");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      throw new IOException(e.getCause());
    }
  }

  /** The index's view of the store, its bootstrap done: everything but the index itself. */
  private IndexStore prepare(String name) throws IOException {
    if (indexes.containsKey(name) || host.index(name) != null) {
      throw new IllegalStateException("index " + name + " is already open on this host");
    }
    String logName = "N" + host.nodeId() + "/" + name;
    ObjectStoreMetrics metrics = new ObjectStoreMetrics();
    BlobStore store = shared.view(metrics, new NodeLog(LoggerFactory.getLogger(BlobStore.class), logName, () -> -1));
    try {
      ManifestStore manifests = new ManifestStore(store, StoreLayout.of(config.store().prefix(), host.cluster(), name));
      NodeLog indexLog = new NodeLog(LoggerFactory.getLogger(HostObjectStore.class), logName, () -> -1);
      BootstrapResult boot = config.bootstrap() ? bootstrap(name, manifests, indexLog) : null;
      DamagedObjects damaged = new DamagedObjects();
      PrimaryBackups backups = config.backups() ? new PrimaryBackups(manifests, config.mode(), logName, damaged) : null;
      BackupVerification verification = verifications == null ? null
          : new BackupVerification(manifests, damaged, config.verifyBytesPerSecond(), indexLog);
      ObjectStoreMeters meters = registry == null ? null
          : ObjectStoreMeters.register(registry, metrics, Tags.of("index", name, "node", Integer.toString(host.nodeId())));
      return new IndexStore(name, store, manifests, backups, verification, boot, meters, indexLog);
    } catch (IOException | RuntimeException e) {
      store.close();
      throw e;
    }
  }

  /** The bootstrap, looking at the store at most once for a start timeout, not at all while it is detached. */
  private BootstrapResult bootstrap(String name, ManifestStore manifests, NodeLog indexLog) throws IOException {
    NodeRestore restore = new NodeRestore(manifests, indexLog);
    if (!attachment.attached()) {
      return restore.skipped(host.indexDirectory(name), new ObjectStoreUnavailableException("object store of bucket "
          + config.store().bucket() + " not answering (detached at start): not looked at", 0, null));
    }
    BootstrapResult r = restore.bootstrap(host.indexDirectory(name), attachment.lookDeadline());
    if (r.outcome() == BootstrapResult.Outcome.FELL_BACK && r.error() instanceof ObjectStoreUnavailableException e) {
      attachment.detach(e);
    }
    return r;
  }

  /** Opens a prepared index on the host, with its backups and schedules. */
  private ClusterNode open(IndexStore is, IndexSettings settings, RoleListener... listeners) throws IOException {
    String name = is.name;
    List<RoleListener> all = new ArrayList<>(Arrays.asList(listeners));
    if (is.backups != null) {
      all.add(is.backups);
    }
    if (retention != null) {
      retention.add(name, is);
      all.add((n, role, gen) -> {
        if (role == Role.PRIMARY) {
          is.node = n; // the first role change may come before openIndex returns
          retention.checkSoon(name);
        }
      });
    }
    if (verifications != null) {
      verifications.add(name, is);
    }
    try {
      ClusterNode node = host.openIndex(settings, all.toArray(RoleListener[]::new));
      is.node = node;
      indexes.put(name, is);
      return node;
    } catch (IOException | RuntimeException e) {
      if (retention != null) {
        retention.remove(name);
      }
      if (verifications != null) {
        verifications.remove(name);
      }
      is.close();
      throw e;
    }
  }

  /**
   * Whether the store answers, as the host last saw it: false from a start (or a bootstrap's first
   * look) that found it silent until a probe finds it answering.
   */
  public boolean storeAttached() {
    return attachment.attached();
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

  /**
   * The report of this host's last verification of {@code index}'s newest backup; empty when
   * verification is off, before the first one, or while this host never led the index.
   */
  public Optional<VerifyReport> verification(String index) {
    IndexStore is = indexes.get(index);
    return is == null || is.verification == null ? Optional.empty() : is.verification.last();
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

  /** The settings this host's store use was opened with. */
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
    attachment.close();
    if (retention != null) {
      retention.close();
    }
    if (verifications != null) {
      verifications.close();
    }
    for (IndexStore is : indexes.values()) {
      is.close();
    }
    indexes.clear();
    shared.close(); // last: the indexes' backups send through it until they stop
  }
}

package io.nrtcluster.stress;

import io.nrtcluster.common.Checks;
import io.nrtcluster.node.Durability;
import io.nrtcluster.objectstore.BackupMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;

/**
 * Settings of one chaos run. Built by {@link #builder()}, which checks every bound and names the bad
 * field.
 *
 * @param nodes node processes (3-9)
 * @param duration how long faults are injected and the workload runs (the final check comes after)
 * @param seed seeds the fault schedule, the workload's documents and the wire faults
 * @param reportDir where node directories, logs and the reports go
 * @param faults fault kinds switched on
 * @param writesPerSecond bound on the harness's write rate (operations per second, all indexers)
 * @param indexers indexer threads
 * @param searchers searcher threads
 * @param refreshInterval how often the harness refreshes the primary
 * @param commitInterval how often it commits
 * @param sessionTimeout ZooKeeper session timeout of the nodes
 * @param recoveryTimeout longest wait for the cluster to accept writes again after a fault
 * @param nodeHeapMb heap of each node JVM
 * @param dropEveryNthWrite harness self-test only: nodes acknowledge but drop every Nth write (0 = never),
 *     so the verdict must come out invalid; proves the loss check can fail
 * @param network where the hosts run: loopback, or each in its own network namespace (root only)
 * @param ackUnpublishedEvery harness self-test only: nodes answer every Nth refresh with a version one
 *     above the one they published (0 = never); proves the unpublished-acknowledgement check can fail
 * @param storage where nodes keep their index: plain, or a size-limited tmpfs each (root only)
 * @param diskMb size of each node's tmpfs disk (with tmpfs storage)
 * @param objectStore whether the harness runs an S3-compatible store and every node opens its index
 *     through it (backups while it leads, bootstrap from the newest backup, retention sweeps)
 * @param backupMode which points the primary backs up (with {@code objectStore})
 * @param followers store followers in the harness's JVM (0 to 8; with {@code objectStore}), judged as replicas
 * @param faultRate faults planned an hour (10-1,200; default 400, one every 9 s); primary kills,
 *     pauses and wire faults come more often than the other kinds ({@link FaultPlan}), and the runner
 *     still waits for the cluster to accept writes again after each fault, so a plan faster than the
 *     cluster recovers runs late (faults not started by 1.5 times the duration are skipped, counted)
 * @param wireFlipProbability the highest per-frame bit-flip probability of a wire fault (each draws
 *     one between a tenth of it and it; default 0.2, at most 0.5)
 * @param durability how the harness's writes are acknowledged: {@link Durability#LOCAL} (default) as an
 *     application with a replayable source, which replays its log after every failover, so every write
 *     a primary accepted must end up everywhere; {@link Durability#REPLICATED} as one without, which
 *     never replays and counts a write acknowledged only once a replicated refresh covered it, and
 *     requires no acknowledged write lost ({@link ReplicatedVerdict})
 */
public record ChaosConfig(
    int nodes,
    Duration duration,
    long seed,
    Path reportDir,
    Set<FaultKind> faults,
    int writesPerSecond,
    int indexers,
    int searchers,
    Duration refreshInterval,
    Duration commitInterval,
    Duration sessionTimeout,
    Duration recoveryTimeout,
    int nodeHeapMb,
    int dropEveryNthWrite,
    NetworkMode network,
    int ackUnpublishedEvery,
    StorageMode storage,
    int diskMb,
    boolean objectStore,
    BackupMode backupMode,
    int faultRate,
    double wireFlipProbability,
    Durability durability,
    int followers) {

  public ChaosConfig {
    Checks.inRange("nodes", nodes, 3, 9);
    Checks.notNull("duration", duration);
    Checks.notNull("refreshInterval", refreshInterval);
    Checks.notNull("commitInterval", commitInterval);
    Checks.notNull("sessionTimeout", sessionTimeout);
    Checks.notNull("recoveryTimeout", recoveryTimeout);
    Checks.inRange("duration (seconds)", duration.toSeconds(), 10, 7 * 24 * 3600);
    Checks.notNull("reportDir", reportDir);
    Checks.notNull("faults", faults);
    faults = Set.copyOf(faults);
    Checks.inRange("writesPerSecond", writesPerSecond, 1, 100_000);
    Checks.inRange("indexers", indexers, 1, 64);
    Checks.inRange("searchers", searchers, 0, 64);
    Checks.inRange("refreshInterval (ms)", refreshInterval.toMillis(), 10, 60_000);
    Checks.inRange("commitInterval (ms)", commitInterval.toMillis(), 100, 3_600_000);
    Checks.inRange("sessionTimeout (ms)", sessionTimeout.toMillis(), 1_000, 120_000);
    Checks.inRange("recoveryTimeout (ms)", recoveryTimeout.toMillis(), sessionTimeout.toMillis(), 3_600_000);
    Checks.inRange("nodeHeapMb", nodeHeapMb, 64, 65_536);
    Checks.inRange("dropEveryNthWrite", dropEveryNthWrite, 0, Integer.MAX_VALUE);
    Checks.notNull("network", network);
    Checks.inRange("ackUnpublishedEvery", ackUnpublishedEvery, 0, Integer.MAX_VALUE);
    Checks.notNull("storage", storage);
    Checks.inRange("diskMb", diskMb, 64, 65_536);
    Checks.notNull("backupMode", backupMode);
    Checks.inRange("faultRate (faults an hour)", faultRate, 10, 1_200);
    Checks.notNull("durability", durability);
    Checks.inRange("followers", followers, 0, 8);
    if (followers > 0 && !objectStore) {
      throw new IllegalArgumentException("followers need the object store (--object-store): they follow it");
    }
    if (!(wireFlipProbability > 0 && wireFlipProbability <= 0.5)) {
      throw new IllegalArgumentException("wireFlipProbability must be in (0, 0.5], got " + wireFlipProbability);
    }
    for (FaultKind k : faults) {
      if (k.needsNamespaces() && network != NetworkMode.NAMESPACES) {
        throw new IllegalArgumentException("faults: " + k.key() + " cuts or slows links, which needs network "
            + "namespaces (--network namespaces)");
      }
      if (k.needsTmpfs() && storage != StorageMode.TMPFS) {
        throw new IllegalArgumentException("faults: " + k.key() + " fills disks, which needs tmpfs storage "
            + "(--storage tmpfs)");
      }
      if (k.needsObjectStore() && !objectStore) {
        throw new IllegalArgumentException("faults: " + k.key() + " needs the object store (--object-store)");
      }
      if (nodes < k.minNodes()) {
        throw new IllegalArgumentException("faults: " + k.key() + " needs at least " + k.minNodes() + " nodes (--nodes "
            + k.minNodes() + ")" + (k == FaultKind.COPY_PARENT_KILL ? ": with fewer, no replica copies from another" : ""));
      }
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Builds a validated {@link ChaosConfig}; defaults suit a 2-core machine. */
  public static final class Builder {
    private int nodes = 4;
    private Duration duration = Duration.ofMinutes(5);
    private long seed = 42;
    private Path reportDir;
    /** Null: every kind {@link #network}, {@link #storage}, {@link #objectStore} and {@link #nodes} allow. */
    private Set<FaultKind> faults;
    private int writesPerSecond = 300;
    private int indexers = 2;
    private int searchers = 2;
    private Duration refreshInterval = Duration.ofMillis(500);
    private Duration commitInterval = Duration.ofSeconds(5);
    private Duration sessionTimeout = Duration.ofSeconds(4);
    private Duration recoveryTimeout = Duration.ofSeconds(90);
    private int nodeHeapMb = 256;
    private int dropEveryNthWrite;
    private NetworkMode network = NetworkMode.LOOPBACK;
    private StorageMode storage = StorageMode.PLAIN;
    private int diskMb = 1024;
    private int ackUnpublishedEvery;
    private boolean objectStore;
    private BackupMode backupMode = BackupMode.EVERY_COMMIT;
    private int followers;
    private int faultRate = 400;
    private double wireFlipProbability = 0.2;
    private Durability durability = Durability.LOCAL;

    public Builder nodes(int v) {
      nodes = v;
      return this;
    }

    public Builder duration(Duration v) {
      duration = v;
      return this;
    }

    public Builder seed(long v) {
      seed = v;
      return this;
    }

    public Builder reportDir(Path v) {
      reportDir = v;
      return this;
    }

    public Builder faults(Set<FaultKind> v) {
      faults = v;
      return this;
    }

    public Builder writesPerSecond(int v) {
      writesPerSecond = v;
      return this;
    }

    public Builder indexers(int v) {
      indexers = v;
      return this;
    }

    public Builder searchers(int v) {
      searchers = v;
      return this;
    }

    public Builder refreshInterval(Duration v) {
      refreshInterval = v;
      return this;
    }

    public Builder commitInterval(Duration v) {
      commitInterval = v;
      return this;
    }

    public Builder sessionTimeout(Duration v) {
      sessionTimeout = v;
      return this;
    }

    public Builder recoveryTimeout(Duration v) {
      recoveryTimeout = v;
      return this;
    }

    public Builder nodeHeapMb(int v) {
      nodeHeapMb = v;
      return this;
    }

    /** See {@link ChaosConfig#dropEveryNthWrite()}: for the harness's own test only. */
    public Builder dropEveryNthWrite(int v) {
      dropEveryNthWrite = v;
      return this;
    }

    /** Where the hosts run; the default fault set follows it (see {@link FaultKind#available}). */
    public Builder network(NetworkMode v) {
      network = v;
      return this;
    }

    /** See {@link ChaosConfig#ackUnpublishedEvery()}: for the harness's own test only. */
    public Builder ackUnpublishedEvery(int v) {
      ackUnpublishedEvery = v;
      return this;
    }

    /** Where nodes keep their index; the default fault set follows it (see {@link FaultKind#available}). */
    public Builder storage(StorageMode v) {
      storage = v;
      return this;
    }

    /** Size of each node's tmpfs disk in MiB (with tmpfs storage). */
    public Builder diskMb(int v) {
      diskMb = v;
      return this;
    }

    /** Whether the run has an object store; the default fault set follows it (see {@link FaultKind#available}). */
    public Builder objectStore(boolean v) {
      objectStore = v;
      return this;
    }

    /** Which points the primary backs up, with the object store (default: every commit). */
    /** Store followers in the harness, following the index through the object store alone. */
    public Builder followers(int v) {
      followers = v;
      return this;
    }

    public Builder backupMode(BackupMode v) {
      backupMode = v;
      return this;
    }

    /** Faults planned an hour (see {@link ChaosConfig#faultRate()}). */
    public Builder faultRate(int v) {
      faultRate = v;
      return this;
    }

    /** The highest per-frame bit-flip probability of a wire fault (see {@link ChaosConfig#wireFlipProbability()}). */
    public Builder wireFlipProbability(double v) {
      wireFlipProbability = v;
      return this;
    }

    /** How writes are acknowledged, and so what the verdict requires (see {@link ChaosConfig#durability()}). */
    public Builder durability(Durability v) {
      durability = v;
      return this;
    }

    public ChaosConfig build() {
      Set<FaultKind> kinds = faults != null ? faults
          : network == null || storage == null ? null : FaultKind.available(network, storage, objectStore, nodes);
      return new ChaosConfig(nodes, duration, seed, reportDir, kinds, writesPerSecond, indexers, searchers,
          refreshInterval, commitInterval, sessionTimeout, recoveryTimeout, nodeHeapMb, dropEveryNthWrite, network,
          ackUnpublishedEvery, storage, diskMb, objectStore, backupMode, faultRate, wireFlipProbability, durability,
          followers);
    }
  }
}

package io.nrtcluster.objectstore;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.Internal;
import io.nrtcluster.common.Stable;
import java.time.Duration;
import java.util.Optional;

/**
 * What a host does with an object store for every index it opens ({@link HostObjectStore}): whether
 * it backs up the indexes it leads and which points, whether a replica with an empty or stale
 * directory first restores the newest backup, how often, and with which policy, a primary sweeps
 * old backups, and how often and how fast the newest backup is reread to find damage in the store. Immutable; built by {@link #builder()}, which names the bad field.
 *
 * @param store the store connection and the layout prefix
 * @param backups whether the indexes this host leads are backed up
 * @param mode which points are backed up (meaningful with {@code backups})
 * @param bootstrap whether an index restores the newest backup before it opens, when its local index is
 *     empty or older (only the difference is then copied from the primary)
 * @param retention the sweep's policy, empty for none (backups are then kept forever)
 * @param retentionInterval how old the last sweep of an index ({@link RetentionRun}, by whichever node
 *     led it) is when its primary sweeps again
 * @param verifyInterval how often an index's newest backup is reread and checked ({@link
 *     BackupVerification}); {@link Duration#ZERO} for never; at most 7 days
 * @param verifyBytesPerSecond the pace of those reads: 0 for unlimited, else at least {@link
 *     BackupVerifier#MIN_BYTES_PER_SECOND}
 * @param startTimeout the bound of the host's one look at the store when it opens (5 s by default):
 *     a store that has not answered by then is detached, every index opens without it (a bootstrap
 *     falls back to copying from the primary at once), and the host attaches it again once a probe,
 *     every start timeout, finds it answering; an index's own first look is bounded by it too
 * @param openParallelism how many indexes {@link HostObjectStore#openIndexes} bootstraps at once (1 to
 *     64, 4 by default)
 */
@Stable
public record HostStoreConfig(
    ObjectStoreConfig store,
    boolean backups,
    BackupMode mode,
    boolean bootstrap,
    Optional<RetentionPolicy> retention,
    Duration retentionInterval,
    Duration verifyInterval,
    long verifyBytesPerSecond,
    Duration startTimeout,
    int openParallelism) {

  /** Canonical constructor: validates; services build through {@link Builder}, which may gain fields. */
  @Internal
  public HostStoreConfig {
    Checks.notNull("store", store);
    Checks.notNull("mode", mode);
    Checks.notNull("retention", retention);
    Checks.positive("retentionInterval", retentionInterval);
    Checks.atMost("retentionInterval", retentionInterval, Duration.ofDays(7));
    Checks.notNull("verifyInterval", verifyInterval);
    if (verifyInterval.isNegative()) {
      throw new IllegalArgumentException("verifyInterval must be zero (off) or positive, got " + verifyInterval);
    }
    if (!verifyInterval.isZero()) {
      Checks.atMost("verifyInterval", verifyInterval, Duration.ofDays(7));
    }
    BackupVerifier.checkRate("verifyBytesPerSecond", verifyBytesPerSecond);
    Checks.positive("startTimeout", startTimeout);
    Checks.atMost("startTimeout", startTimeout, Duration.ofMinutes(10));
    Checks.inRange("openParallelism", openParallelism, 1, 64);
    if (retention.isPresent() && !backups) {
      throw new IllegalArgumentException("retention needs backups: a host that backs nothing up sweeps nothing");
    }
  }

  /** A builder with every default; the store has none and is required. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Defaults: backups of every commit, bootstrap on, no retention, sweeps at most every 10 minutes,
   * the newest backup verified every hour at 32 MiB/s, a start look of 5 s, 4 indexes bootstrapped
   * at once.
   */
  public static final class Builder {
    private ObjectStoreConfig store;
    private boolean backups = true;
    private BackupMode mode = BackupMode.EVERY_COMMIT;
    private boolean bootstrap = true;
    private RetentionPolicy retention;
    private Duration retentionInterval = Duration.ofMinutes(10);
    private Duration verifyInterval = Duration.ofHours(1);
    private long verifyBytesPerSecond = 32L << 20;
    private Duration startTimeout = Duration.ofSeconds(5);
    private int openParallelism = 4;

    /** Sets {@link HostStoreConfig#store()}; no default. */
    public Builder store(ObjectStoreConfig v) {
      store = v;
      return this;
    }

    /** Sets {@link HostStoreConfig#backups()}; default {@code true}. */
    public Builder backups(boolean v) {
      backups = v;
      return this;
    }

    /** Sets {@link HostStoreConfig#mode()}; default {@code BackupMode.EVERY_COMMIT}. */
    public Builder mode(BackupMode v) {
      mode = v;
      return this;
    }

    /** Sets {@link HostStoreConfig#bootstrap()}; default {@code true}. */
    public Builder bootstrap(boolean v) {
      bootstrap = v;
      return this;
    }

    /** The sweep's policy; null for none. */
    public Builder retention(RetentionPolicy v) {
      retention = v;
      return this;
    }

    /** Sets {@link HostStoreConfig#retentionInterval()}; default {@code Duration.ofMinutes(10)}. */
    public Builder retentionInterval(Duration v) {
      retentionInterval = v;
      return this;
    }

    /** How often the newest backup of each index is verified; {@link Duration#ZERO} for never. */
    public Builder verifyInterval(Duration v) {
      verifyInterval = v;
      return this;
    }

    /** The pace of verification reads in bytes per second; 0 for unlimited. */
    public Builder verifyBytesPerSecond(long v) {
      verifyBytesPerSecond = v;
      return this;
    }

    /** The bound of the host's one look at the store at start, and of each index's first look. */
    public Builder startTimeout(Duration v) {
      startTimeout = v;
      return this;
    }

    /** How many indexes {@link HostObjectStore#openIndexes} bootstraps at once. */
    public Builder openParallelism(int v) {
      openParallelism = v;
      return this;
    }

    /**
     * The validated configuration; throws {@link IllegalArgumentException} naming the first bad or
     * missing field.
     */
    public HostStoreConfig build() {
      return new HostStoreConfig(store, backups, mode, bootstrap, Optional.ofNullable(retention), retentionInterval,
          verifyInterval, verifyBytesPerSecond, startTimeout, openParallelism);
    }
  }
}

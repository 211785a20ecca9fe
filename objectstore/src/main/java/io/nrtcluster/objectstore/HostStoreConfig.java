package io.nrtcluster.objectstore;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.Internal;
import io.nrtcluster.common.Stable;
import java.time.Duration;
import java.util.Optional;

/**
 * What a host does with an object store for every index it opens ({@link HostObjectStore}): whether
 * it backs up the indexes it leads and which points, whether a replica with an empty or stale
 * directory first restores the newest backup, and how often, and with which policy, a primary sweeps
 * old backups. Immutable; built by {@link #builder()}, which names the bad field.
 *
 * @param store the store connection and the layout prefix
 * @param backups whether the indexes this host leads are backed up
 * @param mode which points are backed up (meaningful with {@code backups})
 * @param bootstrap whether an index restores the newest backup before it opens, when its local index is
 *     empty or older (only the difference is then copied from the primary)
 * @param retention the sweep's policy, empty for none (backups are then kept forever)
 * @param retentionInterval how old the last sweep of an index ({@link RetentionRun}, by whichever node
 *     led it) is when its primary sweeps again
 */
@Stable
public record HostStoreConfig(
    ObjectStoreConfig store,
    boolean backups,
    BackupMode mode,
    boolean bootstrap,
    Optional<RetentionPolicy> retention,
    Duration retentionInterval) {

  /** Canonical constructor: validates; services build through {@link Builder}, which may gain fields. */
  @Internal
  public HostStoreConfig {
    Checks.notNull("store", store);
    Checks.notNull("mode", mode);
    Checks.notNull("retention", retention);
    Checks.positive("retentionInterval", retentionInterval);
    Checks.atMost("retentionInterval", retentionInterval, Duration.ofDays(7));
    if (retention.isPresent() && !backups) {
      throw new IllegalArgumentException("retention needs backups: a host that backs nothing up sweeps nothing");
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Defaults: backups of every commit, bootstrap on, no retention, sweeps at most every 10 minutes. */
  public static final class Builder {
    private ObjectStoreConfig store;
    private boolean backups = true;
    private BackupMode mode = BackupMode.EVERY_COMMIT;
    private boolean bootstrap = true;
    private RetentionPolicy retention;
    private Duration retentionInterval = Duration.ofMinutes(10);

    public Builder store(ObjectStoreConfig v) {
      store = v;
      return this;
    }

    public Builder backups(boolean v) {
      backups = v;
      return this;
    }

    public Builder mode(BackupMode v) {
      mode = v;
      return this;
    }

    public Builder bootstrap(boolean v) {
      bootstrap = v;
      return this;
    }

    /** The sweep's policy; null for none. */
    public Builder retention(RetentionPolicy v) {
      retention = v;
      return this;
    }

    public Builder retentionInterval(Duration v) {
      retentionInterval = v;
      return this;
    }

    public HostStoreConfig build() {
      return new HostStoreConfig(store, backups, mode, bootstrap, Optional.ofNullable(retention), retentionInterval);
    }
  }
}

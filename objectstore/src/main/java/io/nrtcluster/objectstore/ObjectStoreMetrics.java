package io.nrtcluster.objectstore;

import io.nrtcluster.common.Experimental;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Plain counters of one store connection and the backups running over it, for a node to expose
 * (Micrometer lives in node, not here). Thread-safe; every counter only grows except the "last"
 * gauges. Read them through {@link #snapshot()}, an immutable copy.
 */
@Experimental
public final class ObjectStoreMetrics {
  private final LongAdder bytesUploaded = new LongAdder();
  private final LongAdder bytesDownloaded = new LongAdder();
  private final LongAdder filesUploaded = new LongAdder();
  private final LongAdder filesSkipped = new LongAdder();
  private final LongAdder filesDownloaded = new LongAdder();
  private final LongAdder requests = new LongAdder();
  private final LongAdder requestFailures = new LongAdder();
  private final LongAdder backupsCompleted = new LongAdder();
  private final LongAdder backupsFailed = new LongAdder();
  private final LongAdder backupsSuperseded = new LongAdder();
  private final AtomicLong lastSubmittedVersion = new AtomicLong(-1);
  private final AtomicLong lastBackedUpVersion = new AtomicLong(-1);
  private final AtomicLong lastBackupEpochMillis = new AtomicLong(-1);
  /** When the oldest submitted point not yet covered by a completed backup was submitted (epoch ms), or -1. */
  private final AtomicLong oldestPendingEpochMillis = new AtomicLong(-1);
  private final LongAdder verifyRuns = new LongAdder();
  private final AtomicLong lastVerifyDamaged = new AtomicLong();
  private final AtomicLong lastVerifiedVersion = new AtomicLong(-1);

  /**
   * An immutable copy of the counters at one moment.
   *
   * @param requests request attempts sent to the store, each retry counted (a listing's pages count as one)
   * @param requestFailures those attempts that failed
   * @param verifyRuns verifications of a backup that completed (the store read; damaged or not)
   * @param lastVerifyDamaged damaged objects the last verification found (0 before any)
   * @param lastVerifiedVersion the version of the backup verified last, -1 before any
   */
  public record Snapshot(
      long bytesUploaded,
      long bytesDownloaded,
      long filesUploaded,
      long filesSkipped,
      long filesDownloaded,
      long requests,
      long requestFailures,
      long backupsCompleted,
      long backupsFailed,
      long backupsSuperseded,
      long lastSubmittedVersion,
      long lastBackedUpVersion,
      long lastBackupEpochMillis,
      long oldestPendingEpochMillis,
      long verifyRuns,
      long lastVerifyDamaged,
      long lastVerifiedVersion) {

    /** Versions submitted for backup but not yet covered by a completed one (0 when up to date). */
    public long lagVersions() {
      return lastSubmittedVersion < 0 ? 0 : Math.max(0, lastSubmittedVersion - lastBackedUpVersion);
    }

    /** Milliseconds the oldest point still waiting for a backup has waited, at {@code nowEpochMillis}. */
    public long lagMillis(long nowEpochMillis) {
      return oldestPendingEpochMillis < 0 ? 0 : Math.max(0, nowEpochMillis - oldestPendingEpochMillis);
    }
  }

  public Snapshot snapshot() {
    return new Snapshot(bytesUploaded.sum(), bytesDownloaded.sum(), filesUploaded.sum(), filesSkipped.sum(),
        filesDownloaded.sum(), requests.sum(), requestFailures.sum(), backupsCompleted.sum(), backupsFailed.sum(),
        backupsSuperseded.sum(), lastSubmittedVersion.get(), lastBackedUpVersion.get(), lastBackupEpochMillis.get(),
        oldestPendingEpochMillis.get(), verifyRuns.sum(), lastVerifyDamaged.get(), lastVerifiedVersion.get());
  }

  void uploaded(long bytes) {
    bytesUploaded.add(bytes);
  }

  void fileUploaded() {
    filesUploaded.increment();
  }

  void fileSkipped() {
    filesSkipped.increment();
  }

  void downloaded(long bytes) {
    bytesDownloaded.add(bytes);
  }

  void fileDownloaded() {
    filesDownloaded.increment();
  }

  void requested() {
    requests.increment();
  }

  void requestFailed() {
    requestFailures.increment();
  }

  void submitted(long version, long epochMillis) {
    lastSubmittedVersion.accumulateAndGet(version, Math::max);
    oldestPendingEpochMillis.compareAndSet(-1, epochMillis);
  }

  /** A backup of {@code version} completed; {@code pendingSince} is when the next waiting point was submitted, or -1. */
  void backedUp(long version, long epochMillis, long pendingSince) {
    backupsCompleted.increment();
    lastBackedUpVersion.accumulateAndGet(version, Math::max);
    lastBackupEpochMillis.set(epochMillis);
    oldestPendingEpochMillis.set(pendingSince);
  }

  void backupFailed() {
    backupsFailed.increment();
  }

  void backupSuperseded() {
    backupsSuperseded.increment();
  }

  /** A verification of the backup of {@code version} read the store and found {@code damaged} objects damaged. */
  void verified(long version, int damaged) {
    verifyRuns.increment();
    lastVerifyDamaged.set(damaged);
    lastVerifiedVersion.set(version);
  }
}

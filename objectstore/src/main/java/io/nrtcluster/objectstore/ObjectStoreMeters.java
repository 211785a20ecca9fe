package io.nrtcluster.objectstore;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.nrtcluster.common.Internal;
import java.io.Closeable;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

/**
 * The counters of an {@link ObjectStoreMetrics} as Micrometer meters, read from it when scraped
 * (nothing is counted twice): register them with {@link #register}, remove them with {@link #close()}.
 * Names follow {@code io.nrtcluster.node.NrtMeters}' conventions; the tags are the caller's (for
 * example {@code index} and {@code node}).
 */
@Internal
public final class ObjectStoreMeters implements Closeable {
  /** Counter (bytes): bytes sent to the store (files, manifests, markers). */
  public static final String BYTES_UPLOADED = "nrt.objectstore.bytes.uploaded";
  /** Counter (bytes): bytes read from the store. */
  public static final String BYTES_DOWNLOADED = "nrt.objectstore.bytes.downloaded";
  /** Counter: index files uploaded because the store lacked them. */
  public static final String FILES_UPLOADED = "nrt.objectstore.files.uploaded";
  /** Counter: index files a backup found already stored (not sent again). */
  public static final String FILES_REUSED = "nrt.objectstore.files.reused";
  /** Counter: index files downloaded and verified. */
  public static final String FILES_DOWNLOADED = "nrt.objectstore.files.downloaded";
  /** Counter: requests sent to the store (each attempt, retries included). */
  public static final String REQUESTS = "nrt.objectstore.requests";
  /** Counter: requests to the store that failed (each failed attempt). */
  public static final String REQUEST_FAILURES = "nrt.objectstore.request.failures";
  /** Counter: backups completed (their manifest written). */
  public static final String BACKUPS_COMPLETED = "nrt.backup.completed";
  /** Counter: backups that failed (no manifest written; the next point is tried). */
  public static final String BACKUPS_FAILED = "nrt.backup.failed";
  /** Counter: points replaced by a newer one before their backup started. */
  public static final String BACKUPS_SUPERSEDED = "nrt.backup.superseded";
  /** Gauge: versions handed to backups but not yet covered by a completed one. */
  public static final String LAG_VERSIONS = "nrt.backup.lag.versions";
  /** Time gauge: how long the oldest point not yet covered by a completed backup has waited. */
  public static final String LAG = "nrt.backup.lag";
  /** Gauge: the newest version backed up, -1 before any. */
  public static final String LAST_VERSION = "nrt.backup.last.version";
  /** Counter: verifications of a backup that read the store (see {@link BackupVerification}). */
  public static final String VERIFY_RUNS = "nrt.backup.verify.runs";
  /** Gauge: damaged objects in the backup verified last (0 before any). */
  public static final String VERIFY_DAMAGED = "nrt.backup.verify.damaged";
  /** Gauge: the version of the backup verified last, -1 before any. */
  public static final String VERIFY_LAST_VERSION = "nrt.backup.verify.last.version";

  private final MeterRegistry registry;
  private final List<Meter> meters = new ArrayList<>();

  private ObjectStoreMeters(MeterRegistry registry) {
    this.registry = registry;
  }

  /** Registers the meters of {@code metrics} in {@code registry}, tagged {@code tags}. */
  public static ObjectStoreMeters register(MeterRegistry registry, ObjectStoreMetrics metrics, Tags tags) {
    ObjectStoreMeters m = new ObjectStoreMeters(registry);
    m.counter(BYTES_UPLOADED, metrics, ObjectStoreMetrics.Snapshot::bytesUploaded, tags, "bytes");
    m.counter(BYTES_DOWNLOADED, metrics, ObjectStoreMetrics.Snapshot::bytesDownloaded, tags, "bytes");
    m.counter(FILES_UPLOADED, metrics, ObjectStoreMetrics.Snapshot::filesUploaded, tags, null);
    m.counter(FILES_REUSED, metrics, ObjectStoreMetrics.Snapshot::filesSkipped, tags, null);
    m.counter(FILES_DOWNLOADED, metrics, ObjectStoreMetrics.Snapshot::filesDownloaded, tags, null);
    m.counter(REQUESTS, metrics, ObjectStoreMetrics.Snapshot::requests, tags, null);
    m.counter(REQUEST_FAILURES, metrics, ObjectStoreMetrics.Snapshot::requestFailures, tags, null);
    m.counter(BACKUPS_COMPLETED, metrics, ObjectStoreMetrics.Snapshot::backupsCompleted, tags, null);
    m.counter(BACKUPS_FAILED, metrics, ObjectStoreMetrics.Snapshot::backupsFailed, tags, null);
    m.counter(BACKUPS_SUPERSEDED, metrics, ObjectStoreMetrics.Snapshot::backupsSuperseded, tags, null);
    m.meters.add(Gauge.builder(LAG_VERSIONS, metrics, x -> x.snapshot().lagVersions()).tags(tags).register(registry));
    m.meters.add(Gauge.builder(LAST_VERSION, metrics, x -> x.snapshot().lastBackedUpVersion()).tags(tags).register(registry));
    m.counter(VERIFY_RUNS, metrics, ObjectStoreMetrics.Snapshot::verifyRuns, tags, null);
    m.meters.add(Gauge.builder(VERIFY_DAMAGED, metrics, x -> x.snapshot().lastVerifyDamaged()).tags(tags).register(registry));
    m.meters.add(Gauge.builder(VERIFY_LAST_VERSION, metrics, x -> x.snapshot().lastVerifiedVersion()).tags(tags)
        .register(registry));
    m.meters.add(TimeGauge.builder(LAG, metrics, TimeUnit.MILLISECONDS,
        x -> x.snapshot().lagMillis(System.currentTimeMillis())).tags(tags).register(registry));
    return m;
  }

  private void counter(String name, ObjectStoreMetrics metrics, ToLongFunction<ObjectStoreMetrics.Snapshot> read, Tags tags,
      String unit) {
    meters.add(FunctionCounter.builder(name, metrics, x -> read.applyAsLong(x.snapshot())).baseUnit(unit).tags(tags)
        .register(registry));
  }

  /** Removes the meters from the registry. */
  @Override
  public void close() {
    meters.forEach(registry::remove);
    meters.clear();
  }
}

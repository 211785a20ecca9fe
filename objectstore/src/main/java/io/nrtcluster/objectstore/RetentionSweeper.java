package io.nrtcluster.objectstore;

import io.nrtcluster.common.Experimental;
import io.nrtcluster.common.NodeLog;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Removes old manifests and the files no kept manifest names, safely while backups run.
 *
 * <p><b>The sweep.</b> (1) Write a marker {@code sweeps/<id>}; its store time {@code tS} is the
 * sweep's "now". (2) List the backup markers {@code pending/*} and read each: the files they name are
 * kept; a marker more than {@code backupLease + clockMargin} older than {@code tS} belongs to a backup
 * that has given up (a backup abandons itself at {@code backupLease}) and is deleted. (3) Then list the
 * manifests; keep the newest {@code keepLast} and those stored less than {@code keepNewerThan} before
 * {@code tS}; read the kept ones: the files they name are kept. (4) List the files. (5) Delete the other
 * manifests, then every file not kept, then the stale markers, sending no delete request once {@code
 * sweepLease} has passed since just before (1): each delete is a call bound to that deadline ({@link
 * BlobStore}), which starts no attempt from it on, sleeps no backoff past it and cuts the attempt under
 * way at it, whatever {@code maxAttempts}, {@code backoffMax} and {@code socketTimeout} would allow. A
 * sweep stopped there reports {@code complete=false}; the next sweep goes on. (6) Delete the sweep
 * marker.
 *
 * <p><b>Why a kept manifest never loses a file.</b> Take a backup B of point P and a file F of P. B
 * writes its marker, then lists the sweeps, then HEADs F and uploads it if missing, then writes its
 * manifest, then deletes its marker ({@link BackupService}). Consider any sweep R.
 *
 * <ul>
 *   <li>If R lists the backup markers (2) after B's marker was written, R keeps F: either it reads
 *       B's marker, or B's marker was already deleted, in which case B's manifest was written before
 *       and R's manifest listing (3), which comes after (2), sees it as the newest and keeps it. (R
 *       reads a marker right after listing it for the same reason: a marker that vanished in between
 *       belongs to a backup whose manifest R's later listing sees.)
 *   <li>Otherwise R listed the markers before B's marker existed, so R's own marker (1) was written
 *       before B's, and B's listing of the sweeps sees it unless R had already finished, deletes
 *       included. B waits for every sweep it sees to finish, or for {@code sweepLease + clockMargin}
 *       of its own time since it saw it; R sends no delete request, first attempt or retry, after
 *       {@code sweepLease} from before (1) (step 5), and the store applies one sent before within the
 *       margin. Either way R's deletions are over before B HEADs F, so B re-uploads whatever R removed.
 * </ul>
 *
 * Files of manifests kept by an earlier sweep stay named by them until a sweep drops the manifest
 * (manifests are deleted before files). So every manifest a sweep keeps, and every
 * manifest a backup writes, names only files that are in the store.
 *
 * <p><b>Assumptions</b>, both inside {@link ObjectStoreConfig#clockMargin()}: clocks of the machines
 * and the store run at nearly the same rate (no two clocks are ever compared: the sweep compares store
 * times with store times, a backup its own elapsed times), and a request sent is applied within the
 * margin. The store is strongly consistent for reads after writes and for listings (AWS S3 is, since
 * 2020; so are MinIO, S3Proxy and most S3-compatible stores).
 *
 * <p>A restore that reads a manifest a sweep is dropping at that moment may find files missing; it
 * fails with {@link CorruptBackupException} and the caller retries with the newest manifest.
 */
@Experimental
public final class RetentionSweeper {
  private final ManifestStore manifests;
  private final BlobStore store;
  private final StoreLayout layout;
  private final ObjectStoreConfig config;
  private final NodeLog log;
  /** Runs once the sweep decided what to delete, before it deletes: tests interleave a backup there. */
  private volatile Runnable beforeDeletes = () -> {};

  public RetentionSweeper(ManifestStore manifests, NodeLog log) {
    this.manifests = manifests;
    this.store = manifests.blobStore();
    this.layout = manifests.layout();
    this.config = store.config();
    this.log = log;
  }

  /** For tests: {@code hook} runs in every sweep after it listed the files, before its first delete. */
  void beforeDeletes(Runnable hook) {
    beforeDeletes = hook;
  }

  /**
   * One sweep (the steps in the class comment), on the calling thread.
   *
   * <p>A sweep that reaches its lease returns what it deleted until then with {@code complete=false},
   * even when that is nothing: the lease is the sweep's own time budget, not a failure, and a slow or
   * failing store also shows in the store's counters and in the backups. A delete that fails through
   * all of {@link ObjectStoreConfig#maxAttempts()} before the lease still throws.
   *
   * @throws CorruptBackupException a manifest that would be kept does not parse: nothing is deleted,
   *     since what it names is unknown
   */
  public SweepResult sweep(RetentionPolicy policy) throws IOException {
    long start = System.nanoTime();
    String sweepKey = layout.sweepKey(UUID.randomUUID().toString());
    store.put(sweepKey, new byte[0]);
    try {
      Instant now = store.head(sweepKey).map(ObjectInfo::lastModified)
          .orElseThrow(() -> new ObjectStoreUnavailableException("sweep marker " + sweepKey + " vanished", 1, null));
      Set<String> keep = new HashSet<>();
      List<String> stale = new ArrayList<>();
      Duration backupStale = config.backupLease().plus(config.clockMargin());
      for (ObjectInfo marker : store.list(layout.pendingPrefix())) {
        if (Duration.between(marker.lastModified(), now).compareTo(backupStale) > 0) {
          stale.add(marker.key());
          continue;
        }
        Optional<byte[]> names = store.get(marker.key());
        names.ifPresent(b -> {
          for (String key : new String(b, StandardCharsets.UTF_8).split("\n")) {
            if (!key.isEmpty()) {
              keep.add(key);
            }
          }
        });
      }
      Duration sweepStale = config.sweepLease().plus(config.clockMargin()).multipliedBy(2);
      for (ObjectInfo other : store.list(layout.sweepsPrefix())) {
        if (!other.key().equals(sweepKey) && Duration.between(other.lastModified(), now).compareTo(sweepStale) > 0) {
          stale.add(other.key());
        }
      }

      List<ManifestId> all = manifests.list();
      List<ManifestId> kept = new ArrayList<>();
      List<ManifestId> dropped = new ArrayList<>();
      for (int i = 0; i < all.size(); i++) {
        ManifestId id = all.get(i);
        boolean recent = id.stored() != null && policy.keepNewerThan().compareTo(Duration.ZERO) > 0
            && Duration.between(id.stored(), now).compareTo(policy.keepNewerThan()) < 0;
        (i >= all.size() - policy.keepLast() || recent ? kept : dropped).add(id);
      }
      for (ManifestId id : kept) {
        try {
          manifests.read(id).files().values().forEach(f -> keep.add(layout.fileKey(f)));
        } catch (BackupNotFoundException e) {
          // Another sweep dropped it meanwhile: it names nothing this sweep must keep.
        }
      }

      List<ObjectInfo> doomed = new ArrayList<>();
      for (ObjectInfo f : store.list(layout.filesPrefix())) {
        if (!keep.contains(f.key())) {
          doomed.add(f);
        }
      }
      beforeDeletes.run();
      // Checked in the request path before every attempt, so no retry outlives the lease either.
      Deadline lease = Deadline.after(start, config.sweepLease());
      List<ManifestId> deletedManifests = new ArrayList<>();
      int deleted = 0;
      long bytes = 0;
      int staleDeleted = 0;
      String stopped = "";
      try {
        for (ManifestId id : dropped) {
          manifests.delete(id, lease);
          deletedManifests.add(id);
        }
        for (int from = 0; from < doomed.size(); from += 100) {
          List<ObjectInfo> batch = doomed.subList(from, Math.min(doomed.size(), from + 100));
          store.delete(batch.stream().map(ObjectInfo::key).toList(), lease);
          deleted += batch.size();
          bytes += batch.stream().mapToLong(ObjectInfo::size).sum();
        }
        store.delete(stale, lease);
        staleDeleted = stale.size();
      } catch (LeaseExpiredException e) {
        stopped = ", stopped at its lease (" + e.getMessage() + ")";
      }
      boolean complete = stopped.isEmpty();
      log.info("retention kept {} manifest(s), deleted {} manifest(s) and {} file(s) ({} bytes){}", kept.size(),
          deletedManifests.size(), deleted, bytes, stopped);
      return new SweepResult(List.copyOf(kept), List.copyOf(deletedManifests), deleted, bytes, staleDeleted, complete);
    } finally {
      try {
        store.delete(sweepKey);
      } catch (IOException e) {
        log.warn("could not delete sweep marker {}: {}", sweepKey, e.toString());
      }
    }
  }
}

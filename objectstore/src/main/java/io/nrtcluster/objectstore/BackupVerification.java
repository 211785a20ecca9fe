package io.nrtcluster.objectstore;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.Experimental;
import io.nrtcluster.common.NodeLog;
import java.io.IOException;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * One index's background verification, one step at a time: {@link #verifyNewest()} rereads the newest
 * backup ({@link BackupVerifier}, at the configured pace) and acts on what it found, so that a backup
 * damaged in the store is noticed, counted and repaired by the next backup instead of surprising the
 * restore that needs it. The host's scheduler ({@link HostObjectStore}) is to call it every {@link
 * HostStoreConfig#verifyInterval()} at {@link HostStoreConfig#verifyBytesPerSecond()}, on the index's
 * primary (whose backups repair what it finds).
 *
 * <p>After each step that read the store: every damaged object's key is in the index's {@link
 * DamagedObjects} (so the next backup naming it uploads a fresh copy; share the instance with the
 * index's {@link PrimaryBackups}), the index's {@link ObjectStoreMetrics} count the run and hold the
 * number damaged and the version verified ({@link ObjectStoreMeters#VERIFY_RUNS}, {@link
 * ObjectStoreMeters#VERIFY_DAMAGED}, {@link ObjectStoreMeters#VERIFY_LAST_VERSION}), {@link #last()}
 * is its report, and one log line says the result: info when intact, one warn line naming every
 * damaged object and its problem otherwise. A step that could not read the store changes none of it.
 *
 * <p>Thread-safe; steps are meant to run one at a time (a scheduler's single thread), and if they
 * overlap {@link #last()} is the one that ended last.
 */
@Experimental
public final class BackupVerification {
  private final ManifestStore manifests;
  private final BackupVerifier verifier;
  private final DamagedObjects damaged;
  private final ObjectStoreMetrics metrics;
  private final NodeLog log;
  private volatile VerifyReport last;

  /**
   * @param manifests the index's backups; its store connection's {@link ObjectStoreMetrics} are the ones counted
   * @param damaged the index's damaged objects, shared with its backups
   * @param bytesPerSecond the pace of reads: {@link BackupVerifier#UNLIMITED} or at least {@link
   *     BackupVerifier#MIN_BYTES_PER_SECOND}
   * @param log the index's log ({@code N1/docs})
   */
  public BackupVerification(ManifestStore manifests, DamagedObjects damaged, long bytesPerSecond, NodeLog log) {
    this.manifests = manifests;
    this.verifier = new BackupVerifier(manifests, bytesPerSecond);
    this.damaged = Checks.notNull("damaged", damaged);
    this.metrics = manifests.blobStore().metrics();
    this.log = log;
  }

  /**
   * Verifies the newest backup, on the calling thread, and records the result (see the class comment).
   *
   * @return the report, damaged or not
   * @throws BackupNotFoundException there is no backup yet, or retention removed the newest meanwhile:
   *     nothing to verify now, nothing recorded
   * @throws CorruptBackupException the newest manifest itself is unusable (named; logged at warn and
   *     counted as a run with one damaged object); {@link #last()} keeps the previous report
   * @throws ObjectStoreUnavailableException the store did not answer; nothing recorded
   * @throws ObjectStoreAccessException the store refused; nothing recorded
   */
  public VerifyReport verifyNewest() throws IOException {
    ManifestId id = manifests.latestId()
        .orElseThrow(() -> new BackupNotFoundException("no backup of " + manifests.layout().root() + " to verify"));
    VerifyReport r;
    try {
      r = verifier.verify(id);
    } catch (CorruptBackupException e) {
      metrics.verified(id.version(), 1);
      log.warn("backup version {} gen {} DAMAGED: its manifest {}: {}", id.version(), id.primaryGen(), e.objectKey(),
          e.getMessage());
      throw e;
    }
    damaged.addAll(r.damagedKeys());
    metrics.verified(id.version(), r.damage().size());
    last = r;
    if (r.intact()) {
      log.info("backup version {} gen {} verified: intact ({} objects, {} bytes in {} ms)", id.version(), id.primaryGen(),
          r.objectsChecked(), r.bytesRead(), r.took().toMillis());
    } else {
      log.warn("backup version {} gen {} DAMAGED: {} of {} object(s): {}; the next backup naming them uploads them again",
          id.version(), id.primaryGen(), r.damage().size(), r.objectsChecked(), r.damage().stream()
              .map(d -> d.key() + " (" + d.problem() + ": " + d.detail() + ")").collect(Collectors.joining(", ")));
    }
    return r;
  }

  /** The report of the last step that read the store, if any. */
  public Optional<VerifyReport> last() {
    return Optional.ofNullable(last);
  }

  /** The damaged objects this verification marks. */
  public DamagedObjects damagedObjects() {
    return damaged;
  }
}

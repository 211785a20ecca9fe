package io.nrtcluster.replica;

import io.nrtcluster.common.Experimental;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counters of one replica's copying, safe to read at any time. Bytes count what crossed the wire,
 * so a restart that copies only missing files shows it here. Each event also goes to the replica's
 * {@link ReplicaObserver}.
 */
@Experimental
public final class ReplicaStats {
  private final ReplicaObserver observer;
  private final AtomicLong bytesCopied = new AtomicLong();
  private final AtomicLong filesCopied = new AtomicLong();
  private final AtomicLong checksumMismatches = new AtomicLong();
  private final AtomicLong bytesResumed = new AtomicLong();
  private final AtomicLong bytesDiscarded = new AtomicLong();
  private final AtomicLong copyResumes = new AtomicLong();
  private final AtomicLong resumesRefused = new AtomicLong();
  private final AtomicLong nrtCopiesCompleted = new AtomicLong();
  private final AtomicLong nrtCopiesFailed = new AtomicLong();
  private final AtomicLong preCopiesCompleted = new AtomicLong();
  private final AtomicLong staleGenerationsRefused = new AtomicLong();
  private final AtomicLong resyncs = new AtomicLong();
  private final AtomicLong storageFailures = new AtomicLong();
  private final AtomicLong failuresInARow = new AtomicLong();
  private final AtomicLong corruptAtStart = new AtomicLong();
  private final AtomicLong corruptByScrub = new AtomicLong();
  private final AtomicLong quarantined = new AtomicLong();
  private final AtomicLong bytesVerified = new AtomicLong();
  private final AtomicLong scrubFailures = new AtomicLong();
  private final Map<CopyFailureReason, AtomicLong> failuresByReason = new EnumMap<>(CopyFailureReason.class);
  private final AtomicLong corruptFileReports = new AtomicLong();
  private final AtomicLong primaryFilesCorrupt = new AtomicLong();
  private final AtomicLong primaryFilesIntact = new AtomicLong();
  private final AtomicLong maxFilesInFlight = new AtomicLong();
  private volatile long lastCopyCompletedMillis;
  private final AtomicLong filesFromPeers = new AtomicLong();
  private final AtomicLong bytesFromPeers = new AtomicLong();
  private final AtomicLong peerFallbacks = new AtomicLong();

  ReplicaStats(ReplicaObserver observer) {
    this.observer = observer;
    for (CopyFailureReason r : CopyFailureReason.values()) {
      failuresByReason.put(r, new AtomicLong());
    }
  }

  ReplicaObserver observer() {
    return observer;
  }

  void bytesReceived(long bytes) {
    bytesCopied.addAndGet(bytes);
    observer.bytesCopied(bytes);
  }

  void fileFromPeer(long bytes) {
    filesFromPeers.incrementAndGet();
    bytesFromPeers.addAndGet(bytes);
  }

  void peerFallback() {
    peerFallbacks.incrementAndGet();
  }

  /** Files copied whole from a peer replica (the copy tree's parent) instead of the primary. */
  public long filesFromPeers() {
    return filesFromPeers.get();
  }

  /** Bytes of the files counted by {@link #filesFromPeers()}. */
  public long bytesFromPeers() {
    return bytesFromPeers.get();
  }

  /** Files a parent replica could not serve whole and intact, then fetched from the primary. */
  public long peerFallbacks() {
    return peerFallbacks.get();
  }

  void fileCopied() {
    filesCopied.incrementAndGet();
    observer.fileCopied();
  }

  void checksumMismatch() {
    checksumMismatches.incrementAndGet();
    observer.checksumMismatch();
  }

  void resumedFile(long bytesCarriedOver) {
    bytesResumed.addAndGet(bytesCarriedOver);
  }

  void resumedAfterDrop(long bytesKept) {
    copyResumes.incrementAndGet();
    bytesResumed.addAndGet(bytesKept);
    observer.copyResumed(bytesKept);
  }

  void resumeRefused() {
    resumesRefused.incrementAndGet();
    observer.resumeRefused();
  }

  void discarded(long bytes) {
    if (bytes > 0) {
      bytesDiscarded.addAndGet(bytes);
      observer.bytesDiscarded(bytes);
    }
  }

  void nrtCopyCompleted() {
    nrtCopiesCompleted.incrementAndGet();
    failuresInARow.set(0);
    lastCopyCompletedMillis = System.currentTimeMillis();
  }

  void nrtCopyFailed(CopyFailureReason reason) {
    nrtCopiesFailed.incrementAndGet();
    failuresByReason.get(reason).incrementAndGet();
    failuresInARow.incrementAndGet();
    observer.copyFailed();
    observer.copyFailed(reason);
  }

  void corruptFileReported() {
    corruptFileReports.incrementAndGet();
  }

  void verdictReceived(boolean primaryCorrupt) {
    (primaryCorrupt ? primaryFilesCorrupt : primaryFilesIntact).incrementAndGet();
    observer.fileVerdict(primaryCorrupt);
  }

  void storageFailed() {
    storageFailures.incrementAndGet();
    observer.storageFailed();
  }

  void corruptFileFound(String fileName, boolean byScrub) {
    (byScrub ? corruptByScrub : corruptAtStart).incrementAndGet();
    observer.corruptFileFound(fileName, byScrub);
  }

  void quarantined(int files) {
    quarantined.addAndGet(files);
  }

  void verified(long bytes) {
    bytesVerified.addAndGet(bytes);
  }

  void scrubFailed() {
    scrubFailures.incrementAndGet();
    observer.scrubFailed();
  }

  void preCopyCompleted() {
    preCopiesCompleted.incrementAndGet();
  }

  void staleGenerationRefused() {
    staleGenerationsRefused.incrementAndGet();
    observer.staleGenerationRefused();
  }

  void resynced() {
    resyncs.incrementAndGet();
    observer.resynced();
  }

  /** File bytes received from primaries, counted as they arrive (including attempts that failed). */
  public long bytesCopied() {
    return bytesCopied.get();
  }

  /** Files received completely and verified. */
  public long filesCopied() {
    return filesCopied.get();
  }

  /** Files (or temp files) whose bytes did not match the primary's checksum or length. */
  public long checksumMismatches() {
    return checksumMismatches.get();
  }

  /**
   * Bytes a copy kept instead of fetching them again (finished temp files and the partly copied
   * file): taken over from the copy a newer NRT point superseded, or kept across a dropped
   * connection ({@link #copyResumes()}).
   */
  public long bytesResumed() {
    return bytesResumed.get();
  }

  /**
   * Bytes received and then thrown away, which a later attempt fetches again: the partly copied
   * file and finished temp files of a copy that failed, a file that failed its checksum, a partly
   * copied file found changed on disk when its copy resumed. Next to {@link #bytesResumed()}: what a
   * dropped connection cost in bytes sent twice.
   */
  public long bytesDiscarded() {
    return bytesDiscarded.get();
  }

  void filesInFlight(int files) {
    maxFilesInFlight.accumulateAndGet(files, Math::max);
  }

  /**
   * The most files of one copy in flight at once so far, as the copy saw at the start of each slice
   * it wrote: the file being written and those requested ahead of it ({@code prefetchFiles}) that the
   * primary had answered and was sending, their bytes not yet written.
   */
  public long maxFilesInFlight() {
    return maxFilesInFlight.get();
  }

  /** Copies that continued where they stopped after their connection to the primary dropped. */
  public long copyResumes() {
    return copyResumes.get();
  }

  /**
   * Copies cut by a dropped connection that could not resume and started over: the primary's lease
   * on the copy-state had ended, the link stayed down past {@code copyResumeWindow}, or it came back
   * to another primary.
   */
  public long resumesRefused() {
    return resumesRefused.get();
  }

  public long nrtCopiesCompleted() {
    return nrtCopiesCompleted.get();
  }

  /** NRT copies that failed (a copy superseded by a newer NRT point is not a failure). */
  public long nrtCopiesFailed() {
    return nrtCopiesFailed.get();
  }

  /**
   * NRT copies that failed since the last one that succeeded. Rising while the primary refreshes: the
   * replica is stuck on its last good searcher (see {@link #storageFailures()} for a full disk).
   */
  public long consecutiveCopyFailures() {
    return failuresInARow.get();
  }

  /** NRT copies that failed for {@code reason}; the counts of all reasons add up to {@link #nrtCopiesFailed()}. */
  public long copyFailures(CopyFailureReason reason) {
    return failuresByReason.get(reason).get();
  }

  /**
   * Times this replica told its primary that a file kept failing its checksum in transit (after
   * {@code ReplicaConfig.corruptFileReportAfter} failures of the same file from the same primary).
   */
  public long corruptFileReports() {
    return corruptFileReports.get();
  }

  /** Reports the primary answered by finding its own file corrupt (a tragic event on the primary). */
  public long primaryFilesCorrupt() {
    return primaryFilesCorrupt.get();
  }

  /**
   * Reports the primary answered by finding its file intact: the bytes were damaged on the way or on
   * this node (network path, memory, local storage), and the replica backed off longer.
   */
  public long primaryFilesIntact() {
    return primaryFilesIntact.get();
  }

  /**
   * Copies (NRT points and merge pre-copies) and commits that failed on local storage: disk full, or
   * an I/O error writing, installing or syncing a file. A failed copy removes its temp files and is
   * retried with backoff; the last good searcher keeps serving meanwhile.
   */
  public long storageFailures() {
    return storageFailures.get();
  }

  public long preCopiesCompleted() {
    return preCopiesCompleted.get();
  }

  /** NRT points, copy-states or primaries refused because their generation was stale. */
  public long staleGenerationsRefused() {
    return staleGenerationsRefused.get();
  }

  /** Times the replica had to resynchronize from scratch with a new primary. */
  public long resyncs() {
    return resyncs.get();
  }

  /** Local files whose checksum failed in the check at start (each is quarantined and copied again). */
  public long corruptFilesAtStart() {
    return corruptAtStart.get();
  }

  /** Local files whose checksum failed in the background scrub (each is quarantined and copied again). */
  public long corruptFilesByScrub() {
    return corruptByScrub.get();
  }

  /** Files moved into the quarantine folder (corrupt ones, and the commit point they made unusable). */
  public long quarantinedFiles() {
    return quarantined.get();
  }

  /** Bytes of local files whose whole checksum was recomputed (start check and scrub). */
  public long bytesVerified() {
    return bytesVerified.get();
  }

  /**
   * Scrub passes that ended early on a failure other than a corrupt or vanished file (an I/O error,
   * a bug); each was followed by the next pass on schedule. Above 0, the scrub's WARN line names the
   * first failure of each kind.
   */
  public long scrubFailures() {
    return scrubFailures.get();
  }

  /** Wall-clock millis of the last completed NRT copy, 0 if none. */
  public long lastCopyCompletedMillis() {
    return lastCopyCompletedMillis;
  }

  @Override
  public String toString() {
    return "ReplicaStats(bytes=" + bytesCopied + ", files=" + filesCopied + ", mismatches=" + checksumMismatches
        + ", resumedBytes=" + bytesResumed + ", discardedBytes=" + bytesDiscarded + ", resumes=" + copyResumes
        + ", copies=" + nrtCopiesCompleted + ", failed=" + nrtCopiesFailed
        + ", inARow=" + failuresInARow + ", byReason=" + failuresByReason + ", storageFailures=" + storageFailures
        + ", corruptAtStart=" + corruptAtStart + ", corruptByScrub=" + corruptByScrub + ", quarantined=" + quarantined
        + ", scrubFailures=" + scrubFailures
        + ", reports=" + corruptFileReports + ", primaryCorrupt=" + primaryFilesCorrupt + ", primaryIntact=" + primaryFilesIntact + ")";
  }
}

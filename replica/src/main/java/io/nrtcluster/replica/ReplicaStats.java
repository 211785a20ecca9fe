package io.nrtcluster.replica;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Counters of one replica's copying, safe to read at any time. Bytes count what crossed the wire,
 * so a restart that copies only missing files shows it here. Each event also goes to the replica's
 * {@link ReplicaObserver}.
 */
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
  private volatile long lastCopyCompletedMillis;

  ReplicaStats(ReplicaObserver observer) {
    this.observer = observer;
  }

  ReplicaObserver observer() {
    return observer;
  }

  void bytesReceived(long bytes) {
    bytesCopied.addAndGet(bytes);
    observer.bytesCopied(bytes);
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

  void nrtCopyFailed() {
    nrtCopiesFailed.incrementAndGet();
    observer.copyFailed();
    failuresInARow.incrementAndGet();
  }

  void storageFailed() {
    storageFailures.incrementAndGet();
    observer.storageFailed();
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

  /** Wall-clock millis of the last completed NRT copy, 0 if none. */
  public long lastCopyCompletedMillis() {
    return lastCopyCompletedMillis;
  }

  @Override
  public String toString() {
    return "ReplicaStats(bytes=" + bytesCopied + ", files=" + filesCopied + ", mismatches=" + checksumMismatches
        + ", resumedBytes=" + bytesResumed + ", discardedBytes=" + bytesDiscarded + ", resumes=" + copyResumes
        + ", copies=" + nrtCopiesCompleted + ", failed=" + nrtCopiesFailed
        + ", storageFailures=" + storageFailures + ")";
  }
}

package io.nrtcluster.replica;

import io.nrtcluster.common.Experimental;

/**
 * Hears one replica's copy events as they happen, for metrics. Every method runs on a copy or
 * network thread in the middle of the work it reports: implementations must be quick, thread-safe
 * and must not throw. The defaults do nothing, so {@link #NONE} costs one empty call per event.
 *
 * <p>The events are the same ones {@link ReplicaStats} counts; unlike those counters, an observer
 * can outlive the replica (a cluster node reopens its replica on every role change and passes the
 * same observer each time).
 */
@Experimental
public interface ReplicaObserver {
  /** Observes nothing. */
  ReplicaObserver NONE = new ReplicaObserver() {};

  /** {@code bytes} of file data arrived from a primary (also for attempts that fail later). */
  default void bytesCopied(long bytes) {}

  /** A file arrived completely and passed its length and checksum checks. */
  default void fileCopied() {}

  /** A file's bytes did not match the primary's checksum or length; it is fetched again. */
  default void checksumMismatch() {}

  /** A copy cut by a dropped connection resumed on a new one, keeping {@code bytesKept} bytes already copied. */
  default void copyResumed(long bytesKept) {}

  /** A copy cut by a dropped connection could not resume (lease ended, another primary) and starts over. */
  default void resumeRefused() {}

  /** {@code bytes} received were thrown away and will be fetched again. */
  default void bytesDiscarded(long bytes) {}

  /** An NRT copy failed (the last good searcher keeps serving; the replica retries). */
  default void copyFailed() {}

  /** The NRT copy that just failed ({@link #copyFailed()}) failed for {@code reason}. */
  default void copyFailed(CopyFailureReason reason) {}

  /**
   * The primary answered a report that one of its files kept failing its checksum: {@code
   * primaryCorrupt} when its own copy is corrupt, false when it verified intact (the fault is on the
   * way or on this node).
   */
  default void fileVerdict(boolean primaryCorrupt) {}

  /**
   * Writing to local storage failed (disk full, an I/O error, a failed fsync or rename): the copy
   * or commit involved failed cleanly and the replica keeps its last good searcher.
   */
  default void storageFailed() {}

  /**
   * The replica now searches {@code version}. {@code nanosSinceAnnounced} is how long ago it first
   * heard of the oldest announced version this install covers, or -1 when it heard of none (a copy
   * at start-up or after a reconnect with no announcement).
   */
  default void versionSearched(long version, long nanosSinceAnnounced) {}

  /** The replica threw its local commit away to copy a new primary's point-in-time afresh. */
  default void resynced() {}

  /** An NRT point, copy-state or primary was refused because its generation was stale. */
  default void staleGenerationRefused() {}

  /**
   * A local index file failed its checksum ({@code byScrub}: found by the background scrub; else by
   * the check at start) and was quarantined; the replica copies it again from its primary.
   */
  default void corruptFileFound(String fileName, boolean byScrub) {}

  /**
   * A background scrub pass ended early on a failure other than a corrupt or vanished file (an I/O
   * error, a bug); the next pass starts on schedule.
   */
  default void scrubFailed() {}
}

package io.nrtcluster.replica;

import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.lucene.replicator.nrt.CopyJob;

/**
 * The NRT copy a replica node runs now, and when the steps of recent copies happened ({@link
 * CopyPhases}): the copy-state in hand, every file arrived, the searcher switched. Its readers (the
 * catch-up, the replica's status, the copy-phase listeners) never wait for the node's monitor.
 *
 * <p>Guarantees: a reader that sees the copy running sees when it was launched; the copy-state
 * times of the 128 newest versions are kept.
 */
final class NrtCopyTimeline {
  /** The NRT copy running now (Lucene's {@code curNRTCopy}), readable without the monitor. */
  private final AtomicReference<CopyJob> running = new AtomicReference<>();
  /** When {@link #running} was launched (written before it, so a reader of the job sees its start). */
  private volatile long launchedAtNanos;
  /** When the copy-state of a recent version was in hand. */
  private final ConcurrentSkipListMap<Long, Long> copyStateAt = new ConcurrentSkipListMap<>();
  /** When the files of the copy being installed had all arrived; only its installer reads it. */
  private volatile long filesAtNanos;
  /** When the searcher of the copy installed last switched to it. */
  private volatile long switchedAtNanos;

  /** The copy-state of {@code version} is in hand. */
  void copyStateInHand(long version) {
    copyStateAt.putIfAbsent(version, System.nanoTime());
    while (copyStateAt.size() > 128) {
      copyStateAt.pollFirstEntry();
    }
  }

  /** The node launched {@code job}, its current NRT copy. */
  void launched(CopyJob job) {
    launchedAtNanos = System.nanoTime();
    running.set(job);
  }

  /** Every file of {@code job} arrived: it no longer runs, it is being installed. */
  void filesArrived(CopyJob job) {
    running.compareAndSet(job, null);
    filesAtNanos = System.nanoTime();
  }

  /** The searcher switched to the copy being installed (or its install ended). */
  void switched() {
    switchedAtNanos = System.nanoTime();
  }

  /** True while an NRT point is being copied. */
  boolean copying() {
    return running.get() != null;
  }

  /** How long the NRT copy running now has run, or -1 when none runs. */
  long copyingNanos() {
    long start = launchedAtNanos;
    return running.get() == null ? -1 : System.nanoTime() - start;
  }

  /** Version of the NRT copy running now, or -1. */
  long copyingVersion() {
    CopyJob job = running.get();
    return job == null ? -1 : job.getCopyState().version();
  }

  /** When the copy-state of {@code version} was in hand, or -1. */
  long copyStateAtNanos(long version) {
    Long t = copyStateAt.get(version);
    return t == null ? -1 : t;
  }

  /** When the files of the copy that finished last had all arrived and been verified. */
  long filesAtNanos() {
    return filesAtNanos;
  }

  /** When the searcher switched to the copy that finished last. */
  long switchedAtNanos() {
    return switchedAtNanos;
  }
}

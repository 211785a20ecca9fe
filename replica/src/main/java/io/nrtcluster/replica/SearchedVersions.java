package io.nrtcluster.replica;

import io.nrtcluster.common.NodeLog;
import java.util.List;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.apache.lucene.replicator.nrt.CopyJob;

/**
 * What a replica tells about the versions its primary announces and the ones it starts searching:
 * its {@link ReplicaObserver}, version listeners and copy-phase listeners ({@link CopyPhases}) hear
 * of each version searched, and {@link LagTracker} measures how far behind the announcements it is.
 *
 * <p>Guarantees: the observer, then the phase listeners, then the version listeners are told, on
 * the thread that reports the version; one that fails is logged and the others are still told.
 * Only the 128 newest announcements are remembered for the phases.
 */
final class SearchedVersions {
  private final NodeLog log;
  private final ReplicaStats stats;
  private final ReplicaLifecycle lifecycle;
  private final List<LongConsumer> versionListeners = new CopyOnWriteArrayList<>();
  private final List<Consumer<CopyPhases>> phaseListeners = new CopyOnWriteArrayList<>();
  /** When each recent version was first announced (for {@link CopyPhases}). */
  private final ConcurrentSkipListMap<Long, Long> announcedAt = new ConcurrentSkipListMap<>();
  private final LagTracker lag = new LagTracker();

  /** {@code lifecycle}: whose node timed the phases of the copy that installed a version. */
  SearchedVersions(NodeLog log, ReplicaStats stats, ReplicaLifecycle lifecycle) {
    this.log = log;
    this.stats = stats;
    this.lifecycle = lifecycle;
  }

  void addVersionListener(LongConsumer listener) {
    versionListeners.add(listener);
  }

  void addCopyPhasesListener(Consumer<CopyPhases> listener) {
    phaseListeners.add(listener);
  }

  /** The primary announced {@code version} while the replica searched {@code searching}. */
  void announced(long version, long searching) {
    announcedAt.putIfAbsent(version, System.nanoTime());
    while (announcedAt.size() > 128) {
      announcedAt.pollFirstEntry();
    }
    lag.announced(version, searching);
  }

  /** Searches see the version {@code job} copied from now on: tells everyone who listens. */
  void searched(CopyJob job) {
    long version = job.getCopyState().version();
    try {
      stats.observer().versionSearched(version, lag.searched(version));
    } catch (RuntimeException e) {
      log.warn("replica observer failed", e);
    }
    if (!phaseListeners.isEmpty() && job instanceof StreamingCopyJob) {
      ReplicatingReplicaNode n = lifecycle.node();
      NrtCopyTimeline t = n == null ? null : n.timeline();
      Long heard = announcedAt.get(version);
      CopyPhases phases = new CopyPhases(version, heard == null ? -1 : heard, t == null ? -1 : t.copyStateAtNanos(version),
          t == null ? -1 : t.filesAtNanos(), t == null ? -1 : t.switchedAtNanos(), System.nanoTime());
      for (Consumer<CopyPhases> l : phaseListeners) {
        try {
          l.accept(phases);
        } catch (RuntimeException e) {
          log.warn("copy phase listener failed", e);
        }
      }
    }
    for (LongConsumer l : versionListeners) {
      try {
        l.accept(version);
      } catch (RuntimeException e) {
        log.warn("version listener failed", e);
      }
    }
  }

  /** The newest version the primary announced, or -1. */
  long newestAnnounced() {
    return lag.newestAnnounced();
  }

  /** Versions between {@code searching} and the newest announced one; 0 when caught up. */
  long versionsBehind(long searching) {
    return lag.versionsBehind(searching);
  }

  /** Age of the oldest announced version newer than {@code searching}; 0 when caught up. */
  long nanosBehind(long searching) {
    return lag.nanosBehind(searching);
  }
}

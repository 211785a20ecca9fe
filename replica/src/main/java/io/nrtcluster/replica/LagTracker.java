package io.nrtcluster.replica;

import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * When this replica first heard of each NRT point it does not search yet, so it can tell how far
 * behind its primary it is, in versions and in time, on its own clock (no clock comparison across
 * machines). A replica that hears nothing (its primary unreachable) reports no lag here: the
 * primary generation and the members' reports in ZooKeeper cover that case.
 */
final class LagTracker {
  /** Pending points kept at most; beyond it the middle ones go, the oldest (the lag) stays. */
  private static final int MAX_PENDING = 256;

  /** Announced version not yet searched, to the {@link System#nanoTime} it was first heard of. */
  private final ConcurrentSkipListMap<Long, Long> pending = new ConcurrentSkipListMap<>();
  private volatile long newestAnnounced = -1;

  /** The primary announced {@code version} while this replica searched {@code searching}. */
  void announced(long version, long searching) {
    if (version > newestAnnounced) {
      newestAnnounced = version;
    }
    if (version <= searching) {
      return;
    }
    pending.putIfAbsent(version, System.nanoTime());
    while (pending.size() > MAX_PENDING) {
      Long second = pending.higherKey(pending.firstKey());
      if (second == null) {
        break;
      }
      pending.remove(second);
    }
  }

  /**
   * The replica now searches {@code version}: forgets every point up to it and returns the age of
   * the oldest of them in nanoseconds, or -1 when none was pending.
   */
  long searched(long version) {
    long now = System.nanoTime();
    long oldest = -1;
    Map<Long, Long> covered = pending.headMap(version, true);
    for (Long heardAt : covered.values()) {
      oldest = Math.max(oldest, now - heardAt);
    }
    covered.clear();
    return oldest;
  }

  /** The newest version the primary announced, or -1. */
  long newestAnnounced() {
    return newestAnnounced;
  }

  /** Versions between what the replica searches and the newest announced one; 0 when caught up. */
  long versionsBehind(long searching) {
    long newest = newestAnnounced;
    return newest < 0 ? 0 : Math.max(0, newest - Math.max(searching, 0));
  }

  /** Age of the oldest announced point newer than {@code searching}; 0 when caught up. */
  long nanosBehind(long searching) {
    Map.Entry<Long, Long> oldest = pending.higherEntry(searching);
    return oldest == null ? 0 : Math.max(0, System.nanoTime() - oldest.getValue());
  }
}

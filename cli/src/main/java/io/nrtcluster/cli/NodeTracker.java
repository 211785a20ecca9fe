package io.nrtcluster.cli;

import io.nrtcluster.node.ClusterNode;
import io.nrtcluster.replica.Replica;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What the demo measures about one node position across restarts and role changes: when it first
 * searched each version, and the files and bytes all its replicas copied (a node gets a new {@link
 * Replica} after each restart or step-down; their counts are added up).
 */
final class NodeTracker {
  static final long NOT_YET = -1;
  static final long RESTARTED = -2;

  private final ConcurrentSkipListMap<Long, Long> reached = new ConcurrentSkipListMap<>();
  /** nanoTimes at which this node went down (closed or halted). */
  private final List<Long> downs = new CopyOnWriteArrayList<>();
  private Replica current;
  private long retiredFiles;
  private long retiredBytes;

  /** Looks at the node (null while it is down): its replica now, and the version it searches. */
  synchronized void observe(ClusterNode node) {
    Replica r = node == null ? null : node.replica();
    if (r != current) {
      if (current != null) {
        retiredFiles += current.stats().filesCopied();
        retiredBytes += current.stats().bytesCopied();
      }
      current = r;
      if (r != null) {
        r.addVersionListener(this::reached);
      }
    }
    if (node != null) {
      reached(node.searchingVersion());
    }
  }

  void reached(long version) {
    if (version >= 0) {
      reached.putIfAbsent(version, System.nanoTime());
    }
  }

  void wentDown(long nanoTime) {
    downs.add(nanoTime);
  }

  /** Files and bytes copied by every replica this node ever had. */
  synchronized Copied copied() {
    Replica r = current;
    return new Copied(retiredFiles + (r == null ? 0 : r.stats().filesCopied()),
        retiredBytes + (r == null ? 0 : r.stats().bytesCopied()));
  }

  /**
   * Nanos from {@code sinceNanos} until this node first searched {@code version} or later; {@link
   * #NOT_YET} if it does not yet, {@link #RESTARTED} if it went down before it got there.
   */
  long lagNanos(long version, long sinceNanos) {
    Map.Entry<Long, Long> e = reached.ceilingEntry(version);
    long reachedAt = e == null ? Long.MAX_VALUE : e.getValue();
    for (long down : downs) {
      if (down >= sinceNanos && down < reachedAt) {
        return RESTARTED;
      }
    }
    return e == null ? NOT_YET : Math.max(0, reachedAt - sinceNanos);
  }
}

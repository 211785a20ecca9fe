package io.nrtcluster.examples.search;

import io.nrtcluster.common.NodeLog;
import io.nrtcluster.node.ClusterNode;
import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.concurrent.ConcurrentSkipListSet;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.SearcherLifetimeManager;
import org.apache.lucene.store.AlreadyClosedException;

/**
 * The recent points-in-time of one index on this node, kept open for paging: a Lucene {@link
 * SearcherLifetimeManager} keyed by the reader's version, which on every node is the version the
 * primary published (replicas open the primary's exact {@code SegmentInfos}), so page 2 of a search
 * may be read from any node that holds the version of page 1.
 *
 * <p>Fed by {@link #poll()} (the service calls it every few milliseconds, so each version a node
 * searches is recorded, in either role and across role changes) and by every search. Pruned to the
 * newest {@code maxVersions} and to versions replaced less than {@code maxAge} ago. A held searcher
 * keeps its files open, so a version stays readable even after the node changed roles or the files
 * were deleted from the directory.
 */
final class PointInTimeSearchers implements Closeable {
  private final ClusterNode node;
  private final NodeLog log;
  private final Duration maxAge;
  private final int maxVersions;
  private final SearcherLifetimeManager lifetimes = new SearcherLifetimeManager();
  private final NavigableSet<Long> held = new ConcurrentSkipListSet<>();
  /** Newest version recorded; guarded by this, which {@link #awaitVersion} waits on. */
  private long newest = -1;
  private volatile long lastPruneNanos;
  private volatile boolean closed;

  PointInTimeSearchers(ClusterNode node, NodeLog log, Duration maxAge, int maxVersions) {
    this.node = node;
    this.log = log;
    this.maxAge = maxAge;
    this.maxVersions = maxVersions;
  }

  /** A searcher of {@code version} or of the current version (null), recorded; release with {@link #release}. */
  record Lease(long version, IndexSearcher searcher, boolean fromLifetimes) {}

  /** Records the version searched now if it is new here; called periodically. */
  void poll() {
    if (closed) {
      return;
    }
    long current = node.searchingVersion();
    try {
      boolean known;
      synchronized (this) {
        known = current == newest;
      }
      if (!known && current >= 0) {
        Lease lease = acquireCurrent();
        release(lease);
      } else if (System.nanoTime() - lastPruneNanos > 1_000_000_000L) {
        prune();
      }
    } catch (IOException | RuntimeException e) {
      log.debug("recording the current searcher failed: {}", e.toString());
    }
  }

  /** The searcher of the version this node searches now, recorded for later pages. */
  Lease acquireCurrent() throws IOException {
    IndexSearcher s;
    try {
      s = node.acquireSearcher();
    } catch (AlreadyClosedException e) {
      throw new ApiException(ApiError.UNAVAILABLE, "index " + node.index() + " is closing");
    }
    long version = version(s);
    boolean recorded = false;
    try {
      synchronized (this) {
        if (!closed) {
          try {
            lifetimes.record(s);
          } catch (IllegalArgumentException e) {
            // Already held through another searcher instance of the same version (a role switch
            // reopened it): the same point-in-time, so the first one stays.
          }
          held.add(version);
          recorded = true;
          if (version > newest) {
            newest = version;
            notifyAll();
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      node.releaseSearcher(s);
      throw e;
    }
    if (recorded) {
      prune();
    }
    return new Lease(version, s, false);
  }

  /**
   * The searcher of {@code version}: a 409 when this node does not search it yet, a 410 when it no
   * longer holds it (or never did).
   */
  Lease acquire(long version) {
    IndexSearcher s;
    try {
      s = lifetimes.acquire(version);
    } catch (AlreadyClosedException e) {
      throw new ApiException(ApiError.UNAVAILABLE, "index " + node.index() + " is closing");
    }
    if (s != null) {
      return new Lease(version, s, true);
    }
    long current = node.searchingVersion();
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("version", version);
    details.put("searchingVersion", current);
    details.put("heldVersions", heldVersions());
    if (version > current) {
      throw new ApiException(ApiError.VERSION_AHEAD, "version " + version + " of index " + node.index()
          + " is not searchable on this node yet (it searches " + current + "): retry, or ask another node", details);
    }
    throw new ApiException(ApiError.VERSION_EXPIRED, "version " + version + " of index " + node.index()
        + " is no longer held on this node: search again without a version to start from the current one", details);
  }

  void release(Lease lease) throws IOException {
    if (lease.fromLifetimes()) {
      lifetimes.release(lease.searcher());
    } else {
      node.releaseSearcher(lease.searcher());
    }
  }

  /** Waits (bounded) until this node searches {@code version} or newer; false if it did not in time. */
  boolean awaitVersion(long version, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (this) {
      while (newest < version && !closed) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        try {
          wait(Math.max(1, left / 1_000_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
      return newest >= version;
    }
  }

  /** Versions held now, oldest first. */
  List<Long> heldVersions() {
    return new ArrayList<>(held);
  }

  private void prune() throws IOException {
    lastPruneNanos = System.nanoTime();
    double maxAgeSec = maxAge.toNanos() / 1e9;
    int[] kept = {0};
    // Called newest first; ageSec is how long ago a newer version replaced this one.
    lifetimes.prune((ageSec, searcher) -> {
      boolean drop = kept[0] >= maxVersions || ageSec > maxAgeSec;
      if (drop) {
        held.remove(version(searcher));
      } else {
        kept[0]++;
      }
      return drop;
    });
  }

  private static long version(IndexSearcher s) {
    return ((DirectoryReader) s.getIndexReader()).getVersion();
  }

  @Override
  public void close() throws IOException {
    synchronized (this) {
      closed = true;
      notifyAll();
    }
    held.clear();
    lifetimes.close();
  }
}

package io.nrtcluster.replica;

import io.nrtcluster.common.IndexUnavailableException;
import io.nrtcluster.common.NodeClosedException;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.replica.Replica.State;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.AlreadyClosedException;

/**
 * Which searcher a replica's searches get, and so which version it searches: the searcher of the
 * node it runs, or the last good one ({@link FallbackSearcher}, owned here) while a resync's
 * reopened index has no point copied from a primary, or none for a bounded wait.
 *
 * <p>Guarantees: the node's own searcher serves only while the replica runs, no corrupt file
 * awaits its copy, and the point it searches is not a local commit holding writes no primary
 * published; a search waits at most {@value #SEARCHER_WAIT_MILLIS} ms for one, then fails with
 * {@link IndexUnavailableException} (a closed replica at once with {@link NodeClosedException});
 * every searcher handed out holds a reference of its own, given back once with {@link #release}.
 */
final class Searchers {
  /** How long a search waits for a searcher while the replica reopens its index. */
  private static final long SEARCHER_WAIT_MILLIS = 10_000;

  private final NodeLog log;
  private final ReplicaLifecycle lifecycle;
  private final FileIntegrity integrity;
  /** Serves while a resync's reopened index has no copied point yet. */
  private final FallbackSearcher fallback = new FallbackSearcher(this::release);

  Searchers(NodeLog log, ReplicaLifecycle lifecycle, FileIntegrity integrity) {
    this.log = log;
    this.lifecycle = lifecycle;
    this.integrity = integrity;
  }

  /** The last good searcher a resync holds on to (held and given up by the resync and the copies). */
  FallbackSearcher fallback() {
    return fallback;
  }

  /** A searcher of the version searched now, as {@link Replica#acquireSearcher()} describes. */
  IndexSearcher acquire() throws IOException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SEARCHER_WAIT_MILLIS);
    while (true) {
      State st = lifecycle.state();
      if (st == State.CLOSED) {
        throw new NodeClosedException("replica " + log.name() + " is closed");
      }
      ReplicatingReplicaNode n = lifecycle.node();
      if (st == State.RUNNING && n != null && n.isStarted() && !integrity.awaitingRepair()) {
        IndexSearcher last = n.installedPrimaryGen() < 0 ? fallback.acquire() : null;
        if (last != null) {
          return last;
        }
        if (!n.searchesUnpublishedCommit()) {
          try {
            return n.getSearcherManager().acquire();
          } catch (AlreadyClosedException e) {
            // A resync or close swapped the node: look again.
            continue;
          }
        }
      }
      IndexSearcher f = fallback.acquire();
      if (f != null) {
        return f;
      }
      long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      if (left <= 0) {
        throw new IndexUnavailableException("replica " + log.name() + " has had no searcher for " + SEARCHER_WAIT_MILLIS
            + " ms (" + st + (integrity.awaitingRepair() ? ", copying its index again after corrupt files " + integrity.corruptFiles() : "")
            + (n != null && n.searchesUnpublishedCommit() ? ", its local commit holds writes no refresh published: it serves"
                + " once the primary published that point or it copied a newer one" : "")
            + "); retry");
      }
      try {
        lifecycle.awaitChange(st, n, Math.min(left, 100));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IndexUnavailableException("interrupted waiting for a searcher of replica " + log.name());
      }
    }
  }

  /** Gives back a searcher from {@link #acquire()}, once. */
  void release(IndexSearcher searcher) {
    try {
      searcher.getIndexReader().decRef();
    } catch (IOException e) {
      log.warn("releasing a searcher failed", e);
    }
  }

  /** The version searched now, or -1 when none is (closed, reopening, repairing corrupt files). */
  long searchingVersion() {
    ReplicatingReplicaNode n = lifecycle.node();
    if (n == null || !n.isStarted() || integrity.awaitingRepair()) {
      return -1;
    }
    if (n.installedPrimaryGen() < 0 && fallback.isHeld()) {
      return fallback.version();
    }
    try {
      return n.getCurrentSearchingVersion();
    } catch (IOException | AlreadyClosedException e) {
      return -1;
    }
  }
}

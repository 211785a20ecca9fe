package io.nrtcluster.replica;

import io.nrtcluster.common.NodeLog;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.search.IndexSearcher;

/**
 * The last good searcher a replica keeps across a resync: it serves while the reopened index has
 * no point copied from a primary yet, so a resync never answers from an emptied directory or from
 * an older local commit. One reference is held; taking it is an atomic swap, so of the paths that
 * release it (a copy installed, a corrupt file found, close) exactly one drops that reference.
 */
final class FallbackSearcher {
  private final AtomicReference<IndexSearcher> held = new AtomicReference<>();
  private final NodeLog log;

  FallbackSearcher(NodeLog log) {
    this.log = log;
  }

  /** Keeps {@code searcher} (whose reference passes to this holder), releasing one held before. */
  void hold(IndexSearcher searcher) {
    decRef(held.getAndSet(searcher));
  }

  /** The held searcher with a reference of the caller's own, or null when none is held. */
  IndexSearcher acquire() {
    IndexSearcher s = held.get();
    return s != null && s.getIndexReader().tryIncRef() ? s : null;
  }

  boolean isHeld() {
    return held.get() != null;
  }

  /** The version of the held point-in-time, or -1 when none is held. */
  long version() {
    IndexSearcher s = held.get();
    return s != null && s.getIndexReader() instanceof DirectoryReader d ? d.getVersion() : -1;
  }

  /** Drops the held searcher, if any; safe to call from several threads at once. */
  void release() {
    decRef(held.getAndSet(null));
  }

  private void decRef(IndexSearcher s) {
    if (s == null) {
      return;
    }
    IndexReader r = s.getIndexReader();
    try {
      r.decRef();
    } catch (IOException | RuntimeException e) {
      log.warn("releasing the last good searcher failed: {}", e.toString());
    }
  }
}

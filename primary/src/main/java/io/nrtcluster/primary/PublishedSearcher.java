package io.nrtcluster.primary;

import io.nrtcluster.common.NodeClosedException;
import io.nrtcluster.common.NodeLog;
import java.io.IOException;
import java.util.function.BooleanSupplier;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ReferenceManager;

/**
 * What searches on the primary see: the searcher of the last version that passed the publish gate,
 * holding one reference of its own. Searches use it rather than the writer's newest reader, so that
 * a primary that lost its epoch never shows a version the cluster did not publish (a new primary may
 * publish that number with other contents).
 *
 * <p>Guarantees: a searcher handed out is of a published version (never of a refresh whose
 * publication failed) and stays usable until released; nothing is published once the primary is
 * closed; {@link #close()} lets the last published searcher go. Its lock is its own, not the
 * publication order, so searches never wait for a refresh.
 */
final class PublishedSearcher {
  private final ReferenceManager<IndexSearcher> searchers;
  private final NodeLog log;
  private final BooleanSupplier closed;
  /** Guarded by {@link #lock}; null once closed. */
  private IndexSearcher published;
  private final Object lock = new Object();
  private volatile long version;

  PublishedSearcher(ReferenceManager<IndexSearcher> searchers, NodeLog log, BooleanSupplier closed) {
    this.searchers = searchers;
    this.log = log;
    this.closed = closed;
  }

  /** Makes the writer's current reader the one searches see. */
  void publish() throws IOException {
    IndexSearcher next = searchers.acquire();
    IndexSearcher previous;
    synchronized (lock) {
      if (closed.getAsBoolean()) {
        // Closed while the publish gate waited: the version was never announced here.
        searchers.release(next);
        throw new NodeClosedException("primary " + log.name() + " closed while publishing");
      }
      previous = published;
      published = next;
      version = ((DirectoryReader) next.getIndexReader()).getVersion();
    }
    if (previous != null) {
      searchers.release(previous);
    }
  }

  /** A searcher of the last published version, one reference taken for the caller. */
  IndexSearcher acquire() throws NodeClosedException {
    synchronized (lock) {
      IndexSearcher s = published;
      if (s == null) {
        throw new NodeClosedException("primary " + log.name() + " is closed");
      }
      s.getIndexReader().incRef();
      return s;
    }
  }

  /** Gives back the reference {@link #acquire()} took. */
  void release(IndexSearcher searcher) throws IOException {
    searcher.getIndexReader().decRef();
  }

  /** Version of the last published NRT point: the version searches see. */
  long version() {
    return version;
  }

  /** Lets the last published searcher go; searches acquired before keep theirs until released. */
  void close() throws IOException {
    IndexSearcher last;
    synchronized (lock) {
      last = published;
      published = null;
    }
    if (last != null) {
      searchers.release(last);
    }
  }
}

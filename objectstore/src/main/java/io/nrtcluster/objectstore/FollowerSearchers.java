package io.nrtcluster.objectstore;

import java.io.IOException;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ReferenceManager;
import org.apache.lucene.store.Directory;

/**
 * The searchers of a {@link StoreFollower}: Lucene's reference counting over readers of its
 * directory's newest commit, and, for every reader still open (held by a search, or current), the
 * files its commit names, in {@code live}: a file no entry names may be deleted. An entry goes when
 * its reader closes, that is when the last search holding it releases it.
 *
 * <p>A refresh reuses the readers of unchanged segments ({@link DirectoryReader#openIfChanged}),
 * unless the install replaced a file: then a segment of the same name may hold other bytes (or other
 * deletions at the same generation), which a reused reader would not see, so every reader opens anew.
 */
final class FollowerSearchers extends ReferenceManager<IndexSearcher> {
  private final Directory dir;
  private final Map<IndexReader.CacheKey, Set<String>> live;
  /** Set by the one refreshing thread before {@link #maybeRefreshBlocking()}, read within it. */
  private boolean openAnew;

  FollowerSearchers(Directory dir, Map<IndexReader.CacheKey, Set<String>> live) throws IOException {
    this.dir = dir;
    this.live = live;
    current = searcher(DirectoryReader.open(dir));
  }

  /** Opens the directory's newest commit and makes it current; {@code anew}: share no reader with the last. */
  void refresh(boolean anew) throws IOException {
    synchronized (this) {
      openAnew = anew;
      maybeRefreshBlocking();
    }
  }

  private IndexSearcher searcher(DirectoryReader reader) throws IOException {
    IndexReader.CacheHelper helper = reader.getReaderCacheHelper();
    live.put(helper.getKey(), Set.copyOf(reader.getIndexCommit().getFileNames()));
    helper.addClosedListener(live::remove);
    return new IndexSearcher(reader);
  }

  @Override
  protected IndexSearcher refreshIfNeeded(IndexSearcher old) throws IOException {
    DirectoryReader reader;
    if (openAnew) {
      reader = DirectoryReader.open(dir);
    } else {
      try {
        reader = DirectoryReader.openIfChanged((DirectoryReader) old.getIndexReader());
      } catch (IllegalStateException e) {
        reader = DirectoryReader.open(dir); // Lucene saw a segment whose id changed: nothing to share
      }
    }
    return reader == null ? null : searcher(reader);
  }

  @Override
  protected void decRef(IndexSearcher s) throws IOException {
    s.getIndexReader().decRef();
  }

  @Override
  protected boolean tryIncRef(IndexSearcher s) {
    return s.getIndexReader().tryIncRef();
  }

  @Override
  protected int getRefCount(IndexSearcher s) {
    return s.getIndexReader().getRefCount();
  }

  /** The version of the current reader (0 only for an empty index). */
  long version() throws IOException {
    IndexSearcher s = acquire();
    try {
      return ((DirectoryReader) s.getIndexReader()).getVersion();
    } finally {
      release(s);
    }
  }
}

package io.nrtcluster.replica;

import java.io.IOException;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ReferenceManager;

/**
 * Stands in for the searcher manager of a replica node that never started, so that Lucene's close,
 * which assumes one, goes on to release the index's write lock: it holds nothing and closes as a
 * no-op.
 */
final class NeverStartedSearcherManager extends ReferenceManager<IndexSearcher> {
  @Override
  protected void decRef(IndexSearcher reference) throws IOException {
    reference.getIndexReader().decRef();
  }

  @Override
  protected IndexSearcher refreshIfNeeded(IndexSearcher referenceToRefresh) {
    return null;
  }

  @Override
  protected boolean tryIncRef(IndexSearcher reference) {
    return false;
  }

  @Override
  protected int getRefCount(IndexSearcher reference) {
    return 0;
  }
}

package io.nrtcluster.stress.bench;

import io.nrtcluster.node.Acknowledgement;
import io.nrtcluster.node.ClusterNode;
import io.nrtcluster.node.ClusterNodeInternals;
import io.nrtcluster.node.Durability;
import io.nrtcluster.primary.Primary;
import io.nrtcluster.primary.PreCopyResult;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.store.FSDirectory;

/**
 * What a benchmark load writes to and searches: a cluster node, or a single-node Lucene application
 * (one {@link IndexWriter}, readers reopened with {@code DirectoryReader.openIfChanged(reader, writer)}
 * through a {@link SearcherManager}), the baseline of the comparisons.
 */
interface BenchIndex extends Closeable {
  void add(Document doc) throws IOException;

  /** Makes everything added searchable; returns the new version. */
  long refresh() throws IOException;

  /**
   * Makes everything added searchable with an acknowledgement of {@code durability} (a cluster
   * primary; a single-node application has nothing to replicate and refreshes as {@link #refresh()}).
   */
  default Acknowledgement refresh(Durability durability) throws IOException {
    return new Acknowledgement(refresh(), durability, List.of());
  }

  void commit() throws IOException;

  IndexSearcher acquire() throws IOException;

  void release(IndexSearcher searcher) throws IOException;

  /** The writer, for bulk loads and forced merges (primary or standalone only). */
  IndexWriter writer() throws IOException;

  /** The last merge pre-copy (cluster primary only), or null. */
  PreCopyResult lastPreCopy();

  /** A cluster node. */
  static BenchIndex of(ClusterNode node) {
    return new BenchIndex() {
      @Override
      public void add(Document doc) throws IOException {
        node.addDocument(doc);
      }

      @Override
      public long refresh() throws IOException {
        return node.refresh();
      }

      @Override
      public Acknowledgement refresh(Durability durability) throws IOException {
        return node.refresh(durability);
      }

      @Override
      public void commit() throws IOException {
        node.commit();
      }

      @Override
      public IndexSearcher acquire() throws IOException {
        return node.acquireSearcher();
      }

      @Override
      public void release(IndexSearcher searcher) throws IOException {
        node.releaseSearcher(searcher);
      }

      @Override
      public IndexWriter writer() throws IOException {
        Primary p = ClusterNodeInternals.primaryOf(node);
        if (p == null) {
          throw new IllegalArgumentException("not the primary");
        }
        return p.writer();
      }

      @Override
      public PreCopyResult lastPreCopy() {
        Primary p = ClusterNodeInternals.primaryOf(node);
        return p == null ? null : p.lastPreCopy();
      }

      @Override
      public void close() {}
    };
  }

  /** A single-node application on {@code path}. */
  static BenchIndex standalone(Path path, IndexWriterConfig config) throws IOException {
    FSDirectory dir = FSDirectory.open(path);
    IndexWriter writer = new IndexWriter(dir, config);
    SearcherManager manager = new SearcherManager(writer, null);
    return new BenchIndex() {
      @Override
      public void add(Document doc) throws IOException {
        writer.addDocument(doc);
      }

      @Override
      public long refresh() throws IOException {
        manager.maybeRefreshBlocking();
        IndexSearcher s = manager.acquire();
        try {
          return ((DirectoryReader) s.getIndexReader()).getVersion();
        } finally {
          manager.release(s);
        }
      }

      @Override
      public void commit() throws IOException {
        writer.commit();
      }

      @Override
      public IndexSearcher acquire() throws IOException {
        return manager.acquire();
      }

      @Override
      public void release(IndexSearcher searcher) throws IOException {
        manager.release(searcher);
      }

      @Override
      public IndexWriter writer() {
        return writer;
      }

      @Override
      public PreCopyResult lastPreCopy() {
        return null;
      }

      @Override
      public void close() throws IOException {
        manager.close();
        writer.close();
        dir.close();
      }
    };
  }
}

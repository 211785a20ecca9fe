package com.example.docs;

import io.nrtcluster.node.ClusterNode;
import io.nrtcluster.node.HostConfig;
import io.nrtcluster.node.IndexSettings;
import io.nrtcluster.node.NrtHost;
import io.nrtcluster.objectstore.BlobStore;
import io.nrtcluster.objectstore.ObjectStoreConfig;
import io.nrtcluster.objectstore.ObjectStoreMetrics;
import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;

/**
 * A service embedding one replicated index through nrtcluster's public API only: it starts this
 * process's {@link NrtHost}, joins the index {@value #INDEX}, writes on whichever node the election
 * made primary and searches on any node. It exists to prove that a project outside the nrtcluster
 * build compiles and runs against the installed artifacts imported through the BOM.
 */
public final class DocsService implements Closeable {
  /** The one index this service hosts. */
  public static final String INDEX = "docs";

  private final NrtHost host;
  private final ClusterNode docs;

  private DocsService(NrtHost host, ClusterNode docs) {
    this.host = host;
    this.docs = docs;
  }

  /** Starts the host and joins {@value #INDEX}; the election decides this node's role. */
  public static DocsService start(HostConfig config) throws IOException {
    NrtHost host = NrtHost.start(config);
    try {
      return new DocsService(host, host.openIndex(IndexSettings.standard(INDEX)));
    } catch (IOException | RuntimeException e) {
      host.close();
      throw e;
    }
  }

  /** The ZooKeeper this node uses (the embedded one's address, when it runs it), for its peers. */
  public String zooKeeper() {
    return host.zooKeeperConnectString();
  }

  /** True while this node is the primary and takes writes. */
  public boolean isPrimary() {
    return docs.isWritablePrimary();
  }

  /** Adds or replaces document {@code id} (primary only); searchable after the next {@link #refresh}. */
  public void put(String id, String body) throws IOException {
    Document doc = new Document();
    doc.add(new StringField("id", id, Field.Store.YES));
    doc.add(new TextField("body", body, Field.Store.NO));
    docs.updateDocument(new Term("id", id), doc);
  }

  /** Publishes what was written as a new version (primary only); every node then searches it. */
  public long refresh() throws IOException {
    return docs.refresh();
  }

  /** The version this node searches. */
  public long searchingVersion() {
    return docs.searchingVersion();
  }

  /** Ids of up to ten documents whose body has {@code word}, on this node, whatever its role. */
  public List<String> search(String word) throws IOException {
    IndexSearcher searcher = docs.acquireSearcher();
    try {
      List<String> ids = new ArrayList<>();
      for (ScoreDoc hit : searcher.search(new TermQuery(new Term("body", word)), 10).scoreDocs) {
        ids.add(searcher.storedFields().document(hit.doc).get("id"));
      }
      return ids;
    } finally {
      docs.releaseSearcher(searcher);
    }
  }

  /**
   * Checks that the backup store answers and lets this identity use the bucket, as a service does
   * before attaching backups; throws the object store's typed errors otherwise.
   */
  public static void checkBackupStore(ObjectStoreConfig config) throws IOException {
    BlobStore store = BlobStore.open(config, new ObjectStoreMetrics());
    store.close();
  }

  /** Leaves the cluster gracefully: commits, resigns, stops the host. */
  @Override
  public void close() throws IOException {
    host.close();
  }
}

package io.nrtcluster.primary;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.search.IndexSearcher;

/** A real {@link Primary} on loopback for the tests of this module, and documents for it. */
final class TestPrimaries {
  private TestPrimaries() {}

  static PrimaryConfig.Builder config(Path dataDir) {
    return PrimaryConfig.builder()
        .nodeId(1)
        .cluster(FakeReplica.CLUSTER)
        .index(FakeReplica.INDEX)
        .dataDir(dataDir)
        .closeTimeout(Duration.ofMillis(500))
        .transport(FakeReplica.transportConfig());
  }

  static Primary open(PrimaryConfig config) throws IOException {
    return Primary.open(config, new IndexWriterConfig(new StandardAnalyzer()));
  }

  /** Adds {@code segments} segments of {@code docs} documents each, one refresh (NRT point) per segment. */
  static void addSegments(Primary primary, int segments, int docs) throws IOException {
    for (int s = 0; s < segments; s++) {
      for (int d = 0; d < docs; d++) {
        Document doc = new Document();
        doc.add(new StringField("id", s + "-" + d, Field.Store.YES));
        doc.add(new TextField("body", "segment " + s + " document " + d + " of a merge pre-copy test", Field.Store.NO));
        primary.writer().addDocument(doc);
      }
      primary.refresh();
    }
  }

  /** Segments and documents of the version searches see now. */
  static int[] segmentsAndDocs(Primary primary) throws IOException {
    IndexSearcher s = primary.acquireSearcher();
    try {
      return new int[] {s.getIndexReader().leaves().size(), s.getIndexReader().numDocs()};
    } finally {
      primary.releaseSearcher(s);
    }
  }
}

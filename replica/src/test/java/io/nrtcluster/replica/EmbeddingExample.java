package io.nrtcluster.replica;

import io.nrtcluster.primary.Primary;
import io.nrtcluster.primary.PrimaryConfig;
import java.nio.file.Path;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.TermQuery;
import org.awaitility.Awaitility;

/** The README's embedding example, kept compiling and running by {@code EmbeddingExampleTest}. */
final class EmbeddingExample {
  private EmbeddingExample() {}

  static long run(Path dir) throws Exception {
    // README-EXAMPLE-START
    var primaryConfig = PrimaryConfig.builder().cluster("demo").index("docs").dataDir(dir.resolve("p0")).build();
    try (Primary primary = Primary.open(primaryConfig, new IndexWriterConfig(new StandardAnalyzer()));
        Replica replica = Replica.open(ReplicaConfig.builder().nodeId(1).cluster("demo").index("docs")
            .dataDir(dir.resolve("r1")).primary(primary.address()).build())) {
      Document doc = new Document();
      doc.add(new TextField("body", "near real time segment replication", Field.Store.YES));
      primary.writer().addDocument(doc);
      long version = primary.refresh();               // publish a new point-in-time

      // The replica copies only the new files and opens that exact version.
      Awaitility.await().until(() -> replica.searchingVersion() >= version);
      IndexSearcher searcher = replica.acquireSearcher();
      try {
        return searcher.count(new TermQuery(new Term("body", "replication")));   // 1
      } finally {
        replica.releaseSearcher(searcher);
      }
    }
    // README-EXAMPLE-END
  }
}

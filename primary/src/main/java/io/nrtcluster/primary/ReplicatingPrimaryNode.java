package io.nrtcluster.primary;

import java.io.IOException;
import java.io.PrintStream;
import java.util.Map;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.SegmentCommitInfo;
import org.apache.lucene.replicator.nrt.FileMetaData;
import org.apache.lucene.replicator.nrt.PrimaryNode;
import org.apache.lucene.search.SearcherFactory;

/**
 * Lucene's {@link PrimaryNode} with its one hook implemented: merged segments are handed to the
 * {@link MergePreCopier}, which copies them to the replicas before the merge is installed. All other
 * behaviour is Lucene's own.
 */
final class ReplicatingPrimaryNode extends PrimaryNode {
  private final MergePreCopier preCopier;

  ReplicatingPrimaryNode(IndexWriter writer, int id, long primaryGen, long forcePrimaryVersion,
      SearcherFactory searcherFactory, PrintStream printStream, MergePreCopier preCopier) throws IOException {
    super(writer, id, primaryGen, forcePrimaryVersion, searcherFactory, printStream);
    this.preCopier = preCopier;
    setVerboseFiles(false);
  }

  @Override
  protected void preCopyMergedSegmentFiles(SegmentCommitInfo info, Map<String, FileMetaData> files) {
    if (preCopier != null) {
      preCopier.preCopy(info.info.name, files);
    }
  }

  IndexWriter writer() {
    return writer;
  }
}

package io.nrtcluster.primary;

import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.ReplayPositions;
import io.nrtcluster.common.Slf4jPrintStream;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexFileNames;
import org.apache.lucene.index.SegmentCommitInfo;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.store.ChecksumIndexInput;
import org.apache.lucene.store.Directory;
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
  private final NodeLog log;

  ReplicatingPrimaryNode(IndexWriter writer, int id, long primaryGen, long forcePrimaryVersion,
      SearcherFactory searcherFactory, NodeLog log, MergePreCopier preCopier) throws IOException {
    // The stream only carries the rare stack traces Lucene prints; messages go through message().
    super(writer, id, primaryGen, forcePrimaryVersion, searcherFactory, Slf4jPrintStream.shared());
    this.preCopier = preCopier;
    this.log = log;
    setVerboseFiles(false);
  }

  @Override
  protected void preCopyMergedSegmentFiles(SegmentCommitInfo info, Map<String, FileMetaData> files) {
    if (preCopier != null) {
      preCopier.preCopy(info.info.name, files);
    }
  }

  /**
   * Lucene's progress messages, as TRACE lines. Lucene's own {@code message} formats every line with
   * {@code printf} before any logger can drop it, on every refresh and every copy-state.
   */
  @Override
  public void message(String message) {
    if (log == null) {
      // Lucene's constructor reports before our fields are set: once per node, so its way is fine.
      super.message(message);
    } else {
      log.lucene(message);
    }
  }

  IndexWriter writer() {
    return writer;
  }

  /**
   * Lucene's primary commit, except that the application's replay position in the live user data
   * is kept (Lucene's own commit would replace the user data with generation and version only).
   */
  @Override
  public void commit() throws IOException {
    prepareCommit();
    finishCommit();
  }

  /**
   * The first phase of {@link #commit()}: flushes the writer and writes the next commit's segments
   * file under its pending name, which nothing reads and a crash or {@link #close()} discards.
   * Returns that commit's own {@code SegmentInfos} version: Lucene's commit takes every write so far,
   * so it may be above the last NRT point, under a number no refresh published. -1 when the writer
   * wrote no pending commit.
   */
  long prepareCommit() throws IOException {
    Map<String, String> data = new HashMap<>();
    String position = liveUserData().get(ReplayPositions.KEY);
    if (position != null) {
      data.put(ReplayPositions.KEY, position);
    }
    data.put(PRIMARY_GEN_KEY, Long.toString(primaryGen));
    data.put(VERSION_KEY, Long.toString(getCopyStateVersion()));
    writer.setLiveCommitData(data.entrySet(), false);
    writer.prepareCommit();
    return pendingCommitVersion(writer.getDirectory());
  }

  /** The second phase: makes the prepared commit durable and the latest. */
  void finishCommit() throws IOException {
    writer.commit();
  }

  /** The version of the pending (prepared, unfinished) commit in {@code dir}; -1 when there is none. */
  static long pendingCommitVersion(Directory dir) throws IOException {
    String prefix = IndexFileNames.PENDING_SEGMENTS + "_";
    for (String name : dir.listAll()) {
      if (name.startsWith(prefix)) {
        long generation = Long.parseLong(name.substring(prefix.length()), Character.MAX_RADIX);
        try (ChecksumIndexInput in = dir.openChecksumInput(name)) {
          return SegmentInfos.readCommit(dir, in, generation).getVersion();
        }
      }
    }
    return -1;
  }

  /** A copy of the writer's live user data (travels with every NRT point and commit). */
  Map<String, String> liveUserData() {
    return userData(writer);
  }

  static Map<String, String> userData(IndexWriter writer) {
    Map<String, String> data = new HashMap<>();
    Iterable<Map.Entry<String, String>> live = writer.getLiveCommitData();
    if (live != null) {
      for (Map.Entry<String, String> e : live) {
        data.put(e.getKey(), e.getValue());
      }
    }
    return data;
  }
}

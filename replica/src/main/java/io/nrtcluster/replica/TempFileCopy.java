package io.nrtcluster.replica;

import java.io.IOException;
import org.apache.lucene.replicator.nrt.CopyOneFile;
import org.apache.lucene.replicator.nrt.FileMetaData;
import org.apache.lucene.replicator.nrt.ReplicaNode;
import org.apache.lucene.store.DataInput;

/**
 * Lucene's {@link CopyOneFile}, closed exactly once, and whose close always ends the file's "being
 * copied" mark on the node. Lucene ends that mark only after the temp output closed cleanly; when the
 * close fails (a full disk cannot take the output's buffered bytes either), the mark would stay for
 * good and every later copy of the same file would fail with "being copied in two places", wedging
 * the replica even after space returns.
 */
final class TempFileCopy extends CopyOneFile {
  private final ReplicaNode node;
  private boolean closed;

  TempFileCopy(DataInput in, ReplicaNode node, String name, FileMetaData meta, byte[] buffer) throws IOException {
    super(in, node, name, meta, buffer);
    this.node = node;
  }

  /** Continues {@code other} (the superseded job's partly copied file) from {@code in}. */
  TempFileCopy(TempFileCopy other, DataInput in) {
    super(other, in);
    this.node = other.node;
  }

  @Override
  public synchronized void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    try {
      super.close();
    } catch (IOException e) {
      // The output failed to close, so Lucene skipped ending the mark; the output itself is closed.
      node.finishCopyFile(name);
      throw e;
    }
  }
}

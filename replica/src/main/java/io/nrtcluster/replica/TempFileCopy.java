package io.nrtcluster.replica;

import io.nrtcluster.common.StorageException;
import java.io.IOException;
import org.apache.lucene.replicator.nrt.CopyOneFile;
import org.apache.lucene.replicator.nrt.FileMetaData;

/**
 * Lucene's {@link CopyOneFile} for one file arriving from the primary, with two changes.
 *
 * <p>The bytes go from the transport's receive buffers straight to the temp file: each received
 * buffer is verified in place by the {@link VerifyingFileInput} and then written with one call,
 * instead of Lucene's copy into a heap array that its output then copies again in 8 KiB writes; the
 * input's running checksum is the only one computed over them (the output does not checksum them
 * again, and Lucene's check of the output's checksum is never run: {@link #visit} replaces it). The
 * checks are the same as Lucene's and happen before the bytes are written: the body's checksum and
 * the footer must match the primary's metadata, and the temp file must end up exactly as long.
 *
 * <p>It is closed exactly once, and its close always ends the file's "being copied" mark on the
 * node. Lucene ends that mark only after the temp output closed cleanly; when the close fails (a full
 * disk cannot take the output's buffered bytes either), the mark would stay for good and every later
 * copy of the same file would fail with "being copied in two places", wedging the replica even after
 * space returns.
 */
final class TempFileCopy extends CopyOneFile {
  /** Bytes moved per {@link #visit}, so a job checks for cancellation and newer points regularly. */
  private static final int BYTES_PER_VISIT = 1 << 20;
  /** Lucene's own copy loop is never run: every byte goes through {@link #visit} below. */
  private static final byte[] UNUSED_BUFFER = new byte[0];

  private final ReplicatingReplicaNode node;
  private final VerifyingFileInput input;
  private final LocalFileOutput output;
  private long copied;
  private boolean closed;

  TempFileCopy(VerifyingFileInput in, ReplicatingReplicaNode node, String name, FileMetaData meta) throws IOException {
    super(in, node, name, meta, UNUSED_BUFFER);
    this.node = node;
    this.input = in;
    // Lucene keeps the output it asked the node for private; the node hands us the same one.
    this.output = node.takeTempOutput(tmpName);
  }

  /** Continues {@code other} (the superseded job's partly copied file) from {@code in}. */
  TempFileCopy(TempFileCopy other, VerifyingFileInput in) {
    super(other, in);
    this.node = other.node;
    this.input = in;
    this.output = other.output;
    this.copied = other.copied;
  }

  @Override
  public boolean visit() throws IOException {
    long length = metaData.length();
    int budget = BYTES_PER_VISIT;
    while (budget > 0) {
      if (copied == length) {
        if (output.getFilePointer() != length) {
          throw new StorageException("file " + name + ": temp file " + tmpName + " has " + output.getFilePointer()
              + " bytes after copying " + length);
        }
        close();
        return true;
      }
      int n = input.readDirect((int) Math.min(budget, length - copied), output::writeChecksummed);
      copied += n;
      budget -= n;
    }
    return false;
  }

  @Override
  public long getBytesCopied() {
    return copied;
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

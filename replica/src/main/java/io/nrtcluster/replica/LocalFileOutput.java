package io.nrtcluster.replica;

import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.StorageException;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.lucene.store.FilterIndexOutput;

/**
 * The temp file a copied file is written to. Any I/O error it raises comes from local storage (disk
 * full, a failed write), so it surfaces as a {@link StorageException} naming the file: copy jobs and
 * operators tell it apart from network and checksum failures by type, never by message.
 */
final class LocalFileOutput extends FilterIndexOutput {
  private final String copiedFile;

  private final ChannelFileOutput channel;

  LocalFileOutput(ChannelFileOutput out, String copiedFile) {
    super("LocalFileOutput(" + out + ")", out.getName(), out);
    this.channel = out;
    this.copiedFile = copiedFile;
  }

  @Override
  public void writeByte(byte b) throws IOException {
    try {
      out.writeByte(b);
    } catch (IOException e) {
      throw failure("writing", e);
    }
  }

  @Override
  public void writeBytes(byte[] b, int offset, int length) throws IOException {
    try {
      out.writeBytes(b, offset, length);
    } catch (IOException e) {
      throw failure("writing", e);
    }
  }

  /**
   * Writes all of {@code bytes}' remaining bytes with one call and no copy; the caller verified
   * them against their checksum already ({@link ChannelFileOutput#writeChecksummed}).
   */
  void writeChecksummed(ByteBuffer bytes) throws IOException {
    try {
      channel.writeChecksummed(bytes);
    } catch (IOException e) {
      throw failure("writing", e);
    }
  }

  @Override
  public void close() throws IOException {
    try {
      out.close();
    } catch (IOException e) {
      throw failure("closing", e);
    }
  }

  private IOException failure(String doing, IOException e) {
    if (e instanceof NrtClusterException) {
      return e;
    }
    return new StorageException(doing + " temp file " + getName() + " of " + copiedFile + " failed: " + e, e);
  }
}

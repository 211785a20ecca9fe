package io.nrtcluster.replica;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.Collection;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FilterDirectory;
import org.apache.lucene.store.FilterIndexOutput;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexOutput;

/**
 * Fault-injection point: the replica's index directory, through which every file it writes passes,
 * with the faults its {@link StorageFaults} switch has turned on. Reads are untouched. Installed only
 * when the replica is configured with switchable storage faults.
 */
final class FaultInjectingDirectory extends FilterDirectory {
  /** A real buffered output flushes at most this many bytes again when it is closed. */
  private static final int BUFFER_BYTES = 8192;

  private final StorageFaults faults;

  FaultInjectingDirectory(Directory in, StorageFaults faults) {
    super(in);
    this.faults = faults;
  }

  /** {@code dir} with the fault point when {@code faults} is switchable, else {@code dir} itself. */
  static Directory wrap(Directory dir, StorageFaults faults) {
    return faults.isSwitchable() ? new FaultInjectingDirectory(dir, faults) : dir;
  }

  @Override
  public IndexOutput createOutput(String name, IOContext context) throws IOException {
    return new FaultyOutput(in.createOutput(name, context));
  }

  @Override
  public IndexOutput createTempOutput(String prefix, String suffix, IOContext context) throws IOException {
    return new FaultyOutput(in.createTempOutput(prefix, suffix, context));
  }

  @Override
  public void deleteFile(String name) throws IOException {
    long length;
    try {
      length = in.fileLength(name);
    } catch (NoSuchFileException e) {
      length = 0;
    }
    in.deleteFile(name);
    faults.deleted(length);
  }

  @Override
  public void sync(Collection<String> names) throws IOException {
    for (String name : names) {
      faults.beforeSync(name);
    }
    in.sync(names);
  }

  @Override
  public void rename(String source, String dest) throws IOException {
    faults.beforeRename(source);
    in.rename(source, dest);
  }

  @Override
  public void syncMetaData() throws IOException {
    faults.beforeSync("index directory");
    in.syncMetaData();
  }

  private final class FaultyOutput extends FilterIndexOutput {
    private long pendingBytes;
    private boolean closed;

    FaultyOutput(IndexOutput out) {
      super("FaultyOutput(" + out + ")", out.getName(), out);
    }

    @Override
    public void writeByte(byte b) throws IOException {
      if (faults.beforeWrite(getName(), 1) < 1) {
        throw failed(1, faults.noSpace(getName()));
      }
      out.writeByte(b);
    }

    @Override
    public void writeBytes(byte[] b, int offset, int length) throws IOException {
      int fit;
      try {
        fit = faults.beforeWrite(getName(), length);
      } catch (IOException e) {
        throw failed(length, e);
      }
      out.writeBytes(b, offset, fit);
      if (fit < length) {
        throw failed(length - fit, faults.noSpace(getName()));
      }
    }

    private IOException failed(int unwritten, IOException e) {
      pendingBytes = Math.min(BUFFER_BYTES, pendingBytes + unwritten);
      return e;
    }

    @Override
    public void close() throws IOException {
      if (closed) {
        return;
      }
      closed = true;
      out.close();
      if (pendingBytes > 0) {
        faults.beforeFlushOnClose(getName(), pendingBytes);
      }
    }
  }
}

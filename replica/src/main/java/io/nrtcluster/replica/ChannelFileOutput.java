package io.nrtcluster.replica;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;
import org.apache.lucene.index.IndexFileNames;
import org.apache.lucene.store.IndexOutput;

/**
 * The temp file of a copied file, written through a {@link FileChannel}, so that file data arriving
 * in the transport's off-heap buffers reaches the file with one write call per buffer and no copy
 * through the Java heap ({@link #writeChecksummed}). Lucene's own file output takes only heap arrays and
 * writes them in 8 KiB calls: every received byte was copied into a heap array, then again into
 * native memory by the JDK, then written.
 *
 * <p>Guarantees: the file is created new, never over an existing one; {@link #getChecksum} is the
 * CRC32 of every byte written, as for any Lucene output, unless bytes the caller checksummed itself
 * were written ({@link #writeChecksummed}): then it throws rather than answer wrong; every write
 * first passes the replica's
 * {@link StorageFaults} (the same fault point as the rest of its directory), and a write that fails
 * leaves the bytes before it written and the output fit only to be closed and deleted.
 */
final class ChannelFileOutput extends IndexOutput {
  private static final int BUFFER_BYTES = 8192;

  private final FileChannel channel;
  private final StorageFaults faults;
  private final CRC32 crc = new CRC32();
  /** Small writes (Lucene's own calls through the {@link IndexOutput} methods) gather here. */
  private final ByteBuffer buffer = ByteBuffer.allocate(BUFFER_BYTES);
  private long written;
  /** Bytes went in through {@link #writeChecksummed}: {@code crc} does not cover them. */
  private boolean checksumSkipped;
  private boolean closed;

  private ChannelFileOutput(String name, FileChannel channel, StorageFaults faults) {
    super("ChannelFileOutput(" + name + ")", name);
    this.channel = channel;
    this.faults = faults;
  }

  /**
   * Creates a new temp file in {@code dir} named as Lucene names temp files ({@code
   * prefix_suffix_N.tmp}), taking the next free {@code N} from {@code counter}.
   */
  static ChannelFileOutput createTemp(Path dir, String prefix, String suffix, AtomicLong counter, StorageFaults faults)
      throws IOException {
    while (true) {
      String name = IndexFileNames.segmentFileName(prefix,
          suffix + "_" + Long.toString(counter.getAndIncrement(), Character.MAX_RADIX), "tmp");
      try {
        FileChannel channel = FileChannel.open(dir.resolve(name), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        return new ChannelFileOutput(name, channel, faults);
      } catch (@SuppressWarnings("unused") FileAlreadyExistsException taken) {
        // A file of that name is left from an earlier run: try the next number.
      }
    }
  }

  /**
   * Writes all of {@code src}'s remaining bytes (heap or direct) with no intermediate copy and without folding them
   * into {@link #getChecksum}: for bytes the caller verified against their checksum as they arrived,
   * so that each byte is checksummed once, not once more here.
   */
  void writeChecksummed(ByteBuffer src) throws IOException {
    checksumSkipped = true;
    flushBuffer();
    writeFully(src);
  }

  @Override
  public void writeByte(byte b) throws IOException {
    if (!buffer.hasRemaining()) {
      flushBuffer();
    }
    buffer.put(b);
    crc.update(b);
  }

  @Override
  public void writeBytes(byte[] b, int offset, int length) throws IOException {
    crc.update(b, offset, length);
    if (length > buffer.remaining()) {
      flushBuffer();
      if (length > buffer.capacity()) {
        writeFully(ByteBuffer.wrap(b, offset, length));
        return;
      }
    }
    buffer.put(b, offset, length);
  }

  private void flushBuffer() throws IOException {
    if (buffer.position() > 0) {
      buffer.flip();
      writeFully(buffer);
      buffer.clear();
    }
  }

  private void writeFully(ByteBuffer src) throws IOException {
    int length = src.remaining();
    int fit = faults.isSwitchable() ? faults.beforeWrite(getName(), length) : length;
    ByteBuffer part = fit < length ? src.slice(src.position(), fit) : src;
    while (part.hasRemaining()) {
      written += channel.write(part);
    }
    if (fit < length) {
      throw faults.noSpace(getName());
    }
  }

  @Override
  public long getFilePointer() {
    return written + buffer.position();
  }

  @Override
  public long getChecksum() {
    if (checksumSkipped) {
      throw new IllegalStateException(getName() + ": bytes written by writeChecksummed are not in this checksum");
    }
    return crc.getValue();
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    try (FileChannel c = channel) {
      flushBuffer();
    }
  }
}

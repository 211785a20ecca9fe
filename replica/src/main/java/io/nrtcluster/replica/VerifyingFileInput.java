package io.nrtcluster.replica;

import io.nrtcluster.common.ChecksumMismatchException;
import io.nrtcluster.common.ProtocolException;
import io.nrtcluster.transport.InboundFileStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.zip.CRC32;
import org.apache.lucene.replicator.nrt.FileMetaData;
import org.apache.lucene.store.DataInput;

/**
 * The bytes of one file arriving from the primary, as the {@link DataInput} Lucene's {@code
 * CopyOneFile} reads. Verifies as it goes: the sender's length must match the metadata, the CRC32
 * of the body must equal the advertised checksum the moment the body is complete, and the footer's
 * stored checksum must equal it too. Any mismatch raises {@link ChecksumMismatchException} before
 * the bad bytes are accepted, so the caller can discard the temp file and fetch the file again.
 */
final class VerifyingFileInput extends DataInput {
  private final InboundFileStream stream;
  private final String name;
  private final long length;
  private final long checksum;
  private final CRC32 crc;
  private final long startPosition;
  private final ReplicaStats stats;
  private final FileFlips flips;
  private long position;
  private long trailer;
  private boolean lengthChecked;
  /** {@link InboundFileStream#flipsRead()} of {@code stream} already added to {@code flips}. */
  private long streamFlipsSeen;

  /**
   * @param crc running checksum of bytes {@code [0, startPosition)}; a fresh one when starting at 0
   * @param flips the wire bit flips in the file's bytes so far; a fresh one when starting at 0
   */
  VerifyingFileInput(InboundFileStream stream, String name, FileMetaData meta, long startPosition, CRC32 crc,
      FileFlips flips, ReplicaStats stats) {
    this(stream, name, meta.length(), meta.checksum(), startPosition, crc, 0, flips, 0, stats);
  }

  private VerifyingFileInput(InboundFileStream stream, String name, long length, long checksum, long startPosition,
      CRC32 crc, long trailer, FileFlips flips, long streamFlipsSeen, ReplicaStats stats) {
    this.stats = stats;
    this.flips = flips;
    this.streamFlipsSeen = streamFlipsSeen;
    this.stream = stream;
    this.name = name;
    this.length = length;
    this.checksum = checksum;
    this.crc = crc;
    this.startPosition = startPosition;
    this.position = startPosition;
    this.trailer = trailer;
  }

  /**
   * The same file continued on {@code stream} from this input's position (this one's stream closed:
   * a newer point took the copy over, or the connection dropped), with its checksum state, the
   * footer bytes read so far included.
   */
  VerifyingFileInput continueOn(InboundFileStream next) {
    return new VerifyingFileInput(next, name, length, checksum, position, crc, trailer, flips, 0, stats);
  }

  /**
   * Like {@link #continueOn} with checksum state {@code crc} and {@code trailer} recomputed from
   * the bytes of the partly copied file on disk, which are trusted over the running state.
   */
  VerifyingFileInput continueOn(InboundFileStream next, CRC32 diskCrc, long diskTrailer) {
    return new VerifyingFileInput(next, name, length, checksum, position, diskCrc, diskTrailer, flips, 0, stats);
  }

  /** This input, not read from yet, with checksum state {@code diskCrc} and {@code diskTrailer} instead of its own. */
  VerifyingFileInput withChecksumState(CRC32 diskCrc, long diskTrailer) {
    return new VerifyingFileInput(stream, name, length, checksum, position, diskCrc, diskTrailer, flips,
        streamFlipsSeen, stats);
  }

  /** Whether the primary answered this file's request: it is sending the bytes (see {@link InboundFileStream#answered}). */
  boolean answered() {
    return stream.answered();
  }

  /** The wire bit flips read into this file so far (shared with the inputs continuing it). */
  FileFlips flips() {
    return flips;
  }

  CRC32 crc() {
    return crc;
  }

  /** The running state of the footer's checksum bytes read so far. */
  long trailer() {
    return trailer;
  }

  /** Offset in the file of the next byte. */
  long position() {
    return position;
  }

  /** Where the checksummed body ends (the footer's 8-byte checksum follows). */
  long bodyEnd() {
    return length - Long.BYTES;
  }

  /** Bytes this input received over the wire (excludes bytes carried over from a previous job). */
  @Override
  public byte readByte() throws IOException {
    byte[] one = new byte[1];
    readBytes(one, 0, 1);
    return one[0];
  }

  @Override
  public void readBytes(byte[] b, int offset, int len) throws IOException {
    beforeRead(len);
    try {
      stream.readFully(b, offset, len);
    } finally {
      noteFlips();
    }
    int body = bodyBytes(len);
    if (body > 0) {
      crc.update(b, offset, body);
    }
    for (int i = body; i < len; i++) {
      trailer = (trailer << 8) | (b[offset + i] & 0xFF);
    }
    afterRead(len);
  }

  /** Takes verified file bytes; the view is valid only during the call. */
  @FunctionalInterface
  interface VerifiedSink {
    void write(ByteBuffer bytes) throws IOException;
  }

  /**
   * Reads up to {@code max} bytes without copying them and hands them to {@code sink} once they are
   * verified as {@link #readBytes} verifies: bytes that complete a body with the wrong checksum, or a
   * footer that disagrees, never reach the sink. Returns how many bytes were read.
   */
  int readDirect(int max, VerifiedSink sink) throws IOException {
    beforeRead(max);
    int n;
    try {
      n = stream.readInPlace(max, bytes -> {
        int len = bytes.remaining();
        int body = bodyBytes(len);
        if (body > 0) {
          crc.update(bytes.slice(bytes.position(), body));
        }
        for (int i = body; i < len; i++) {
          trailer = (trailer << 8) | (bytes.get(bytes.position() + i) & 0xFF);
        }
        afterRead(len);
        sink.write(bytes);
      });
    } finally {
      // Bytes handed to the verifier count as read into the file even when they fail it.
      noteFlips();
    }
    if (n < 0) {
      throw new ProtocolException("file " + name + ": stream ended early at " + position + " of " + length);
    }
    return n;
  }

  private void noteFlips() {
    long read = stream.flipsRead();
    if (read != streamFlipsSeen) {
      flips.add(read - streamFlipsSeen);
      streamFlipsSeen = read;
    }
  }

  private void beforeRead(int len) throws IOException {
    if (!lengthChecked) {
      long sent = stream.length();
      if (sent != length) {
        throw new ChecksumMismatchException("file " + name + ": primary sends " + sent + " bytes but advertised " + length);
      }
      lengthChecked = true;
    }
    if (position + len > length) {
      throw new ProtocolException("file " + name + ": read past its end (" + (position + len) + " > " + length + ")");
    }
  }

  /** How many of the next {@code len} bytes belong to the checksummed body (the rest is the footer's checksum). */
  private int bodyBytes(int len) {
    return (int) Math.max(0, Math.min(len, length - Long.BYTES - position));
  }

  /** {@code len} bytes were read and folded into the checksum or the trailer: checks them. */
  private void afterRead(int len) throws ChecksumMismatchException {
    stats.bytesReceived(len);
    long bodyEnd = length - Long.BYTES;
    long before = position;
    position += len;
    if (before < bodyEnd && position >= bodyEnd && crc.getValue() != checksum) {
      throw new ChecksumMismatchException(String.format(
          "file %s: received bytes have checksum %x, primary advertised %x", name, crc.getValue(), checksum));
    }
    if (position == length && trailer != checksum) {
      throw new ChecksumMismatchException(String.format(
          "file %s: footer stores checksum %x, primary advertised %x", name, trailer, checksum));
    }
  }

  @Override
  public void skipBytes(long numBytes) {
    throw new UnsupportedOperationException("a copied file is read in full");
  }

  void close() {
    stream.close();
  }
}

package io.nrtcluster.objectstore;

import io.nrtcluster.common.CorruptLocalFileException;
import java.util.List;
import java.util.Locale;
import java.util.zip.CRC32;

/**
 * Verifies one local index file against its Lucene checksum while its bytes go up, so that a file
 * damaged on the node's disk is never backed up. The CRC32 of every byte before the footer's
 * checksum must equal the checksum the point recorded, and the footer's last eight bytes must hold
 * that same checksum; otherwise the stream that is about to hand over the first footer byte (or a
 * wrong one) throws {@link CorruptLocalFileException} instead. The upload therefore never completes:
 * a PUT's body ends short of its length and the store discards it, a multipart upload is aborted.
 *
 * <p>One check serves every stream opened for the file (each retry, each part): bytes are counted
 * once, in order, and a stream that reads again from an earlier offset (a retried request or part)
 * only adds what lies past what was already counted. Streams of one file are read one at a time
 * (parts go up in order), so the small monitor here is never contended for long.
 */
final class UploadCheck {
  /** The footer's checksum: the last eight bytes, big-endian. */
  static final int CHECKSUM_BYTES = Long.BYTES;

  private final String key;
  private final String name;
  private final long length;
  private final long expected;
  private final CRC32 crc = new CRC32();
  private long counted;

  UploadCheck(String key, FileEntry file) {
    this.key = key;
    this.name = file.name();
    this.length = file.length();
    this.expected = file.checksum();
  }

  /** Where the footer's checksum starts: no read may cross it, so that it is checked before it is handed over. */
  long checksumStart() {
    return length - CHECKSUM_BYTES;
  }

  /** The local file's length must be the point's, else it was truncated or replaced. */
  void checkLength(long actual) throws CorruptLocalFileException {
    if (actual != length || length < CHECKSUM_BYTES) {
      throw corrupt("has " + actual + " bytes, the point says " + length);
    }
  }

  /**
   * Takes {@code n} bytes read at file position {@code pos} into {@code b} at {@code off}, before
   * they are handed over; throws if they must not be. A read lies wholly before or wholly within the
   * footer's checksum.
   */
  synchronized void accept(long pos, byte[] b, int off, int n) throws CorruptLocalFileException {
    long start = checksumStart();
    if (pos < start) {
      if (pos > counted) {
        throw new IllegalStateException("bytes of " + name + " read out of order: at " + pos + ", counted " + counted);
      }
      long from = Math.max(pos, counted);
      long to = pos + n;
      if (to > from) {
        crc.update(b, off + (int) (from - pos), (int) (to - from));
        counted = to;
      }
      return;
    }
    if (counted != start) {
      throw new IllegalStateException("footer of " + name + " reached with " + counted + " of " + start + " bytes counted");
    }
    if (crc.getValue() != expected) {
      throw corrupt("has checksum " + hex(crc.getValue()) + ", the point says " + hex(expected));
    }
    for (int i = 0; i < n; i++) {
      int shift = 8 * (CHECKSUM_BYTES - 1 - (int) (pos + i - start));
      if (b[off + i] != (byte) (expected >>> shift)) {
        throw corrupt("has a footer that does not hold its checksum " + hex(expected));
      }
    }
  }

  private CorruptLocalFileException corrupt(String what) {
    return new CorruptLocalFileException("local index file " + name + " " + what + ": not backed up (to " + key + ")",
        List.of(name));
  }

  private static String hex(long v) {
    return String.format(Locale.ROOT, "%08x", v);
  }
}

package io.nrtcluster.objectstore;

import java.io.IOException;
import java.io.OutputStream;
import java.util.zip.CRC32;
import org.apache.lucene.codecs.CodecUtil;

/**
 * A download's bytes reduced to what a Lucene file check needs, without keeping the file: the count,
 * the CRC32 of every byte but the last eight (Lucene's checksum covers all bytes before the footer's
 * stored checksum) and the last 16 bytes (the footer). Each attempt of the download starts it over
 * ({@link BlobStore.Sink}); every byte written is first paid to the {@link Pace}.
 */
final class ObjectDigest implements BlobStore.Sink {
  /** The footer: magic (4), algorithm (4), checksum (8). */
  static final int FOOTER_BYTES = 16;

  private static final int CHECKSUM_BYTES = Long.BYTES;

  private final Pace pace;
  private final CRC32 crc = new CRC32();
  /** The last bytes seen, the newest at the end: the first {@code FOOTER_BYTES - tailLength} are unused. */
  private final byte[] tail = new byte[FOOTER_BYTES];
  private int tailLength;
  private long count;

  ObjectDigest(Pace pace) {
    this.pace = pace;
  }

  @Override
  public OutputStream begin() {
    crc.reset();
    tailLength = 0;
    count = 0;
    return new OutputStream() {
      @Override
      public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        pace.take(len);
        accept(b, off, len);
      }
    };
  }

  private void accept(byte[] b, int off, int len) {
    // Bytes leave the last eight only as newer ones arrive: checksum those that left, keep the rest.
    int held = Math.min(tailLength, CHECKSUM_BYTES);
    int leaving = Math.min(held, Math.max(0, held + len - CHECKSUM_BYTES));
    crc.update(tail, FOOTER_BYTES - held, leaving);
    if (len > CHECKSUM_BYTES) {
      crc.update(b, off, len - CHECKSUM_BYTES);
    }
    if (len >= FOOTER_BYTES) {
      System.arraycopy(b, off + len - FOOTER_BYTES, tail, 0, FOOTER_BYTES);
    } else {
      System.arraycopy(tail, len, tail, 0, FOOTER_BYTES - len);
      System.arraycopy(b, off, tail, FOOTER_BYTES - len, len);
    }
    tailLength = Math.min(FOOTER_BYTES, tailLength + len);
    count += len;
  }

  /** Bytes received in the current attempt. */
  long count() {
    return count;
  }

  /** The CRC32 of every byte but the last eight. */
  long crcBeforeChecksum() {
    return crc.getValue();
  }

  /** The footer's magic (meaningful once {@link #FOOTER_BYTES} bytes came). */
  int footerMagic() {
    return beInt(0);
  }

  /** The footer's algorithm id (0 is CRC32). */
  int footerAlgorithm() {
    return beInt(4);
  }

  /** The checksum the footer stores, all 64 bits of it (Lucene's upper 32 are zero). */
  long footerChecksum() {
    return ((long) beInt(8) << 32) | (beInt(12) & 0xFFFFFFFFL);
  }

  /** Whether the last 16 bytes are a well formed {@code CodecUtil} footer. */
  boolean footerWellFormed() {
    return tailLength == FOOTER_BYTES && footerMagic() == CodecUtil.FOOTER_MAGIC && footerAlgorithm() == 0
        && (footerChecksum() & 0xFFFFFFFF00000000L) == 0;
  }

  private int beInt(int at) {
    return ((tail[at] & 0xFF) << 24) | ((tail[at + 1] & 0xFF) << 16) | ((tail[at + 2] & 0xFF) << 8) | (tail[at + 3] & 0xFF);
  }
}

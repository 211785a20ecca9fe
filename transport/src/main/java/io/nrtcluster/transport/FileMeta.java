package io.nrtcluster.transport;

import io.nrtcluster.common.Internal;
import java.util.Arrays;

/**
 * What the primary advertises about one index file: its full Lucene index header (holds the
 * segment id), its footer (holds the checksum), its length and its checksum. Two files with equal
 * metadata are the same file. A transport-level twin of Lucene's {@code FileMetaData}.
 */
@Internal
public record FileMeta(byte[] header, byte[] footer, long length, long checksum) {
  public FileMeta {
    header = header.clone();
    footer = footer.clone();
  }

  @Override
  public byte[] header() {
    return header.clone();
  }

  @Override
  public byte[] footer() {
    return footer.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FileMeta m
        && length == m.length
        && checksum == m.checksum
        && Arrays.equals(header, m.header)
        && Arrays.equals(footer, m.footer);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(checksum) * 31 + Long.hashCode(length);
  }

  @Override
  public String toString() {
    return "FileMeta(length=" + length + ", checksum=" + Long.toHexString(checksum) + ")";
  }
}

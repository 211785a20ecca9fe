package io.nrtcluster.objectstore;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.Experimental;

/**
 * One index file of a backed-up point: its name in the index directory, its length and its Lucene
 * checksum (the CRC32 in its {@code CodecUtil} footer). The three together are its identity in the
 * store ({@link StoreLayout#fileKey}), so a name that a later primary reuses for other bytes is stored
 * under another key and can never be confused with the first.
 */
@Experimental
public record FileEntry(String name, long length, long checksum) {
  public FileEntry {
    Checks.notBlank("name", name);
    if (name.contains("/") || name.contains("\\") || name.equals(".") || name.equals("..")) {
      throw new IllegalArgumentException("name must be a plain file name, got '" + name + "'");
    }
    Checks.inRange("length", length, 0, Long.MAX_VALUE);
    Checks.inRange("checksum", checksum, 0, 0xFFFFFFFFL);
  }
}

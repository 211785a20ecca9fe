package io.nrtcluster.primary;

import io.nrtcluster.transport.FileMeta;
import java.util.HashMap;
import java.util.Map;
import org.apache.lucene.replicator.nrt.FileMetaData;

/**
 * Encodes Lucene's file metadata as the transport's {@link FileMeta} for a copy-state reply or a merge
 * pre-copy. The primary only ever sends file lists; the replica's {@code FileMetaValidator} checks
 * them on the way in.
 */
final class FileMetaEncoder {
  private FileMetaEncoder() {}

  static Map<String, FileMeta> toWire(Map<String, FileMetaData> files) {
    Map<String, FileMeta> out = HashMap.newHashMap(files.size());
    files.forEach((name, m) -> out.put(name, new FileMeta(m.header(), m.footer(), m.length(), m.checksum())));
    return out;
  }
}

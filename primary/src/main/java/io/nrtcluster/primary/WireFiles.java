package io.nrtcluster.primary;

import io.nrtcluster.transport.FileMeta;
import java.util.HashMap;
import java.util.Map;
import org.apache.lucene.replicator.nrt.FileMetaData;

/** Lucene's file metadata in the transport's terms (the primary only ever sends it). */
final class WireFiles {
  private WireFiles() {}

  static Map<String, FileMeta> toWire(Map<String, FileMetaData> files) {
    Map<String, FileMeta> out = HashMap.newHashMap(files.size());
    files.forEach((name, m) -> out.put(name, new FileMeta(m.header(), m.footer(), m.length(), m.checksum())));
    return out;
  }
}

package io.nrtcluster.replica;

import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.PeerFileNames;
import io.nrtcluster.common.ProtocolException;
import io.nrtcluster.transport.FileMeta;
import java.util.HashMap;
import java.util.Map;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.replicator.nrt.FileMetaData;

/**
 * Validates a file list a primary advertised and turns it into Lucene's file metadata (the replica
 * only ever receives file lists). Every name and length is checked here, so nothing unsafe reaches
 * the directory; a bad entry fails the whole list.
 */
final class FileMetaValidator {
  private FileMetaValidator() {}

  static Map<String, FileMetaData> fromWire(Map<String, FileMeta> files) throws NrtClusterException {
    Map<String, FileMetaData> out = HashMap.newHashMap(files.size());
    for (Map.Entry<String, FileMeta> e : files.entrySet()) {
      String name = PeerFileNames.requireSafe(e.getKey());
      FileMeta m = e.getValue();
      if (m.length() < CodecUtil.footerLength()) {
        throw new ProtocolException("file " + name + " is shorter (" + m.length() + ") than a Lucene footer");
      }
      out.put(name, new FileMetaData(m.header(), m.footer(), m.length(), m.checksum()));
    }
    return out;
  }
}

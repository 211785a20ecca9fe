package io.nrtcluster.replica;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.PeerFileNames;
import io.nrtcluster.transport.FileMeta;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.replicator.nrt.FileMetaData;

/**
 * The replica's parser of the file list a primary advertises ({@link FileMetaValidator#fromWire}), the last
 * check before names and lengths reach the directory. Any file list either converts to Lucene's
 * metadata with only safe names and lengths that can hold a footer, or is refused with an {@link
 * NrtClusterException}; any other throwable is a finding. Seeds (random bytes the data provider
 * shapes into file lists) are committed under {@code WireFilesFuzzTestInputs/fromWire/}. No
 * {@code @Timeout} of its own: Jazzer would apply it to a whole fuzzing session.
 */
class WireFilesFuzzTest {
  private static final String[] NAMES = {"_0.cfs", "_0.si", "segments_3", "../x", "", "..", "a/b", "\u0000", "write.lock"};

  @FuzzTest(maxDuration = "30s")
  void fromWire(FuzzedDataProvider data) {
    Map<String, FileMeta> files = new LinkedHashMap<>();
    int n = data.consumeInt(0, 8);
    for (int i = 0; i < n; i++) {
      String name = data.consumeBoolean() ? data.pickValue(NAMES) : data.consumeString(300);
      files.put(name, new FileMeta(data.consumeBytes(64), data.consumeBytes(32),
          data.consumeBoolean() ? data.consumeLong(0, 1L << 40) : data.consumeLong(), data.consumeLong()));
    }
    Map<String, FileMetaData> out;
    try {
      out = FileMetaValidator.fromWire(files);
    } catch (NrtClusterException refused) {
      return;
    }
    if (!out.keySet().equals(files.keySet())) {
      throw new AssertionError("names changed: " + files.keySet() + " became " + out.keySet());
    }
    out.forEach((name, m) -> {
      if (!PeerFileNames.isSafe(name) || m.length() < CodecUtil.footerLength()) {
        throw new AssertionError("accepted " + name + " of length " + m.length());
      }
    });
  }
}

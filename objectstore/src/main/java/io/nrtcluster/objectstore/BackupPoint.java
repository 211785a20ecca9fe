package io.nrtcluster.objectstore;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.Experimental;
import java.io.IOException;
import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.index.IndexFileNames;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.replicator.nrt.CopyState;
import org.apache.lucene.replicator.nrt.FileMetaData;
import org.apache.lucene.store.ByteBuffersDataOutput;
import org.apache.lucene.store.ByteBuffersIndexOutput;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;

/**
 * One point of an index to back up: its version, the primary generation, the serialized {@code
 * SegmentInfos} and the files it references with their lengths and checksums. The files must stay
 * in the directory until the backup is done: whoever made the point holds them (a primary's
 * {@code CopyState} is incRef'd, a commit is held by a snapshot deletion policy) and releases them in
 * {@link BackupSource#close()}.
 */
@Experimental
public record BackupPoint(
    long version, long primaryGen, long infosGeneration, byte[] infosBytes, SortedMap<String, FileEntry> files,
    Map<String, String> userData) {

  public BackupPoint {
    Checks.inRange("version", version, 0, Long.MAX_VALUE);
    Checks.inRange("primaryGen", primaryGen, 0, Long.MAX_VALUE);
    Checks.notNull("infosBytes", infosBytes);
    files = Collections.unmodifiableSortedMap(new TreeMap<>(Checks.notNull("files", files)));
    userData = Map.copyOf(Checks.notNull("userData", userData));
  }

  /** A primary's NRT point: lengths and checksums as the primary already computed them. */
  public static BackupPoint of(CopyState state, Map<String, String> userData) {
    TreeMap<String, FileEntry> files = new TreeMap<>();
    for (Map.Entry<String, FileMetaData> e : state.files().entrySet()) {
      files.put(e.getKey(), new FileEntry(e.getKey(), e.getValue().length(), e.getValue().checksum()));
    }
    return new BackupPoint(state.version(), state.primaryGen(), state.gen(), state.infosBytes(), files, userData);
  }

  /**
   * A commit (or any {@code SegmentInfos}) of {@code dir}: each file's checksum is read from its
   * footer, which Lucene verified when it wrote it; the {@code segments_N} file itself is not listed,
   * its contents travel as {@link #infosBytes}.
   */
  public static BackupPoint of(Directory dir, SegmentInfos infos, long primaryGen, Map<String, String> userData)
      throws IOException {
    TreeMap<String, FileEntry> files = new TreeMap<>();
    for (String name : infos.files(false)) {
      if (name.startsWith(IndexFileNames.SEGMENTS)) {
        continue;
      }
      try (IndexInput in = dir.openInput(name, IOContext.READONCE)) {
        files.put(name, new FileEntry(name, in.length(), CodecUtil.retrieveChecksum(in)));
      }
    }
    ByteBuffersDataOutput buffer = new ByteBuffersDataOutput();
    try (ByteBuffersIndexOutput out = new ByteBuffersIndexOutput(buffer, "infos", "infos")) {
      infos.write(out);
    }
    return new BackupPoint(infos.getVersion(), primaryGen, infos.getGeneration(), buffer.toArrayCopy(), files, userData);
  }

  @Override
  public byte[] infosBytes() {
    return infosBytes.clone();
  }

  /** The manifest describing this point, stamped {@code createdEpochMillis}. */
  public Manifest manifest(long createdEpochMillis) {
    return new Manifest(version, primaryGen, infosGeneration, infosBytes, files, userData, createdEpochMillis);
  }
}

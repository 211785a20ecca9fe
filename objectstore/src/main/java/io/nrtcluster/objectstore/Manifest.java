package io.nrtcluster.objectstore;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.Experimental;
import java.util.Arrays;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One backed-up point of an index: everything needed to rebuild its directory. Immutable.
 *
 * @param version the point's Lucene version ({@code SegmentInfos.getVersion()})
 * @param primaryGen the primary generation that wrote it
 * @param infosGeneration the {@code SegmentInfos} generation the bytes were read at
 * @param infosBytes the serialized {@code SegmentInfos} ({@code SegmentInfos.write}, with its own footer checksum)
 * @param files every file the point references, by name (never a {@code segments_N})
 * @param userData the node's own facts about the point (for example its replay position); not Lucene's commit data, which is in the infos
 * @param createdEpochMillis when the backup was made, by the writer's clock (retention's "newer than")
 */
@Experimental
public record Manifest(
    long version,
    long primaryGen,
    long infosGeneration,
    byte[] infosBytes,
    SortedMap<String, FileEntry> files,
    Map<String, String> userData,
    long createdEpochMillis) {

  public Manifest {
    Checks.inRange("version", version, 0, Long.MAX_VALUE);
    Checks.inRange("primaryGen", primaryGen, 0, Long.MAX_VALUE);
    Checks.inRange("infosGeneration", infosGeneration, -1, Long.MAX_VALUE);
    Checks.notNull("infosBytes", infosBytes);
    infosBytes = infosBytes.clone();
    files = Collections.unmodifiableSortedMap(new TreeMap<>(Checks.notNull("files", files)));
    files.forEach((name, f) -> {
      if (!name.equals(f.name())) {
        throw new IllegalArgumentException("files: entry " + name + " names " + f.name());
      }
    });
    userData = Map.copyOf(Checks.notNull("userData", userData));
  }

  @Override
  public byte[] infosBytes() {
    return infosBytes.clone();
  }

  /** Total bytes of the point's files. */
  public long totalBytes() {
    return files.values().stream().mapToLong(FileEntry::length).sum();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Manifest m && version == m.version && primaryGen == m.primaryGen
        && infosGeneration == m.infosGeneration && Arrays.equals(infosBytes, m.infosBytes)
        && files.equals(m.files) && userData.equals(m.userData) && createdEpochMillis == m.createdEpochMillis;
  }

  @Override
  public int hashCode() {
    return Objects.hash(version, primaryGen, infosGeneration, Arrays.hashCode(infosBytes), files,
        userData, createdEpochMillis);
  }

  @Override
  public String toString() {
    return "Manifest[version=" + version + ", primaryGen=" + primaryGen + ", files=" + files.size() + ", bytes="
        + totalBytes() + "]";
  }
}

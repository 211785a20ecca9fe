package io.nrtcluster.replica;

import io.nrtcluster.common.NodeLog;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.IndexFormatTooNewException;
import org.apache.lucene.index.IndexFormatTooOldException;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;

/**
 * Verifies the full checksum of every file of a closed index directory's last commit that the
 * {@link VerifiedFiles} record does not already vouch for, and quarantines what fails.
 *
 * <p>Guarantees: after {@link #verifyLastCommit} returns, the directory's last commit (if any is
 * left) consists only of files whose whole checksum matched since they were last written. A commit
 * with a corrupt or missing file is dropped: its corrupt files are moved into the quarantine folder
 * (evidence for the operator, never read again), its {@code segments_N} too, so no searcher and no
 * primary can ever open it; the replica then starts from an empty index and copies everything it
 * lacks from its primary. Must run while no node has the directory open.
 */
final class LocalFileVerifier {
  /** What one verification found. */
  record Result(int filesRead, long bytesRead, long nanos, List<String> corrupt, boolean commitDropped, int quarantined) {}

  private final Path indexPath;
  private final Path quarantine;
  private final VerifiedFiles record;
  private final NodeLog log;

  LocalFileVerifier(Path indexPath, Path quarantine, VerifiedFiles record, NodeLog log) {
    this.indexPath = indexPath;
    this.quarantine = quarantine;
    this.record = record;
    this.log = log;
  }

  Result verifyLastCommit() throws IOException {
    long start = System.nanoTime();
    if (!Files.isDirectory(indexPath)) {
      return new Result(0, 0, 0, List.of(), false, 0);
    }
    int filesRead = 0;
    long bytesRead = 0;
    List<String> corrupt = new ArrayList<>();
    boolean missing = false;
    String segmentsFile;
    Collection<String> files;
    try (Directory dir = FSDirectory.open(indexPath)) {
      segmentsFile = SegmentInfos.getLastCommitSegmentsFileName(dir);
      if (segmentsFile == null) {
        return new Result(0, 0, System.nanoTime() - start, List.of(), false, 0);
      }
      try {
        files = new LinkedHashSet<>(SegmentInfos.readCommit(dir, segmentsFile).files(true));
      } catch (CorruptIndexException | EOFException | IndexFormatTooOldException | IndexFormatTooNewException e) {
        log.warn("the last commit's {} cannot be read ({}); dropping that commit", segmentsFile, e.toString());
        files = List.of(segmentsFile);
        // Reading a commit reads each segment's .si file too: find which file failed by its own
        // checksum, so the damaged one is quarantined, not only the commit that named it.
        corrupt.addAll(failingCommitFiles(dir, segmentsFile));
        if (corrupt.isEmpty()) {
          corrupt.add(segmentsFile);
        }
      }
      Map<String, VerifiedFiles.Stamp> verified = new HashMap<>();
      for (String name : corrupt.isEmpty() ? files : List.<String>of()) {
        VerifiedFiles.Stamp stamp;
        try {
          stamp = stamp(dir, name);
          if (record.isVerified(name, stamp)) {
            verified.put(name, stamp);
            continue;
          }
          filesRead++;
          bytesRead += stamp.length();
          try (IndexInput in = dir.openInput(name, IOContext.READONCE)) {
            CodecUtil.checksumEntireFile(in);
          }
          verified.put(name, stamp);
        } catch (NoSuchFileException | FileNotFoundException e) {
          log.warn("file {} of the last commit {} is missing; dropping that commit", name, segmentsFile);
          missing = true;
        } catch (CorruptIndexException | EOFException e) {
          log.warn("file {} of the last commit {} is corrupt: {}", name, segmentsFile, e.getMessage());
          corrupt.add(name);
        }
      }
      if (corrupt.isEmpty() && !missing) {
        record.record(verified, files);
        return new Result(filesRead, bytesRead, System.nanoTime() - start, List.of(), false, 0);
      }
    }
    record.markCorrupt(corrupt);
    int moved = 0;
    for (String name : corrupt) {
      moved += moveAside(name);
    }
    if (!corrupt.contains(segmentsFile)) {
      moved += moveAside(segmentsFile);
    }
    log.warn("quarantined {} in {}; the replica copies its index again from the primary", corrupt, quarantine);
    return new Result(filesRead, bytesRead, System.nanoTime() - start, List.copyOf(corrupt), true, moved);
  }

  /**
   * The segments file and the segment info ({@code .si}) files in {@code dir} whose whole checksum
   * fails: what can make reading a commit fail before its file list is known.
   */
  private List<String> failingCommitFiles(Directory dir, String segmentsFile) throws IOException {
    List<String> failing = new ArrayList<>();
    for (String name : dir.listAll()) {
      if (name.equals(segmentsFile) || name.endsWith(".si")) {
        try (IndexInput in = dir.openInput(name, IOContext.READONCE)) {
          CodecUtil.checksumEntireFile(in);
        } catch (CorruptIndexException | EOFException e) {
          log.warn("file {} is corrupt: {}", name, e.getMessage());
          failing.add(name);
        }
      }
    }
    return failing;
  }

  /** Length, footer checksum and modification time of {@code name}, from one open of the file. */
  private VerifiedFiles.Stamp stamp(Directory dir, String name) throws IOException {
    BasicFileAttributes attrs = Files.readAttributes(indexPath.resolve(name), BasicFileAttributes.class);
    try (IndexInput in = dir.openInput(name, IOContext.READONCE)) {
      return new VerifiedFiles.Stamp(in.length(), CodecUtil.retrieveChecksum(in),
          attrs.lastModifiedTime().to(TimeUnit.NANOSECONDS));
    }
  }

  /** Stamp of a file just installed from a verified copy; null when it cannot be read (it is verified next start). */
  static VerifiedFiles.Stamp stampOfCopied(Path indexPath, String name, long length, long checksum) {
    try {
      BasicFileAttributes attrs = Files.readAttributes(indexPath.resolve(name), BasicFileAttributes.class);
      return attrs.size() == length ? new VerifiedFiles.Stamp(length, checksum, attrs.lastModifiedTime().to(TimeUnit.NANOSECONDS)) : null;
    } catch (IOException e) {
      return null;
    }
  }

  private int moveAside(String name) throws IOException {
    Path source = indexPath.resolve(name);
    if (!Files.exists(source)) {
      return 0;
    }
    Files.createDirectories(quarantine);
    Path target = quarantine.resolve(name + "." + System.currentTimeMillis());
    Files.move(source, target, StandardCopyOption.ATOMIC_MOVE);
    return 1;
  }
}

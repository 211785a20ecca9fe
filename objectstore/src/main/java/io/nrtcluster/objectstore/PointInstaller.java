package io.nrtcluster.objectstore;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.lucene.index.IndexFileNames;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.store.Directory;
import org.apache.lucene.util.IOUtils;

/**
 * Installs backed-up points, one after another, into a {@link StoreFollower}'s directory beside the
 * point it serves: downloads only the files the directory lacks, verifies them ({@link
 * VerifiedDownloads}), renames them into place, syncs, and commits the point's {@code SegmentInfos}
 * as the directory's newest {@code segments_N}. A failure leaves no temporary or pending file, and
 * what was served before stays whole: its readers hold their files open.
 *
 * <p>A file is reused only when the directory holds the same name with the same length and checksum
 * (the identity of {@link StoreLayout#fileKey}). Lucene names are write-once for one primary, but a
 * new epoch's primary may give a name other bytes; such a file is downloaded and replaces the old
 * one, after every {@code segments_N} is deleted, so that no commit on disk ever names a file whose
 * bytes changed below it. A file this installer did not write itself (left by an earlier run) is
 * read in full and checked before it is reused.
 *
 * <p>One thread at a time (the follower's poll thread).
 */
final class PointInstaller implements Closeable {
  private static final String TEMP_SUFFIX = "follow";

  /** What one install did. {@code replaced}: a file kept its name with other bytes (readers must open anew). */
  record Result(String segmentsFile, int filesDownloaded, long bytesDownloaded, int filesReused, boolean replaced) {}

  private final Directory dir;
  private final VerifiedDownloads downloads;
  private final Transfers transfers;
  /** What each local file this installer wrote or checked holds; a name not here is checked before reuse. */
  private final Map<String, FileEntry> known = new HashMap<>();

  PointInstaller(Directory dir, ManifestStore manifests, String threadName, int parallelism) {
    this.dir = dir;
    this.downloads = new VerifiedDownloads(manifests);
    this.transfers = new Transfers(threadName, parallelism);
  }

  /**
   * Installs point {@code id}, whose manifest is {@code m}; the directory's newest commit is then that
   * point, at its version.
   *
   * @throws CorruptBackupException an object or the manifest's infos failed verification (named);
   *     nothing of it was installed under its name
   */
  Result install(ManifestId id, Manifest m) throws IOException {
    Set<String> present = Set.of(dir.listAll());
    List<FileEntry> lacking = new ArrayList<>();
    boolean replaces = false;
    for (FileEntry f : m.files().values()) {
      if (!present.contains(f.name())) {
        known.remove(f.name());
        lacking.add(f);
      } else if (!f.equals(identify(f))) {
        lacking.add(f);
        replaces = true;
      }
    }
    Map<String, String> temps = new ConcurrentHashMap<>();
    boolean success = false;
    try {
      List<Transfers.Transfer> work = new ArrayList<>();
      long bytes = 0;
      for (FileEntry f : lacking) {
        List<Transfers.Transfer> t = downloads.transfers(dir, f, TEMP_SUFFIX, temps);
        work.addAll(t.size() > 1 ? 0 : work.size(), t); // a file in parts: the longest transfers first
        bytes += f.length();
      }
      transfers.runAll(work);
      if (replaces) {
        deleteCommits();
      }
      List<String> installed = new ArrayList<>();
      for (FileEntry f : lacking) {
        if (present.contains(f.name())) {
          known.remove(f.name());
          dir.deleteFile(f.name());
        }
        dir.rename(temps.get(f.name()), f.name());
        temps.remove(f.name());
        known.put(f.name(), f);
        installed.add(f.name());
      }
      dir.sync(installed);
      dir.syncMetaData();
      SegmentInfos infos = VerifiedDownloads.readInfos(id, m, dir);
      if (infos.getVersion() != m.version()) {
        throw new CorruptBackupException(id.key(), "segment infos in manifest " + id.key() + " are at version "
            + infos.getVersion() + ", the manifest says " + m.version());
      }
      String segments = VerifiedDownloads.commit(infos, dir);
      success = true;
      return new Result(segments, lacking.size(), bytes, m.files().size() - lacking.size(), replaces);
    } finally {
      if (!success) {
        List<String> leftovers = new ArrayList<>(temps.values());
        for (String name : dir.listAll()) {
          if (name.startsWith(IndexFileNames.PENDING_SEGMENTS)) {
            leftovers.add(name);
          }
        }
        IOUtils.deleteFilesIgnoringExceptions(dir, leftovers);
      }
    }
  }

  /** What local file {@code f.name()} holds as far as reuse goes: {@code f} if it holds exactly {@code f}'s bytes. */
  private FileEntry identify(FileEntry f) {
    FileEntry have = known.get(f.name());
    if (have == null && VerifiedDownloads.holds(dir, f.name(), f)) {
      have = f;
      known.put(f.name(), f);
    }
    return have;
  }

  private void deleteCommits() throws IOException {
    for (String name : dir.listAll()) {
      if (name.startsWith(IndexFileNames.SEGMENTS)) {
        dir.deleteFile(name);
      }
    }
    dir.syncMetaData();
  }

  /**
   * Deletes every file of the directory but {@code keep} and the write lock: what no open reader
   * and no point to come relies on (temporary files of an install that crashed included).
   *
   * @return the names deleted
   */
  List<String> sweep(Set<String> keep) throws IOException {
    List<String> gone = new ArrayList<>();
    for (String name : dir.listAll()) {
      if (!keep.contains(name) && !name.equals(IndexWriter.WRITE_LOCK_NAME)) {
        known.remove(name);
        gone.add(name);
      }
    }
    IOUtils.deleteFilesIgnoringExceptions(dir, gone);
    return gone;
  }

  @Override
  public void close() {
    transfers.close();
  }
}

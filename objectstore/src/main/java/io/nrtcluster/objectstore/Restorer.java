package io.nrtcluster.objectstore;

import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.Experimental;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.NrtClusterException;
import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.lucene.index.IndexFileNames;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.store.Directory;
import org.apache.lucene.util.IOUtils;

/**
 * Rebuilds an index directory from a backup manifest, verifying every byte.
 *
 * <p>Each file is downloaded to a temporary file (up to {@link ObjectStoreConfig#maxParallelTransfers()}
 * transfers at once; into a file system directory, a file of at least {@link
 * ObjectStoreConfig#multipartThreshold()} bytes comes as ranged GETs of {@link
 * ObjectStoreConfig#partSize()} bytes in parallel, written in place), then checked: its length must
 * be the manifest's, its {@code CodecUtil} footer must hold, and the CRC32 of its bytes must equal
 * both the footer's and the manifest's checksum. Only when all files passed are they renamed to their
 * names, synced, and the point's {@code SegmentInfos} (itself checksummed) committed as a new {@code
 * segments_N}, last (downloads and checks are {@link VerifiedDownloads}', shared with {@link
 * StoreFollower}). Until that commit the directory has no
 * index in it: a failure at any step removes everything the restore wrote, so nothing half-written is
 * left or ever opened.
 *
 * <p>A flipped bit, a truncated or missing file, or a manifest that does not parse is a {@link
 * CorruptBackupException} naming the object; the caller may try an older manifest or, for a replica
 * bootstrap, fall back to the primary. The lead builds {@code bin/nrt restore} and replica bootstrap
 * on this class.
 */
@Experimental
public final class Restorer implements Closeable {
  private final ManifestStore manifests;
  private final NodeLog log;
  private final Transfers transfers;
  private final VerifiedDownloads downloads;

  public Restorer(ManifestStore manifests, NodeLog log) {
    this.manifests = manifests;
    this.log = log;
    this.transfers = new Transfers(log.name() + "-download", manifests.blobStore().config().maxParallelTransfers());
    this.downloads = new VerifiedDownloads(manifests);
  }

  /** Restores the newest manifest into {@code target}; see {@link #restore(ManifestId, Directory)}. */
  public Manifest restoreLatest(Directory target) throws IOException {
    ManifestId id = manifests.latestId()
        .orElseThrow(() -> new BackupNotFoundException("no backup of " + manifests.layout().root()));
    return restore(id, target);
  }

  /** Restores the newest manifest of {@code version} into {@code target}. */
  public Manifest restoreVersion(long version, Directory target) throws IOException {
    ManifestId id = manifests.find(version).orElseThrow(() -> new BackupNotFoundException(
        "no backup of version " + version + " of " + manifests.layout().root()));
    return restore(id, target);
  }

  /**
   * Restores manifest {@code id} into {@code target}, which must hold no index files.
   *
   * @return the manifest restored; the directory then opens at its version
   * @throws CorruptBackupException an object failed verification (named); the directory is left as it was
   * @throws BackupNotFoundException the manifest is gone (retention removed it meanwhile)
   */
  public Manifest restore(ManifestId id, Directory target) throws IOException {
    requireEmpty(target);
    Manifest manifest = manifests.read(id);
    Map<String, String> temps = new ConcurrentHashMap<>();
    List<String> installed = Collections.synchronizedList(new ArrayList<>());
    boolean success = false;
    try {
      List<Transfers.Transfer> work = new ArrayList<>();
      for (FileEntry f : manifest.files().values()) {
        List<Transfers.Transfer> t = downloads.transfers(target, f, "restore", temps);
        if (t.size() > 1) {
          work.addAll(0, t); // a file in parts: the longest transfers first
        } else {
          work.addAll(t);
        }
      }
      transfers.runAll(work);
      for (FileEntry f : manifest.files().values()) {
        target.rename(temps.get(f.name()), f.name());
        temps.remove(f.name());
        installed.add(f.name());
      }
      target.sync(installed);
      VerifiedDownloads.commit(VerifiedDownloads.readInfos(id, manifest, target), target);
      success = true;
      log.info("restored version {} (primary generation {}): {} files, {} bytes, from {}", manifest.version(),
          manifest.primaryGen(), manifest.files().size(), manifest.totalBytes(), id.key());
      return manifest;
    } finally {
      if (!success) {
        List<String> leftovers = new ArrayList<>(temps.values());
        leftovers.addAll(installed);
        for (String name : target.listAll()) {
          if (name.startsWith(IndexFileNames.PENDING_SEGMENTS)) {
            leftovers.add(name);
          }
        }
        IOUtils.deleteFilesIgnoringExceptions(target, leftovers);
      }
    }
  }

  private static void requireEmpty(Directory target) throws IOException {
    for (String name : target.listAll()) {
      if (!name.equals(IndexWriter.WRITE_LOCK_NAME)) {
        throw new NrtClusterException(ErrorCode.REFUSED,
            "restore target " + target + " is not empty (holds " + name + "); restore into an empty directory");
      }
    }
  }

  @Override
  public void close() {
    transfers.close();
  }
}

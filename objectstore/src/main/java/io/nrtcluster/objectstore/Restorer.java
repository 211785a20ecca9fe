package io.nrtcluster.objectstore;

import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.Experimental;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.NrtClusterException;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.IndexFileNames;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.store.BufferedChecksumIndexInput;
import org.apache.lucene.store.ByteBuffersDataInput;
import org.apache.lucene.store.ByteBuffersIndexInput;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.FilterDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.IndexOutput;
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
 * segments_N}, last. Until that commit the directory has no
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
  private final BlobStore store;
  private final ObjectStoreMetrics metrics;
  private final NodeLog log;
  private final Transfers transfers;

  public Restorer(ManifestStore manifests, NodeLog log) {
    this.manifests = manifests;
    this.store = manifests.blobStore();
    this.metrics = store.metrics();
    this.log = log;
    this.transfers = new Transfers(log.name() + "-download", store.config().maxParallelTransfers());
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
      Path local = localPath(target);
      List<Transfers.Transfer> work = new ArrayList<>();
      for (FileEntry f : manifest.files().values()) {
        if (local != null && f.length() >= store.config().multipartThreshold()) {
          work.addAll(0, downloadInParts(target, local, f, temps)); // the longest transfers first
        } else {
          work.add(() -> download(target, f, temps));
        }
      }
      transfers.runAll(work);
      for (FileEntry f : manifest.files().values()) {
        target.rename(temps.get(f.name()), f.name());
        temps.remove(f.name());
        installed.add(f.name());
      }
      target.sync(installed);
      commit(id, manifest, target);
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

  private void download(Directory target, FileEntry f, Map<String, String> temps) throws IOException {
    String key = manifests.layout().fileKey(f);
    IndexOutput[] current = new IndexOutput[1];
    try {
      long n = store.get(key, () -> {
        closeAndDelete(target, current[0], temps, f.name());
        IndexOutput out = target.createTempOutput(f.name(), "restore", IOContext.DEFAULT);
        current[0] = out;
        temps.put(f.name(), out.getName());
        return new IndexOutputStream(out);
      });
      if (n < 0) {
        throw missing(key);
      }
      current[0].close();
      if (n != f.length()) {
        throw new CorruptBackupException(key, "file " + key + " has " + n + " bytes, the manifest says " + f.length());
      }
      verify(target, temps.get(f.name()), f, key);
      metrics.fileDownloaded();
    } catch (IOException | RuntimeException e) {
      IOUtils.closeWhileHandlingException(current[0]);
      throw e;
    }
  }

  /** Where {@code dir}'s files are on the local file system, or null if it is not a file system directory. */
  private static Path localPath(Directory dir) {
    return FilterDirectory.unwrap(dir) instanceof FSDirectory fs ? fs.getDirectory() : null;
  }

  /**
   * A large file as ranged GETs of {@link ObjectStoreConfig#partSize()} bytes, each written in place
   * into one temporary file; they run among all the restore's transfers, so the bound on parallel
   * transfers holds across files. The part that finishes last verifies the whole file. The first
   * part also checks the object's length, which the ranges alone would not see if it were longer.
   */
  private List<Transfers.Transfer> downloadInParts(Directory target, Path local, FileEntry f, Map<String, String> temps)
      throws IOException {
    String key = manifests.layout().fileKey(f);
    String temp;
    try (IndexOutput out = target.createTempOutput(f.name(), "restore", IOContext.DEFAULT)) {
      temp = out.getName();
    }
    temps.put(f.name(), temp);
    Path file = local.resolve(temp);
    long partSize = store.config().partSize();
    AtomicInteger remaining = new AtomicInteger((int) ((f.length() + partSize - 1) / partSize));
    List<Transfers.Transfer> parts = new ArrayList<>();
    for (long offset = 0; offset < f.length(); offset += partSize) {
      long from = offset;
      long size = Math.min(partSize, f.length() - offset);
      parts.add(() -> {
        if (from == 0) {
          long stored = store.head(key).orElseThrow(() -> missing(key)).size();
          if (stored != f.length()) {
            throw new CorruptBackupException(key, "file " + key + " has " + stored + " bytes, the manifest says " + f.length());
          }
        }
        long n;
        try (PartSink sink = new PartSink(file, from)) {
          n = store.getRange(key, from, size, sink);
        }
        if (n < 0) {
          throw missing(key);
        }
        if (n != size) {
          throw new CorruptBackupException(key, "file " + key + " ends at byte " + (from + n) + ", the manifest says "
              + f.length() + " bytes");
        }
        if (remaining.decrementAndGet() == 0) {
          verify(target, temp, f, key);
          metrics.fileDownloaded();
        }
      });
    }
    return parts;
  }

  private static CorruptBackupException missing(String key) {
    return new CorruptBackupException(key, "file " + key + " named by the manifest is missing from the store");
  }

  private static void closeAndDelete(Directory dir, IndexOutput out, Map<String, String> temps, String name) {
    if (out != null) {
      IOUtils.closeWhileHandlingException(out);
      IOUtils.deleteFilesIgnoringExceptions(dir, out.getName());
      temps.remove(name);
    }
  }

  private static void verify(Directory dir, String temp, FileEntry f, String key) throws IOException {
    try (IndexInput in = dir.openInput(temp, IOContext.READONCE)) {
      long actual = CodecUtil.checksumEntireFile(in);
      if (actual != f.checksum()) {
        throw new CorruptBackupException(key, "file " + key + " has checksum " + Long.toHexString(actual)
            + ", the manifest says " + Long.toHexString(f.checksum()));
      }
    } catch (CorruptIndexException e) {
      throw new CorruptBackupException(key, "file " + key + " failed its Lucene checksum: " + e.getMessage(), e);
    }
  }

  private static void commit(ManifestId id, Manifest manifest, Directory target) throws IOException {
    byte[] bytes = manifest.infosBytes();
    SegmentInfos infos;
    try (BufferedChecksumIndexInput in = new BufferedChecksumIndexInput(new ByteBuffersIndexInput(
        new ByteBuffersDataInput(List.of(ByteBuffer.wrap(bytes))), id.key()))) {
      infos = SegmentInfos.readCommit(target, in, manifest.infosGeneration());
    } catch (CorruptIndexException | java.io.EOFException e) {
      throw new CorruptBackupException(id.key(), "segment infos in manifest " + id.key() + " are corrupt: " + e.getMessage(), e);
    }
    infos.commit(target);
    target.syncMetaData();
  }

  @Override
  public void close() {
    transfers.close();
  }

  /** One part's bytes, written at its offset of the file; each attempt writes over the last. */
  private static final class PartSink implements BlobStore.Sink, Closeable {
    private final Path file;
    private final long offset;
    private FileChannel channel;

    PartSink(Path file, long offset) {
      this.file = file;
      this.offset = offset;
    }

    @Override
    public OutputStream begin() throws IOException {
      close();
      FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE);
      channel = ch;
      return new OutputStream() {
        private long position = offset;

        @Override
        public void write(int b) throws IOException {
          write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
          ByteBuffer buffer = ByteBuffer.wrap(b, off, len);
          while (buffer.hasRemaining()) {
            position += ch.write(buffer, position);
          }
        }
      };
    }

    @Override
    public void close() throws IOException {
      if (channel != null) {
        channel.close();
        channel = null;
      }
    }
  }

  /** Writes to a Lucene {@link IndexOutput}; closing it does not close the output (the restorer does). */
  private static final class IndexOutputStream extends OutputStream {
    private final IndexOutput out;

    IndexOutputStream(IndexOutput out) {
      this.out = out;
    }

    @Override
    public void write(int b) throws IOException {
      out.writeByte((byte) b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.writeBytes(b, off, len);
    }
  }
}

package io.nrtcluster.objectstore;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.index.CorruptIndexException;
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
 * Brings a point's files from the store into temporary files of a local directory and checks each
 * exactly: its length must be the manifest's, its {@code CodecUtil} footer must hold, and the CRC32
 * of its bytes must equal both the footer's and the manifest's checksum. Then writes the point's
 * {@code SegmentInfos} as the directory's newest {@code segments_N}. One place for these checks, so a {@link Restorer} and a {@link StoreFollower}
 * refuse exactly the same bytes.
 *
 * <p>A file of at least {@link ObjectStoreConfig#multipartThreshold()} bytes going into a file system
 * directory comes as ranged GETs of {@link ObjectStoreConfig#partSize()} bytes, written in place into
 * one temporary file; other files come as one GET. Stateless apart from the store; safe from many threads.
 */
final class VerifiedDownloads {
  private final ManifestStore manifests;
  private final BlobStore store;

  VerifiedDownloads(ManifestStore manifests) {
    this.manifests = manifests;
    this.store = manifests.blobStore();
  }

  /**
   * The transfers that bring {@code f} into a temporary file of {@code target} (named {@code
   * <name>_<suffix>_N.tmp}), verified. Its name is in {@code temps} under {@code f.name()} from the
   * moment the file exists, so that a caller whose batch failed can delete it.
   */
  List<Transfers.Transfer> transfers(Directory target, FileEntry f, String suffix, Map<String, String> temps)
      throws IOException {
    Path local = localPath(target);
    if (local != null && f.length() >= store.config().multipartThreshold()) {
      return downloadInParts(target, local, f, suffix, temps);
    }
    return List.of(() -> download(target, f, suffix, temps));
  }

  private void download(Directory target, FileEntry f, String suffix, Map<String, String> temps) throws IOException {
    String key = manifests.layout().fileKey(f);
    IndexOutput[] current = new IndexOutput[1];
    try {
      long n = store.get(key, () -> {
        closeAndDelete(target, current[0], temps, f.name());
        IndexOutput out = target.createTempOutput(f.name(), suffix, IOContext.DEFAULT);
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
      store.metrics().fileDownloaded();
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
   * into one temporary file; they run among all the batch's transfers, so the bound on parallel
   * transfers holds across files. The part that finishes last verifies the whole file. The first
   * part also checks the object's length, which the ranges alone would not see if it were longer.
   */
  private List<Transfers.Transfer> downloadInParts(Directory target, Path local, FileEntry f, String suffix,
      Map<String, String> temps) throws IOException {
    String key = manifests.layout().fileKey(f);
    String temp;
    try (IndexOutput out = target.createTempOutput(f.name(), suffix, IOContext.DEFAULT)) {
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
          store.metrics().fileDownloaded();
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

  /**
   * Checks file {@code name} of {@code dir} against {@code f}: its CodecUtil footer, and the CRC32 of
   * its bytes against the footer's and {@code f}'s checksum (the length is the caller's to check).
   *
   * @throws CorruptBackupException it failed, naming {@code key}
   */
  static void verify(Directory dir, String name, FileEntry f, String key) throws IOException {
    try (IndexInput in = dir.openInput(name, IOContext.READONCE)) {
      long actual = CodecUtil.checksumEntireFile(in);
      if (actual != f.checksum()) {
        throw new CorruptBackupException(key, "file " + key + " has checksum " + Long.toHexString(actual)
            + ", the manifest says " + Long.toHexString(f.checksum()));
      }
    } catch (CorruptIndexException e) {
      throw new CorruptBackupException(key, "file " + key + " failed its Lucene checksum: " + e.getMessage(), e);
    }
  }

  /**
   * Whether local file {@code name} of {@code dir} holds exactly {@code f}'s bytes: its length, and
   * every byte read against the footer and {@code f}'s checksum. For a file a directory already has
   * whose origin is not known (left by an earlier run), before it is reused in place of a download.
   */
  static boolean holds(Directory dir, String name, FileEntry f) {
    try {
      if (dir.fileLength(name) != f.length()) {
        return false;
      }
      verify(dir, name, f, name);
      return true;
    } catch (IOException | RuntimeException e) {
      return false; // unreadable, truncated or other bytes: not the file the manifest names
    }
  }

  /**
   * Parses the point's {@code SegmentInfos} (their own footer checksum included) against the
   * segments' files, which must be in {@code target} under their names.
   *
   * @throws CorruptBackupException they do not parse or their checksum fails, naming the manifest
   */
  static SegmentInfos readInfos(ManifestId id, Manifest manifest, Directory target) throws IOException {
    byte[] bytes = manifest.infosBytes();
    try (BufferedChecksumIndexInput in = new BufferedChecksumIndexInput(new ByteBuffersIndexInput(
        new ByteBuffersDataInput(List.of(ByteBuffer.wrap(bytes))), id.key()))) {
      return SegmentInfos.readCommit(target, in, manifest.infosGeneration());
    } catch (CorruptIndexException | EOFException e) {
      throw new CorruptBackupException(id.key(), "segment infos in manifest " + id.key() + " are corrupt: " + e.getMessage(), e);
    }
  }

  /**
   * Writes {@code infos} as a new {@code segments_N} of {@code target} and syncs it, with N above
   * both the point's own generation and every {@code segments_N} already there: a reader opening the
   * directory takes the highest N, so a point whose primary committed less often than the last one
   * (a new epoch's) must not land below an older point's commit.
   *
   * @return the name of the segments file written
   */
  static String commit(SegmentInfos infos, Directory target) throws IOException {
    long highest = Math.max(infos.getGeneration(), SegmentInfos.getLastCommitGeneration(target));
    if (highest > infos.getGeneration()) {
      infos.setNextWriteGeneration(highest); // the commit writes generation + 1
    }
    infos.commit(target);
    target.syncMetaData();
    return infos.getSegmentsFileName();
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

  /** Writes to a Lucene {@link IndexOutput}; closing it does not close the output (the downloader does). */
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

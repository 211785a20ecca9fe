package io.nrtcluster.objectstore;

import io.nrtcluster.common.Experimental;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.index.IndexFileNames;
import org.apache.lucene.store.ByteBuffersDataInput;
import org.apache.lucene.store.ByteBuffersIndexInput;
import org.apache.lucene.store.IndexInput;

/**
 * Rereads a backup from the store and checks every object its manifest names, without restoring it:
 * so damage in the store, or a deleted object, shows when it happens rather than at the restore that
 * needs it.
 *
 * <p>Each object must be present, hold exactly the manifest's length, end in a well formed Lucene
 * {@code CodecUtil} footer ({@link CodecUtil#FOOTER_MAGIC}, algorithm 0, a 32-bit checksum), and the
 * CRC32 of all its bytes before the footer's checksum must equal both that checksum and the
 * manifest's. These are the checks a {@link Restorer} makes, so an intact report means a restore of
 * that manifest reads only good bytes (unless the store changes meanwhile). Objects are streamed one
 * after another, never kept whole in memory nor written to disk, at most {@code bytesPerSecond}
 * (retried attempts count too), so a background verification leaves the store and the network to the
 * backups.
 *
 * <p>A damaged object is a {@link VerifyReport.Damage} in the report, never an exception: every
 * object is checked. What is not about the objects throws: the store unreachable or refusing ({@link
 * ObjectStoreUnavailableException}, {@link ObjectStoreAccessException}), the manifest gone ({@link
 * BackupNotFoundException}), or the manifest itself unusable, either not parsing or holding segment
 * infos whose header or checksum fails ({@link CorruptBackupException} naming it: what it names is then
 * unknown). An interrupt ends a run with {@link java.io.InterruptedIOException} and the flag set.
 * Stateless apart from its settings; safe from many threads.
 */
@Experimental
public final class BackupVerifier {
  /** {@code bytesPerSecond} for no limit. */
  public static final long UNLIMITED = 0;

  /**
   * The lowest limit: the store's reads hand over up to 64 KiB at once, so a slower pace would leave a
   * download's connection unread for more than a second per read, long enough for some stores to
   * drop it (and a dropped download starts the object over).
   */
  public static final long MIN_BYTES_PER_SECOND = 64 << 10;

  private final ManifestStore manifests;
  private final long bytesPerSecond;

  /**
   * @param manifests the index's backups
   * @param bytesPerSecond most bytes read per second, {@link #UNLIMITED} or at least {@link #MIN_BYTES_PER_SECOND}
   */
  public BackupVerifier(ManifestStore manifests, long bytesPerSecond) {
    this.manifests = manifests;
    this.bytesPerSecond = checkRate("bytesPerSecond", bytesPerSecond);
  }

  /** Checks a pace setting, naming {@code field}: 0 (none) or at least {@link #MIN_BYTES_PER_SECOND}. */
  static long checkRate(String field, long bytesPerSecond) {
    if (bytesPerSecond != UNLIMITED && bytesPerSecond < MIN_BYTES_PER_SECOND) {
      throw new IllegalArgumentException(field + " must be 0 (unlimited) or at least " + MIN_BYTES_PER_SECOND
          + " bytes per second, got " + bytesPerSecond);
    }
    return bytesPerSecond;
  }

  public long bytesPerSecond() {
    return bytesPerSecond;
  }

  /** Verifies the newest manifest; {@link BackupNotFoundException} when there is none. */
  public VerifyReport verifyLatest() throws IOException {
    return verify(manifests.latestId()
        .orElseThrow(() -> new BackupNotFoundException("no backup of " + manifests.layout().root())));
  }

  /** Verifies the newest manifest of {@code version}; {@link BackupNotFoundException} when there is none. */
  public VerifyReport verifyVersion(long version) throws IOException {
    return verify(manifests.find(version).orElseThrow(() -> new BackupNotFoundException(
        "no backup of version " + version + " of " + manifests.layout().root())));
  }

  /**
   * Reads manifest {@code id} and every object it names, on the calling thread.
   *
   * @return what was found; {@link VerifyReport#intact()} when every object passed
   * @throws BackupNotFoundException the manifest is not (or no longer) in the store
   * @throws CorruptBackupException the manifest itself is unusable (named)
   */
  public VerifyReport verify(ManifestId id) throws IOException {
    long start = System.nanoTime();
    Manifest manifest = manifests.read(id);
    checkInfos(id, manifest);
    Pace pace = new Pace(bytesPerSecond);
    List<VerifyReport.Damage> damage = new ArrayList<>();
    long bytes = 0;
    for (FileEntry f : manifest.files().values()) {
      String key = manifests.layout().fileKey(f);
      ObjectDigest digest = new ObjectDigest(pace);
      long n = manifests.blobStore().get(key, digest);
      if (n > 0) {
        bytes += n;
      }
      VerifyReport.Damage d = check(key, f, n, digest);
      if (d != null) {
        damage.add(d);
      }
    }
    return new VerifyReport(id, manifest.files().size(), bytes, Duration.ofNanos(System.nanoTime() - start), damage);
  }

  /** The damage of one object that came with {@code n} bytes (-1: none) into {@code digest}, or null if it passed. */
  private static VerifyReport.Damage check(String key, FileEntry f, long n, ObjectDigest digest) {
    if (n < 0) {
      return new VerifyReport.Damage(key, f.name(), VerifyReport.Problem.MISSING, "not in the store");
    }
    if (n != f.length()) {
      return new VerifyReport.Damage(key, f.name(), VerifyReport.Problem.WRONG_LENGTH,
          "has " + n + " bytes, the manifest says " + f.length());
    }
    if (!digest.footerWellFormed()) {
      String what = n < ObjectDigest.FOOTER_BYTES ? "is shorter than a footer"
          : String.format(Locale.ROOT, "ends in magic %08x, algorithm %d, checksum %016x; a footer is magic %08x,"
              + " algorithm 0, a 32-bit checksum", digest.footerMagic(), digest.footerAlgorithm(),
              digest.footerChecksum(), CodecUtil.FOOTER_MAGIC);
      return new VerifyReport.Damage(key, f.name(), VerifyReport.Problem.BAD_FOOTER, what);
    }
    long actual = digest.crcBeforeChecksum();
    if (actual != digest.footerChecksum() || actual != f.checksum()) {
      return new VerifyReport.Damage(key, f.name(), VerifyReport.Problem.WRONG_CHECKSUM, String.format(Locale.ROOT,
          "bytes have checksum %08x, the footer says %08x, the manifest says %08x", actual, digest.footerChecksum(),
          f.checksum()));
    }
    return null;
  }

  /**
   * The point's serialized segment infos, which the manifest carries: their codec header and their
   * footer checksum. (Parsing them whole needs the segments' own files, which a restore has.)
   */
  private static void checkInfos(ManifestId id, Manifest manifest) throws CorruptBackupException {
    byte[] bytes = manifest.infosBytes();
    try (IndexInput in = new ByteBuffersIndexInput(new ByteBuffersDataInput(List.of(ByteBuffer.wrap(bytes))), id.key())) {
      CodecUtil.checkHeader(in, IndexFileNames.SEGMENTS, 0, Integer.MAX_VALUE);
      in.seek(0);
      CodecUtil.checksumEntireFile(in);
    } catch (IOException | RuntimeException e) {
      throw new CorruptBackupException(id.key(), "segment infos in manifest " + id.key() + " are corrupt: "
          + e.getMessage(), e);
    }
  }
}

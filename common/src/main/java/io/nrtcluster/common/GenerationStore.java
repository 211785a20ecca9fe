package io.nrtcluster.common;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * A node's small durable facts that must survive restarts and must never go backwards: the highest
 * primary generation it has seen and the highest index version it has published or searched. Kept
 * outside the index directory (Lucene deletes unknown files there). Updates are atomic: write a temp
 * file, rename it over the old one.
 *
 * <p>A durable update (a new primary generation, a commit) fsyncs the temp file, renames it, and then
 * fsyncs the directory, as Lucene's {@code FSDirectory.syncMetaData} does: the rename is a change to
 * the directory, and until the directory is synced a power loss can bring the old file back, making
 * the node forget a generation it already saw. Like Lucene's {@code IOUtils.fsync(dir, true)}, the
 * directory sync is skipped on Windows (a directory cannot be opened there and NTFS journals the
 * rename) and an error of the directory's fsync itself (some file systems refuse it) is ignored; an
 * error opening the directory is not. A temp file left by a crash is never read and is overwritten
 * by the next update.
 */
@Internal
public final class GenerationStore {
  private static final String GEN = "highestPrimaryGen";
  private static final String VERSION = "highestVersion";
  private static final String COMMITTED_VERSION = "committedVersion";
  private static final String COMMITTED_POSITION = "committedReplayPosition";
  private static final String CLEAN_CLOSE = "cleanCloseIncarnation";

  private final Path file;
  private long highestPrimaryGen = -1;
  private long highestVersion = -1;
  private long committedVersion = -1;
  private String committedPosition;
  private long cleanClose;

  private GenerationStore(Path file) {
    this.file = file;
  }

  /** Opens (or starts) the store at {@code file}; a corrupt file is a {@link StorageException}. */
  public static GenerationStore open(Path file) throws StorageException {
    GenerationStore store = new GenerationStore(file);
    if (Files.exists(file)) {
      Properties p = new Properties();
      try (InputStream in = Files.newInputStream(file)) {
        p.load(in);
        store.highestPrimaryGen = Long.parseLong(p.getProperty(GEN, "-1"));
        store.highestVersion = Long.parseLong(p.getProperty(VERSION, "-1"));
        store.committedVersion = Long.parseLong(p.getProperty(COMMITTED_VERSION, "-1"));
        store.committedPosition = p.getProperty(COMMITTED_POSITION);
        store.cleanClose = Long.parseLong(p.getProperty(CLEAN_CLOSE, "0"));
      } catch (IOException | IllegalArgumentException e) {
        // IllegalArgumentException: a malformed number, or a malformed unicode escape (Properties.load).
        throw new StorageException("cannot read node state " + file, e);
      }
    }
    return store;
  }

  public synchronized long highestPrimaryGen() {
    return highestPrimaryGen;
  }

  public synchronized long highestVersion() {
    return highestVersion;
  }

  /**
   * Records that generation {@code gen} was seen; durable before returning when it is new (file and
   * directory fsynced). Returns false (and changes nothing) when {@code gen} is lower than one seen
   * before.
   */
  public synchronized boolean observeGeneration(long gen) throws StorageException {
    if (gen < highestPrimaryGen) {
      return false;
    }
    if (gen > highestPrimaryGen) {
      highestPrimaryGen = gen;
      write(true);
    }
    return true;
  }

  /**
   * Records a published or searched version. Written without fsync: it survives a process crash (the
   * page cache does) but not a power loss, which is the trade-off for doing it on every refresh.
   */
  public synchronized void observeVersion(long version) throws StorageException {
    if (version > highestVersion) {
      highestVersion = version;
      write(false);
    }
  }

  /**
   * Records that version {@code version} was committed with application replay position {@code
   * position} (may be null). Durable before returning (file and directory fsynced).
   */
  public synchronized void recordCommit(long version, String position) throws StorageException {
    committedVersion = version;
    committedPosition = position;
    highestVersion = Math.max(highestVersion, version);
    write(true);
  }

  /** Version of the last commit recorded with {@link #recordCommit}, or -1. */
  public synchronized long committedVersion() {
    return committedVersion;
  }

  /** Replay position recorded with the last commit, or null. */
  public synchronized String committedPosition() {
    return committedPosition;
  }

  /**
   * Records that the index closed cleanly in run {@code incarnation} ({@link Incarnations}): its last
   * commit holds everything that run searched, so the next opening may go on as that run. Durable
   * before returning.
   */
  public synchronized void recordCleanClose(long incarnation) throws StorageException {
    cleanClose = incarnation;
    write(true);
  }

  /**
   * The run recorded by {@link #recordCleanClose}, or 0, and forgets it durably before returning: a
   * crash of the run that takes it over must not let a later opening claim it again.
   */
  public synchronized long takeCleanClose() throws StorageException {
    long taken = cleanClose;
    if (taken != 0) {
      cleanClose = 0;
      write(true);
    }
    return taken;
  }

  private void write(boolean sync) throws StorageException {
    Properties p = new Properties();
    p.setProperty(GEN, Long.toString(highestPrimaryGen));
    p.setProperty(VERSION, Long.toString(highestVersion));
    p.setProperty(COMMITTED_VERSION, Long.toString(committedVersion));
    if (committedPosition != null) {
      p.setProperty(COMMITTED_POSITION, committedPosition);
    }
    if (cleanClose != 0) {
      p.setProperty(CLEAN_CLOSE, Long.toString(cleanClose));
    }
    try {
      AtomicFiles.replace(file, out -> p.store(out, "nrtcluster node state; do not edit"), sync);
    } catch (IOException e) {
      throw new StorageException("cannot write node state " + file, e);
    }
  }
}

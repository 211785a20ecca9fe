package io.nrtcluster.replica;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.Experimental;
import java.nio.file.FileSystemException;

/**
 * Storage faults injected into a replica's index directory: a disk that fills up, a write that fails
 * with an I/O error, an fsync or a rename that fails, an index that cannot be opened. Off by default ({@link #NONE}) and switched on by
 * configuration only ({@link ReplicaConfig.Builder#storageFaults}), never by code changes.
 *
 * <p>A replica configured with a {@link #switchable()} instance writes every index file (copied
 * files, pre-copied merged segments, its own commits) through a fault point in its {@code
 * Directory}; this object is the switch that turns faults on and off while the replica runs, for
 * example to let a test or a chaos run "free space" later. A replica configured with {@link #NONE}
 * has no fault point at all.
 *
 * <p>The faults look like the real ones: a {@link FileSystemException} while writing or syncing,
 * and, as with a real buffered file, closing a file whose write failed fails too while the disk is
 * still full. The disk model is free space: writes use it up (a write that does not fit writes
 * what fits, then fails) and deleting a file gives its bytes back. Thread-safe.
 */
@Experimental
public final class StorageFaults {
  /** No faults and no fault point; cannot be switched. */
  public static final StorageFaults NONE = new StorageFaults(false);

  private static final String NO_SPACE = "No space left on device";
  private static final String IO_ERROR = "Input/output error";

  private final boolean switchable;
  /** Free bytes left on the simulated disk; -1 while the disk is not limited. */
  private long freeBytes = -1;
  /** Bytes still writable before the one-shot I/O error; -1 while none is armed. */
  private long ioErrorIn = -1;
  private boolean failSyncs;
  private boolean failRenames;
  private boolean failIndexOpens;
  private long indexOpenFaults;
  private long diskFullFaults;
  private long ioErrors;
  private long syncFaults;
  private long renameFaults;

  private StorageFaults(boolean switchable) {
    this.switchable = switchable;
  }

  /** A switch that injects nothing until one of its methods turns a fault on. */
  public static StorageFaults switchable() {
    return new StorageFaults(true);
  }

  /** True when a replica configured with this instance must install the fault point. */
  public boolean isSwitchable() {
    return switchable;
  }

  /**
   * Fills the disk but for {@code bytesLeft} free bytes: writes use them up, deleted files give
   * theirs back, and a write that does not fit fails with "No space left on device".
   */
  public synchronized void fillDisk(long bytesLeft) {
    requireSwitchable();
    Checks.inRange("storageFaults.bytesLeft", bytesLeft, 0, Long.MAX_VALUE);
    freeBytes = bytesLeft;
  }

  /** The write that goes past {@code bytes} more bytes fails once with an I/O error; later ones work. */
  public synchronized void ioErrorAfter(long bytes) {
    requireSwitchable();
    Checks.inRange("storageFaults.bytes", bytes, 0, Long.MAX_VALUE);
    ioErrorIn = bytes;
  }

  /** While on, every fsync (of files or of the directory) fails with an I/O error. */
  public synchronized void failSyncs(boolean fail) {
    requireSwitchable();
    failSyncs = fail;
  }

  /** While on, every rename (installing a copied file, publishing a commit) fails with an I/O error. */
  public synchronized void failRenames(boolean fail) {
    requireSwitchable();
    failRenames = fail;
  }

  /**
   * While on, opening the local index (at start-up or when a resync reopens it) fails with an I/O
   * error, as on a disk that cannot be read.
   */
  public synchronized void failIndexOpens(boolean fail) {
    requireSwitchable();
    failIndexOpens = fail;
  }

  /** Space returns and every fault stops. */
  public synchronized void clear() {
    requireSwitchable();
    freeBytes = -1;
    ioErrorIn = -1;
    failSyncs = false;
    failRenames = false;
    failIndexOpens = false;
  }

  /** Writes refused because the disk was full. */
  public synchronized long diskFullFaults() {
    return diskFullFaults;
  }

  /** Writes failed by {@link #ioErrorAfter}. */
  public synchronized long ioErrors() {
    return ioErrors;
  }

  /** Fsyncs failed by {@link #failSyncs}. */
  public synchronized long syncFaults() {
    return syncFaults;
  }

  /** Renames failed by {@link #failRenames}. */
  public synchronized long renameFaults() {
    return renameFaults;
  }

  /** Index opens failed by {@link #failIndexOpens}. */
  public synchronized long indexOpenFaults() {
    return indexOpenFaults;
  }

  /**
   * Room for a write of {@code length} bytes to {@code file}: how many of them fit. Fewer than
   * {@code length} means the disk is full now: the caller writes those, as a real partial write
   * does, then fails with {@link #noSpace}. Throws the armed one-shot I/O error.
   */
  synchronized int beforeWrite(String file, int length) throws FileSystemException {
    if (ioErrorIn >= 0) {
      if (length > ioErrorIn) {
        ioErrorIn = -1;
        ioErrors++;
        throw new FileSystemException(file, null, IO_ERROR);
      }
      ioErrorIn -= length;
    }
    if (freeBytes < 0) {
      return length;
    }
    int fit = (int) Math.min(length, freeBytes);
    freeBytes -= fit;
    return fit;
  }

  /** The failure of a write that did not fit. */
  synchronized FileSystemException noSpace(String file) {
    diskFullFaults++;
    return new FileSystemException(file, null, NO_SPACE);
  }

  /**
   * Closing a file after a write of {@code pendingBytes} failed: like a real buffered file, closing
   * flushes those bytes again, which fails while they still do not fit.
   */
  synchronized void beforeFlushOnClose(String file, long pendingBytes) throws FileSystemException {
    if (freeBytes >= 0 && pendingBytes > freeBytes) {
      diskFullFaults++;
      throw new FileSystemException(file, null, NO_SPACE);
    }
  }

  synchronized void deleted(long length) {
    if (freeBytes >= 0) {
      freeBytes += length;
    }
  }

  synchronized void beforeSync(String what) throws FileSystemException {
    if (failSyncs) {
      syncFaults++;
      throw new FileSystemException(what, null, IO_ERROR);
    }
  }

  synchronized void beforeRename(String source) throws FileSystemException {
    if (failRenames) {
      renameFaults++;
      throw new FileSystemException(source, null, IO_ERROR);
    }
  }

  synchronized void beforeIndexOpen(String what) throws FileSystemException {
    if (failIndexOpens) {
      indexOpenFaults++;
      throw new FileSystemException(what, null, IO_ERROR);
    }
  }

  private void requireSwitchable() {
    if (!switchable) {
      throw new IllegalStateException("StorageFaults.NONE cannot be switched; configure StorageFaults.switchable()");
    }
  }

  @Override
  public synchronized String toString() {
    return switchable
        ? "StorageFaults(freeBytes=" + freeBytes + ", ioErrorIn=" + ioErrorIn + ", failSyncs=" + failSyncs
            + ", failRenames=" + failRenames + ", failIndexOpens=" + failIndexOpens + ")"
        : "StorageFaults.NONE";
  }
}

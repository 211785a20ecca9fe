package io.nrtcluster.node;

import io.nrtcluster.common.InsufficientStorageException;
import io.nrtcluster.common.NodeLog;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * The free-space floor of one index's data directory ({@link HostConfig#minFreeDiskBytes}): a write
 * on the primary asks {@link #checkWrite} first and is refused with {@link
 * InsufficientStorageException} while the usable space is below the floor.
 *
 * <p>Guarantees: the usable space is measured at most once per {@code interval} (one {@code statfs}
 * through {@link FileStore#getUsableSpace()}), never per document, and never under a lock: threads
 * that find the measurement stale at the same moment may each measure once. A floor of 0 never
 * measures. A measurement that fails admits writes (the floor guards against a full disk, it does
 * not invent one). Going below and back above the floor is logged once each way.
 */
final class DiskFloor {
  /** Where the usable bytes come from; a test gives its own. */
  @FunctionalInterface
  interface Probe {
    long usableBytes() throws IOException;
  }

  private final Path dir;
  private final long floorBytes;
  private final long intervalNanos;
  private final Probe probe;
  private final LongSupplier nanoClock;
  private final NodeLog log;
  private volatile long measuredAt;
  private volatile long usable = -1;
  private volatile boolean below;

  DiskFloor(Path dir, long floorBytes, long intervalNanos, Probe probe, LongSupplier nanoClock, NodeLog log) {
    this.dir = dir;
    this.floorBytes = floorBytes;
    this.intervalNanos = intervalNanos;
    this.probe = probe;
    this.nanoClock = nanoClock;
    this.log = log;
    this.measuredAt = nanoClock.getAsLong() - intervalNanos - 1;
  }

  /** The floor of {@code config} on {@code dir}, measured through the directory's file store. */
  static DiskFloor of(Path dir, HostConfig config, NodeLog log) {
    return new DiskFloor(dir, config.minFreeDiskBytes(), config.freeSpaceCheckInterval().toNanos(), fileStore(dir),
        System::nanoTime, log);
  }

  private static Probe fileStore(Path dir) {
    return new Probe() {
      private volatile FileStore store;

      @Override
      public long usableBytes() throws IOException {
        FileStore s = store;
        if (s == null) {
          s = Files.getFileStore(dir);
          store = s;
        }
        return s.getUsableSpace();
      }
    };
  }

  /** Refuses a write ({@code what}) while the usable space is below the floor. */
  void checkWrite(String what, int nodeId, String index) throws InsufficientStorageException {
    if (floorBytes == 0) {
      return;
    }
    long u = usableBytes();
    if (u >= 0 && u < floorBytes) {
      throw new InsufficientStorageException("node " + nodeId + " cannot " + what + " on " + index + ": the data directory "
          + dir + " has " + mib(u) + " usable, below the floor of " + mib(floorBytes)
          + " (writes resume by themselves when space returns)", dir.toString(), u, floorBytes);
    }
  }

  /** True while the last measurement was below the floor (never with a floor of 0). */
  boolean isBelow() {
    if (floorBytes == 0) {
      return false;
    }
    long u = usableBytes();
    return u >= 0 && u < floorBytes;
  }

  long floorBytes() {
    return floorBytes;
  }

  /** The usable bytes, measured at most once per interval; -1 when it could not be measured. */
  long usableBytes() {
    long now = nanoClock.getAsLong();
    if (now - measuredAt <= intervalNanos) {
      return usable;
    }
    return measureNow(now);
  }

  /** Measures now, whatever the age of the last measurement (for a rare event, not per write). */
  long measureNow() {
    return measureNow(nanoClock.getAsLong());
  }

  private long measureNow(long now) {
    long u;
    try {
      u = probe.usableBytes();
    } catch (IOException | RuntimeException e) {
      log.debug("cannot measure the free space of {}: {}", dir, e.toString());
      u = -1;
    }
    usable = u;
    measuredAt = now;
    boolean nowBelow = floorBytes > 0 && u >= 0 && u < floorBytes;
    if (nowBelow != below) {
      below = nowBelow;
      if (nowBelow) {
        log.warn("{} has {} usable, below the floor of {}: writes refused until space returns", dir, mib(u), mib(floorBytes));
      } else {
        log.info("{} has {} usable again (floor {}): writes resume", dir, mib(u), mib(floorBytes));
      }
    }
    return u;
  }

  static String mib(long bytes) {
    return String.format(Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024.0));
  }
}

package io.nrtcluster.stress.net;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Size-limited disks for chaos hosts: one tmpfs mount per directory, which the harness fills from
 * outside the node's process (a real {@code No space left on device} for the node) and frees again.
 *
 * <p>Guarantees: every mount's source is named {@code nrtc-disk-<pid>-<name>} after the owning
 * process, so a lab's {@link #close()} (also run by a shutdown hook) unmounts exactly what it
 * mounted, and {@link #open} first unmounts the leftovers of owners no longer alive (a harness killed
 * with SIGKILL). Needs root and {@code mount}; without them {@link #open} refuses, naming why.
 */
public final class DiskLab implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DiskLab.class);
  static final String PREFIX = "nrtc-disk-";
  private static final Pattern SOURCE = Pattern.compile("nrtc-disk-(\\d+)-([A-Za-z0-9_-]{1,40})");
  private static final Path MOUNTS = Path.of("/proc/self/mounts");
  static final String FILLER = ".chaos-disk-filler";
  private static final int CHUNK = 1 << 20;

  private final long sizeBytes;
  private final long pid = ProcessHandle.current().pid();
  /** Mount point by name, in mount order; guarded by this. */
  private final Map<String, Path> mounts = new LinkedHashMap<>();
  private final Thread shutdownHook = new Thread(this::closeQuietly, "disklab-cleanup");
  private boolean closed;

  private DiskLab(long sizeBytes) {
    this.sizeBytes = sizeBytes;
  }

  /**
   * Sweeps leftovers of dead owners and returns a lab whose disks hold {@code sizeBytes} each.
   *
   * @throws NetLabException not root, or no {@code mount}/{@code umount}
   */
  public static DiskLab open(long sizeBytes) throws NetLabException {
    if (sizeBytes < (16L << 20)) {
      throw new IllegalArgumentException("sizeBytes: at least 16 MiB, got " + sizeBytes);
    }
    requireUsable();
    sweepStale();
    DiskLab lab = new DiskLab(sizeBytes);
    Runtime.getRuntime().addShutdownHook(lab.shutdownHook);
    return lab;
  }

  /** True if this process runs as root with {@code mount} and {@code umount}: what {@link #open} needs. */
  public static boolean available() {
    try {
      requireUsable();
      return true;
    } catch (NetLabException e) {
      return false;
    }
  }

  private static void requireUsable() throws NetLabException {
    var euid = Sys.effectiveUid();
    if (euid.isEmpty() || euid.getAsLong() != 0) {
      throw new NetLabException("disklab: tmpfs disks need root (effective uid is "
          + (euid.isPresent() ? euid.getAsLong() : "unknown") + ")");
    }
    if (Sys.find("mount").isEmpty() || Sys.find("umount").isEmpty()) {
      throw new NetLabException("disklab: the `mount` and `umount` tools are not installed");
    }
  }

  /**
   * Mounts a tmpfs of this lab's size on {@code dir} (created; must be empty so nothing is hidden
   * under the mount). {@code name}: letters, digits, '-' and '_', unique in this lab.
   */
  public synchronized Path mount(String name, Path dir) throws NetLabException {
    if (closed) {
      throw new IllegalStateException("disk lab closed");
    }
    String source = PREFIX + pid + "-" + name;
    if (!SOURCE.matcher(source).matches()) {
      throw new IllegalArgumentException("name must be 1-40 letters, digits, '-' or '_': " + name);
    }
    if (mounts.containsKey(name)) {
      throw new IllegalArgumentException("name: already mounted: " + name);
    }
    try {
      Files.createDirectories(dir);
      try (var entries = Files.list(dir)) {
        if (entries.findAny().isPresent()) {
          throw new IllegalArgumentException("dir: not empty, a mount would hide its files: " + dir);
        }
      }
    } catch (IOException e) {
      throw new NetLabException("disklab: cannot prepare " + dir + ": " + e);
    }
    Cmd.check("mount", "-t", "tmpfs", "-o", "size=" + sizeBytes + ",mode=0755", source, dir.toString());
    mounts.put(name, dir.toAbsolutePath());
    LOG.info("disklab: mounted {} ({} MiB) on {}", source, sizeBytes >> 20, dir);
    return dir;
  }

  /** The mount point of {@code name}. */
  public synchronized Path dir(String name) {
    Path p = mounts.get(name);
    if (p == null) {
      throw new IllegalArgumentException("no disk named " + name);
    }
    return p;
  }

  /**
   * Fills disk {@code name} from outside with a filler file until at most {@code leaveFreeBytes}
   * are left (0: completely full); returns the bytes written. Writes what fits when the node took
   * space meanwhile; a full disk ends the filling, it is not an error.
   */
  public long fill(String name, long leaveFreeBytes) throws IOException {
    Path dir = dir(name);
    Path filler = dir.resolve(FILLER);
    long written = 0;
    ByteBuffer zeros = ByteBuffer.allocateDirect(CHUNK);
    try (FileChannel ch = FileChannel.open(filler, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.APPEND)) {
      while (true) {
        long free = Files.getFileStore(dir).getUsableSpace();
        long want = Math.min(CHUNK, free - leaveFreeBytes);
        if (want <= 0) {
          break;
        }
        zeros.clear().limit((int) want);
        try {
          while (zeros.hasRemaining()) {
            written += ch.write(zeros);
          }
        } catch (IOException full) {
          // ENOSPC: the node took the last bytes first; the disk is as full as it gets.
          break;
        }
      }
      ch.force(false);
    }
    LOG.info("disklab: filled {} with {} MiB; {} KiB left", name, written >> 20,
        Files.getFileStore(dir).getUsableSpace() >> 10);
    return written;
  }

  /** Frees what {@link #fill} took on disk {@code name} (nothing to do when it was never filled). */
  public void free(String name) throws IOException {
    Files.deleteIfExists(dir(name).resolve(FILLER));
    LOG.info("disklab: freed {}", name);
  }

  /** Usable bytes on disk {@code name} now. */
  public long usable(String name) throws IOException {
    return Files.getFileStore(dir(name)).getUsableSpace();
  }

  /** Unmounts every disk of this lab, newest first (lazily when busy: a node may still hold files). */
  @Override
  public synchronized void close() throws NetLabException {
    if (closed) {
      return;
    }
    closed = true;
    NetLabException first = null;
    List<Map.Entry<String, Path>> all = new ArrayList<>(mounts.entrySet());
    for (int i = all.size() - 1; i >= 0; i--) {
      try {
        unmount(all.get(i).getValue());
      } catch (NetLabException e) {
        if (first == null) {
          first = e;
        }
      }
    }
    mounts.clear();
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException shuttingDown) {
      // Running as the hook: nothing to remove.
    }
    if (first != null) {
      throw first;
    }
  }

  private void closeQuietly() {
    try {
      close();
    } catch (NetLabException | RuntimeException e) {
      LOG.warn("disklab: cleanup failed: {}", e.toString());
    }
  }

  private static void unmount(Path dir) throws NetLabException {
    Cmd.Result r = Cmd.run(List.of("umount", dir.toString()));
    if (!r.ok()) {
      // Busy (a process still has a file open there): detach now, the kernel frees it when released.
      Cmd.check("umount", "-l", dir.toString());
    }
    LOG.info("disklab: unmounted {}", dir);
  }

  /** Unmounts tmpfs disks whose owning process is gone; returns how many. */
  public static int sweepStale() throws NetLabException {
    int swept = 0;
    for (Mount m : mounts()) {
      Optional<Long> owner = owner(m.source());
      if (owner.isPresent() && !Sys.alive(owner.get())) {
        LOG.info("disklab: unmounting leftover {} on {} (owner {} is gone)", m.source(), m.point(), owner.get());
        unmount(m.point());
        swept++;
      }
    }
    return swept;
  }

  /** Mounts of this lab's kind on the machine now. */
  static List<Mount> mounts() {
    List<Mount> found = new ArrayList<>();
    try {
      for (String line : Files.readAllLines(MOUNTS)) {
        String[] f = line.split(" ");
        if (f.length >= 3 && f[0].startsWith(PREFIX) && "tmpfs".equals(f[2])) {
          found.add(new Mount(f[0], Path.of(f[1].replace("\\040", " "))));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return found;
  }

  /** The owning PID encoded in a mount source of this lab's kind. */
  static Optional<Long> owner(String source) {
    Matcher m = SOURCE.matcher(source);
    return m.matches() ? Optional.of(Long.parseLong(m.group(1))) : Optional.empty();
  }

  /** A tmpfs mount of this lab's kind: its source name and mount point. */
  record Mount(String source, Path point) {}
}

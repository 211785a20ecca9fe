package io.nrtcluster.stress;

import io.nrtcluster.stress.net.DiskLab;
import io.nrtcluster.stress.net.NetLabException;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The nodes' disks as the fault runner sees them: filled from outside and freed. With plain storage
 * there is nothing to fill (the configuration refuses disk faults before this is reached).
 */
interface Disks extends Closeable {
  /** Fills node {@code id}'s disk until nothing is left; returns the bytes taken. */
  long fill(int id) throws IOException;

  /** Gives back what {@link #fill} took. */
  void free(int id) throws IOException;

  /** Plain storage: the report directory's file system. */
  Disks PLAIN = new Disks() {
    @Override
    public long fill(int id) throws IOException {
      throw new IOException("cannot fill a disk with plain storage: disk faults need --storage tmpfs");
    }

    @Override
    public void free(int id) {}

    @Override
    public void close() {}
  };

  /**
   * A tmpfs of {@code sizeBytes} on each node's index directory ({@code dir/node-<id>/<index>}),
   * mounted before the nodes start. On close the indexes are copied beside the mount point
   * ({@code <index>.final}) for the report, then unmounted.
   */
  static Disks tmpfs(Path dir, String index, int nodes, long sizeBytes) throws NetLabException {
    DiskLab lab = DiskLab.open(sizeBytes);
    try {
      for (int id = 1; id <= nodes; id++) {
        lab.mount("n" + id, dir.resolve("node-" + id).resolve(index));
      }
    } catch (NetLabException | RuntimeException e) {
      try {
        lab.close();
      } catch (NetLabException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    return new Disks() {
      private final Logger log = LoggerFactory.getLogger(Disks.class);

      @Override
      public long fill(int id) throws IOException {
        return lab.fill("n" + id, 0);
      }

      @Override
      public void free(int id) throws IOException {
        lab.free("n" + id);
      }

      @Override
      public void close() throws IOException {
        try {
          for (int id = 1; id <= nodes; id++) {
            Path mounted = lab.dir("n" + id);
            keep(mounted, mounted.resolveSibling(mounted.getFileName() + ".final"));
          }
        } finally {
          lab.close();
        }
      }

      private void keep(Path from, Path to) {
        try (Stream<Path> files = Files.walk(from)) {
          for (Path p : (Iterable<Path>) files::iterator) {
            if (p.getFileName().toString().equals(".chaos-disk-filler")) {
              continue;
            }
            Path target = to.resolve(from.relativize(p).toString());
            if (Files.isDirectory(p)) {
              Files.createDirectories(target);
            } else {
              Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING);
            }
          }
        } catch (IOException | RuntimeException e) {
          log.warn("disklab: could not keep a copy of {}: {}", from, e.toString());
        }
      }
    };
  }
}

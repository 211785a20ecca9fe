package io.nrtcluster.common;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Replaces a small state file atomically: readers see the old contents or the new, never a torn
 * file. Written to a temp file beside it and renamed over it; when durable, the temp file and then
 * the directory (which holds the rename) are fsynced, so a crash after the call keeps the new contents.
 */
@Internal
public final class AtomicFiles {
  private static final boolean WINDOWS = System.getProperty("os.name", "").startsWith("Windows");

  /** Writes the new contents to the stream it is given. */
  @FunctionalInterface
  public interface Content {
    void writeTo(OutputStream out) throws IOException;
  }

  private AtomicFiles() {}

  /** Replaces {@code file} with {@code content} (its parent directory is created if missing). */
  public static void replace(Path file, Content content, boolean durable) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    try (OutputStream out = Files.newOutputStream(tmp)) {
      content.writeTo(out);
    }
    if (durable) {
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        ch.force(true);
      }
    }
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    if (durable) {
      fsyncDirectory(dir);
    }
  }

  /** Makes a rename into {@code dir} durable. */
  private static void fsyncDirectory(Path dir) throws IOException {
    if (WINDOWS) {
      return;
    }
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      try {
        ch.force(true);
      } catch (IOException e) {
        // Lucene does the same: Linux and macOS sync directories; a file system that cannot is not
        // made unusable for it.
      }
    }
  }
}

package io.nrtcluster.node;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A size-limited tmpfs the test mounts at a directory of its own (a real "No space left on
 * device"), unmounted by that mount point on {@link #close()}. Skips the test (JUnit assumption)
 * when not root or when mounting is not allowed here.
 */
final class TmpfsMount implements AutoCloseable {
  private final Path mountPoint;

  private TmpfsMount(Path mountPoint) {
    this.mountPoint = mountPoint;
  }

  static TmpfsMount mount(Path mountPoint, int mib) throws IOException, InterruptedException {
    assumeTrue("root".equals(System.getProperty("user.name")), "mounting a tmpfs needs root; running as "
        + System.getProperty("user.name") + " (the simulated-fault tests still run)");
    Files.createDirectories(mountPoint);
    String device = "nrtc-tragic-" + ProcessHandle.current().pid();
    int rc = run(List.of("mount", "-t", "tmpfs", "-o", "size=" + mib + "m", device, mountPoint.toString()));
    assumeTrue(rc == 0, "mount -t tmpfs failed with " + rc + " (no CAP_SYS_ADMIN in this container?)");
    return new TmpfsMount(mountPoint);
  }

  private static int run(List<String> cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      return -1;
    }
    return p.exitValue();
  }

  Path path() {
    return mountPoint;
  }

  long usable() throws IOException {
    return Files.getFileStore(mountPoint).getUsableSpace();
  }

  /** Writes a file of zeros (tmpfs has no holes to cheat with) until only {@code leaveBytes} or less are usable. */
  Path fill(String name, long leaveBytes) throws IOException {
    Path f = mountPoint.resolve(name);
    ByteBuffer chunk = ByteBuffer.allocate(64 * 1024);
    try (FileChannel ch = FileChannel.open(f, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
      while (usable() > leaveBytes) {
        chunk.clear();
        chunk.limit((int) Math.min(chunk.capacity(), Math.max(4096, usable() - leaveBytes)));
        try {
          ch.write(chunk);
        } catch (IOException full) {
          break;
        }
      }
    }
    return f;
  }

  @Override
  public void close() throws IOException, InterruptedException {
    int rc = run(List.of("umount", mountPoint.toString()));
    if (rc != 0) {
      // Files still open (a node that failed to close): detach it so nothing is left mounted.
      run(List.of("umount", "-l", mountPoint.toString()));
    }
  }
}

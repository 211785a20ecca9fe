package io.nrtcluster.stress.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real tmpfs mounts (root only): filling one from outside gives a writer in it a real
 * {@code No space left on device}, freeing it gives the space back, and nothing outlives the lab.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DiskLabTest {
  @TempDir Path dir;
  private final List<DiskLab> labs = new ArrayList<>();

  @BeforeEach
  void needsRoot() {
    Assumptions.assumeTrue(DiskLab.available(), "tmpfs disks need root and mount/umount; skipped");
  }

  @AfterEach
  void cleanUp() throws Exception {
    for (DiskLab lab : labs) {
      lab.close();
    }
  }

  @Test
  void aFilledDiskRefusesWritesUntilFreedAndNothingOutlivesTheLab() throws Exception {
    DiskLab lab = DiskLab.open(32L << 20);
    labs.add(lab);
    Path disk = lab.mount("n1", dir.resolve("n1"));
    assertThat(mountPoints()).contains(disk.toAbsolutePath());
    assertThat(lab.usable("n1")).isBetween(30L << 20, 32L << 20);

    long filled = lab.fill("n1", 0);
    assertThat(filled).isGreaterThan(30L << 20);
    assertThatThrownBy(() -> write(disk.resolve("segment"), 4 << 20))
        .isInstanceOf(IOException.class).hasMessageContaining("No space left on device");

    lab.free("n1");
    write(disk.resolve("segment"), 4 << 20);
    assertThat(Files.size(disk.resolve("segment"))).isEqualTo(4 << 20);

    lab.fill("n1", 1L << 20);
    assertThat(lab.usable("n1")).as("leaves what was asked").isBetween(0L, 1L << 20);

    lab.close();
    assertThat(mountPoints()).doesNotContain(disk.toAbsolutePath());
  }

  @Test
  void aDiskThatWouldHideFilesIsRefused() throws Exception {
    DiskLab lab = DiskLab.open(16L << 20);
    labs.add(lab);
    Files.createDirectories(dir.resolve("busy"));
    Files.writeString(dir.resolve("busy").resolve("keep"), "x");
    assertThatThrownBy(() -> lab.mount("busy", dir.resolve("busy")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("dir: not empty");
    assertThatThrownBy(() -> lab.mount("bad/name", dir.resolve("other")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("name");
  }

  @Test
  void openUnmountsTheLeftoversOfAHarnessThatDied() throws Exception {
    Process gone = new ProcessBuilder("true").start();
    gone.waitFor(10, TimeUnit.SECONDS);
    Path stale = dir.resolve("stale");
    Files.createDirectories(stale);
    Cmd.check("mount", "-t", "tmpfs", "-o", "size=1m", DiskLab.PREFIX + gone.pid() + "-n9", stale.toString());
    try {
      assertThat(mountPoints()).contains(stale.toAbsolutePath());
      labs.add(DiskLab.open(16L << 20));
      assertThat(mountPoints()).doesNotContain(stale.toAbsolutePath());
      assertThat(DiskLab.sweepStale()).isZero();
    } finally {
      if (mountPoints().contains(stale.toAbsolutePath())) {
        Cmd.run(List.of("umount", "-l", stale.toString()));
      }
    }
  }

  private static List<Path> mountPoints() {
    return DiskLab.mounts().stream().map(DiskLab.Mount::point).toList();
  }

  private static void write(Path file, int bytes) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(bytes);
      while (b.hasRemaining()) {
        ch.write(b);
      }
      ch.force(true);
    }
  }
}

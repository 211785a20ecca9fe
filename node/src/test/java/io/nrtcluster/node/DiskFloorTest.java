package io.nrtcluster.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.InsufficientStorageException;
import io.nrtcluster.common.NodeLog;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

@Timeout(30)
class DiskFloorTest {
  private static final long MIB = 1 << 20;
  private static final long INTERVAL = 500_000_000L;
  private final NodeLog log = new NodeLog(LoggerFactory.getLogger(DiskFloorTest.class), "test", () -> -1L);
  private final AtomicLong usable = new AtomicLong(1000 * MIB);
  private final AtomicLong clock = new AtomicLong(1_000_000_000L);
  private final AtomicInteger probes = new AtomicInteger();

  private DiskFloor floor(long floorBytes) {
    return new DiskFloor(Path.of("/data/n1/docs"), floorBytes, INTERVAL, () -> {
      probes.incrementAndGet();
      return usable.get();
    }, clock::get, log);
  }

  @Test
  void belowTheFloorAWriteIsRefusedNamingTheDirectoryAndItsFreeSpace() throws IOException {
    DiskFloor f = floor(100 * MIB);
    f.checkWrite("add a document", 1, "docs");
    usable.set(40 * MIB);
    clock.addAndGet(INTERVAL + 1);
    assertThatThrownBy(() -> f.checkWrite("add a document", 1, "docs"))
        .isInstanceOfSatisfying(InsufficientStorageException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.INSUFFICIENT_STORAGE);
          assertThat(e.dataDir()).isEqualTo("/data/n1/docs");
          assertThat(e.usableBytes()).isEqualTo(40 * MIB);
          assertThat(e.floorBytes()).isEqualTo(100 * MIB);
          assertThat(e.getMessage()).contains("/data/n1/docs", "40.0 MiB", "100.0 MiB");
        });
    assertThat(f.isBelow()).isTrue();
  }

  @Test
  void theFreeSpaceIsMeasuredAtMostOncePerIntervalAndWritesResumeWhenItReturns() throws IOException {
    DiskFloor f = floor(100 * MIB);
    usable.set(10 * MIB);
    for (int i = 0; i < 1000; i++) {
      assertThatThrownBy(() -> f.checkWrite("add a document", 1, "docs")).isInstanceOf(InsufficientStorageException.class);
    }
    assertThat(probes.get()).as("one statfs for 1000 writes within the interval").isEqualTo(1);
    usable.set(500 * MIB);
    // Still the cached measurement until the interval passed.
    assertThatThrownBy(() -> f.checkWrite("add a document", 1, "docs")).isInstanceOf(InsufficientStorageException.class);
    clock.addAndGet(INTERVAL + 1);
    f.checkWrite("add a document", 1, "docs");
    assertThat(probes.get()).isEqualTo(2);
    assertThat(f.isBelow()).isFalse();
  }

  @Test
  void aFloorOfZeroNeverMeasures() throws IOException {
    DiskFloor f = floor(0);
    usable.set(0);
    f.checkWrite("add a document", 1, "docs");
    assertThat(f.isBelow()).isFalse();
    assertThat(probes.get()).isZero();
  }

  @Test
  void aFailedMeasurementAdmitsWrites() throws IOException {
    DiskFloor f = new DiskFloor(Path.of("/gone"), 100 * MIB, INTERVAL, () -> {
      throw new IOException("no such file store");
    }, clock::get, log);
    f.checkWrite("add a document", 1, "docs");
    assertThat(f.usableBytes()).isEqualTo(-1);
  }

  @Test
  void theFloorSettingsAreValidatedNamingTheBadField() {
    HostConfig.Builder b = HostConfig.builder().nodeId(1).cluster("c").dataDir(Path.of("/tmp/x"));
    assertThat(b.build().minFreeDiskBytes()).isEqualTo(HostConfig.DEFAULT_MIN_FREE_DISK_BYTES);
    assertThatThrownBy(() -> b.minFreeDiskBytes(-1).build()).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("minFreeDiskBytes");
    b.minFreeDiskBytes(0);
    assertThatThrownBy(() -> b.freeSpaceCheckInterval(Duration.ZERO).build()).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("freeSpaceCheckInterval");
    assertThatThrownBy(() -> b.freeSpaceCheckInterval(Duration.ofSeconds(11)).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("freeSpaceCheckInterval");
  }
}

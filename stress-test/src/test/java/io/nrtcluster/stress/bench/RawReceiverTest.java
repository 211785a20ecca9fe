package io.nrtcluster.stress.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Figure 3's raw receiver as a real process on a real loopback socket: it writes exactly the bytes
 * sent, reports the CPU it spent, and leaves nothing behind; the baselines run one and two at once.
 */
@Timeout(120)
class RawReceiverTest {
  /** Enough bytes for the receiver's process CPU, counted in ticks of 10 ms, to show. */
  private static final long BIG = 64L << 20;

  @TempDir Path dir;

  @Test
  void writesExactlyTheFilesSentAndReportsItsCpu() throws Exception {
    // Large enough to take more than one tick of process CPU (10 ms), exactly one read, not a whole
    // number of reads, and empty.
    List<Path> files = files(dir.resolve("src"), BIG, RawReceiverMain.READ_BYTES, 3 * RawReceiverMain.READ_BYTES + 17, 0);
    long total = 0;
    for (Path f : files) {
      total += Files.size(f);
    }
    Path receiverDir = dir.resolve("receiver");
    try (RawReceiver receiver = RawReceiver.start(receiverDir, 256)) {
      RawReceiver.Received r = receiver.receive(files);

      assertThat(r.bytes()).isEqualTo(total);
      assertThat(r.cpuNanos()).isPositive();
      // User mode is a part of the whole, read in ticks of 10 ms: one tick's slack at each end.
      assertThat(r.userNanos()).as("user-mode CPU").isBetween(0L, r.cpuNanos() + 20_000_000L);
      assertThat(r.windowNanos()).isPositive();
      assertThat(r.wallNanos()).isGreaterThanOrEqualTo(r.windowNanos());
      for (Path f : files) {
        assertThat(Files.mismatch(f, receiver.copyOf(f))).as(f.getFileName().toString()).isEqualTo(-1);
      }
      // A second transfer over the same files replaces them.
      assertThat(receiver.receive(files).bytes()).isEqualTo(total);

      receiver.deleteCopies();
      assertThat(list(receiverDir.resolve(RawReceiverMain.FILES))).isEmpty();
    }
  }

  @Test
  void closingEndsTheProcessAndDeletesWhatItReceived() throws Exception {
    List<Path> files = files(dir.resolve("src"), 100_000);
    Path receiverDir = dir.resolve("receiver");
    RawReceiver receiver = RawReceiver.start(receiverDir, 256);
    receiver.receive(files);
    assertThat(list(receiverDir.resolve(RawReceiverMain.FILES))).hasSize(1);

    receiver.close();

    assertThat(receiver.alive()).isFalse();
    assertThat(list(receiverDir.resolve(RawReceiverMain.FILES))).isEmpty();
  }

  @Test
  void baselinesRunOneAndTwoReceiversAtOnceAndCleanUp() throws Exception {
    List<Path> files = files(dir.resolve("src"), BIG, 300_000);
    Path raw = dir.resolve("raw");
    try (RawReceiver first = RawReceiver.start(raw.resolve("receiver-0"), 256);
        RawReceiver second = RawReceiver.start(raw.resolve("receiver-1"), 256)) {
      for (List<RawReceiver> receivers : List.of(List.of(first), List.of(first, second))) {
        BenchReport.RawSpeeds s = CopyBaseline.measure(files, receivers, raw);

        assertThat(s.bytes()).isEqualTo(BIG + 300_000);
        assertThat(s.loopbackMiBPerSec()).isPositive();
        assertThat(s.diskWriteMiBPerSec()).isPositive();
        assertThat(s.rawReceiverMiBPerSec()).isPositive();
        assertThat(s.rawReceiverCpuSecPerGiB()).isPositive();
        for (RawReceiver r : receivers) {
          assertThat(list(r.copyOf(files.get(0)).getParent())).isEmpty();
        }
        try (Stream<Path> left = Files.walk(raw)) {
          assertThat(left.filter(Files::isRegularFile).map(p -> p.getFileName().toString()))
              .as("only the receivers' logs and ports are left")
              .allMatch(n -> n.equals("receiver.log") || n.equals(RawReceiverMain.PORT_FILE));
        }
      }
    }
  }

  /** Files of random bytes of the given sizes in {@code dir}. */
  private static List<Path> files(Path dir, long... sizes) throws IOException {
    Files.createDirectories(dir);
    Random random = new Random(42);
    byte[] chunk = new byte[1 << 20];
    List<Path> files = new ArrayList<>();
    for (int i = 0; i < sizes.length; i++) {
      Path f = dir.resolve("_" + i + ".bin");
      try (OutputStream out = Files.newOutputStream(f)) {
        for (long left = sizes[i]; left > 0; left -= chunk.length) {
          random.nextBytes(chunk);
          out.write(chunk, 0, (int) Math.min(chunk.length, left));
        }
      }
      files.add(f);
    }
    return files;
  }

  private static List<Path> list(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.toList();
    }
  }
}

package io.nrtcluster.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The replica's temp-file output: every way of writing gives the same file and checksum. */
@Timeout(30)
class ChannelFileOutputTest {
  @TempDir Path dir;

  @Test
  void mixedWritesOfHeapArraysAndHeapAndDirectBuffersGiveTheSameBytes() throws IOException {
    long seed = TestSeeds.seed();
    Random random = new Random(seed);
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    ChannelFileOutput out = ChannelFileOutput.createTemp(dir, "_3.cfs", "copy", new AtomicLong(), StorageFaults.NONE);
    for (int i = 0; i < 200; i++) {
      byte[] bytes = new byte[random.nextInt(3) == 0 ? random.nextInt(5) : random.nextInt(40_000)];
      random.nextBytes(bytes);
      expected.write(bytes, 0, bytes.length);
      switch (random.nextInt(4)) {
        case 0 -> out.writeBytes(bytes, 0, bytes.length);
        case 1 -> {
          for (byte b : bytes) {
            out.writeByte(b);
          }
        }
        case 2 -> out.writeChecksummed(ByteBuffer.wrap(bytes));
        default -> {
          ByteBuffer direct = ByteBuffer.allocateDirect(bytes.length + 7);
          direct.position(3);
          direct.put(bytes).flip().position(3);
          out.writeChecksummed(direct);
          assertThat(direct.hasRemaining()).isFalse();
        }
      }
      assertThat(out.getFilePointer()).as("seed=%d", seed).isEqualTo(expected.size());
    }
    out.close();
    out.close();
    assertThat(Files.readAllBytes(dir.resolve(out.getName()))).as("seed=%d", seed).isEqualTo(expected.toByteArray());
  }

  @Test
  void theChecksumCoversWhatItChecksummedAndRefusesToAnswerOnceBytesBypassedIt() throws IOException {
    long seed = TestSeeds.seed();
    Random random = new Random(seed);
    byte[] bytes = new byte[50_000];
    random.nextBytes(bytes);
    CRC32 crc = new CRC32();
    crc.update(bytes);
    try (ChannelFileOutput out = ChannelFileOutput.createTemp(dir, "_4", "copy", new AtomicLong(), StorageFaults.NONE)) {
      out.writeBytes(bytes, 0, 30_000);
      for (int i = 30_000; i < bytes.length; i++) {
        out.writeByte(bytes[i]);
      }
      assertThat(out.getChecksum()).as("seed=%d", seed).isEqualTo(crc.getValue());
      // The caller checksummed these itself: the output does not read them a second time.
      out.writeChecksummed(ByteBuffer.allocateDirect(16));
      assertThatThrownBy(out::getChecksum).isInstanceOf(IllegalStateException.class);
    }
  }

  @Test
  void tempNamesAreLuceneStyleAndNeverReuseAFileLeftBehind() throws IOException {
    AtomicLong counter = new AtomicLong();
    Files.write(dir.resolve("_0_copy_0.tmp"), new byte[] {42});
    Files.write(dir.resolve("_0_copy_1.tmp"), new byte[] {43});
    try (ChannelFileOutput out = ChannelFileOutput.createTemp(dir, "_0", "copy", counter, StorageFaults.NONE)) {
      assertThat(out.getName()).isEqualTo("_0_copy_2.tmp");
    }
    assertThat(Files.readAllBytes(dir.resolve("_0_copy_0.tmp"))).containsExactly(42);
    assertThat(Files.readAllBytes(dir.resolve("_0_copy_1.tmp"))).containsExactly(43);
  }

  @Test
  void aFullDiskWritesWhatFitsThenFailsAndAnIoErrorFailsTheWrite() throws IOException {
    StorageFaults faults = StorageFaults.switchable();
    faults.fillDisk(100);
    ChannelFileOutput out = ChannelFileOutput.createTemp(dir, "_1", "copy", new AtomicLong(), faults);
    out.writeChecksummed(ByteBuffer.allocateDirect(60));
    assertThatThrownBy(() -> out.writeChecksummed(ByteBuffer.allocateDirect(60))).isInstanceOf(FileSystemException.class);
    out.close();
    assertThat(Files.size(dir.resolve(out.getName()))).as("the part that fitted was written").isEqualTo(100);
    assertThat(faults.diskFullFaults()).isEqualTo(1);

    faults.clear();
    faults.ioErrorAfter(10);
    ChannelFileOutput second = ChannelFileOutput.createTemp(dir, "_1", "copy", new AtomicLong(), faults);
    second.writeBytes(new byte[30], 0, 30);
    // Small writes are gathered: the fault hits when they reach the file, at the latest on close.
    assertThatThrownBy(second::close).isInstanceOf(FileSystemException.class);
    assertThat(faults.ioErrors()).isEqualTo(1);
  }
}

package io.nrtcluster.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Path;
import java.util.List;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexOutput;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The storage fault point on a real directory: each fault behaves like the real one. */
@Timeout(30)
class StorageFaultsTest {
  @TempDir Path dir;

  @Test
  void withoutSwitchableFaultsThereIsNoFaultPointAndNothingToSwitch() throws IOException {
    try (Directory fs = FSDirectory.open(dir)) {
      assertThat(FaultInjectingDirectory.wrap(fs, StorageFaults.NONE)).isSameAs(fs);
    }
    assertThatThrownBy(() -> StorageFaults.NONE.fillDisk(0)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> StorageFaults.switchable().fillDisk(-1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("storageFaults.bytesLeft");
    assertThatThrownBy(() -> ReplicaConfig.builder().cluster("c").index("i").dataDir(dir).storageFaults(null).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("storageFaults");
  }

  @Test
  void aFullDiskWritesWhatFitsThenFailsAndDeletingGivesTheSpaceBack() throws IOException {
    StorageFaults faults = StorageFaults.switchable();
    try (Directory d = FaultInjectingDirectory.wrap(FSDirectory.open(dir), faults)) {
      faults.fillDisk(100);
      write(d, "a", 60);
      IndexOutput b = d.createOutput("b", IOContext.DEFAULT);
      assertThatThrownBy(() -> b.writeBytes(new byte[60], 0, 60)).isInstanceOf(FileSystemException.class);
      // As with a real buffered file, closing cannot flush the failed bytes while the disk is full.
      assertThatThrownBy(b::close).isInstanceOf(FileSystemException.class);
      b.close();
      assertThat(d.fileLength("b")).as("the part that fitted was written").isEqualTo(40);
      assertThatThrownBy(() -> write(d, "c", 1)).isInstanceOf(FileSystemException.class);

      d.deleteFile("a");
      write(d, "d", 60);
      assertThatThrownBy(() -> write(d, "e", 1)).isInstanceOf(FileSystemException.class);
      // b's write and close, then c's and e's (each also failing to close).
      assertThat(faults.diskFullFaults()).isEqualTo(6);

      faults.clear();
      write(d, "f", 10_000);
      assertThat(d.listAll()).containsExactlyInAnyOrder("b", "c", "d", "e", "f");
    }
  }

  @Test
  void anIoErrorFailsOneWriteOnly() throws IOException {
    StorageFaults faults = StorageFaults.switchable();
    try (Directory d = FaultInjectingDirectory.wrap(FSDirectory.open(dir), faults)) {
      faults.ioErrorAfter(100);
      try (IndexOutput out = d.createTempOutput("seg", "copy", IOContext.DEFAULT)) {
        out.writeBytes(new byte[64], 0, 64);
        assertThatThrownBy(() -> out.writeBytes(new byte[64], 0, 64)).isInstanceOf(FileSystemException.class);
        out.writeBytes(new byte[64], 0, 64);
      }
      assertThat(faults.ioErrors()).isEqualTo(1);
    }
  }

  @Test
  void fsyncsAndRenamesFailWhileSwitchedOn() throws IOException {
    StorageFaults faults = StorageFaults.switchable();
    try (Directory d = FaultInjectingDirectory.wrap(FSDirectory.open(dir), faults)) {
      write(d, "a", 10);
      faults.failSyncs(true);
      faults.failRenames(true);
      assertThatThrownBy(() -> d.sync(List.of("a"))).isInstanceOf(FileSystemException.class);
      assertThatThrownBy(d::syncMetaData).isInstanceOf(FileSystemException.class);
      assertThatThrownBy(() -> d.rename("a", "b")).isInstanceOf(FileSystemException.class);
      assertThat(d.listAll()).containsExactly("a");
      assertThat(faults.syncFaults()).isEqualTo(2);
      assertThat(faults.renameFaults()).isEqualTo(1);

      faults.clear();
      d.sync(List.of("a"));
      d.rename("a", "b");
      assertThat(d.listAll()).containsExactly("b");
    }
  }

  private static void write(Directory d, String name, int bytes) throws IOException {
    try (IndexOutput out = d.createOutput(name, IOContext.DEFAULT)) {
      out.writeBytes(new byte[bytes], 0, bytes);
    }
  }
}

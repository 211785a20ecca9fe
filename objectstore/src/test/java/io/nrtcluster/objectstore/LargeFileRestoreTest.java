package io.nrtcluster.objectstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file above the multipart threshold (5 MiB here) is restored as parallel ranged GETs written in
 * place, byte for byte, and a damaged range, a truncated or a missing object is still refused.
 */
class LargeFileRestoreTest {
  @RegisterExtension final StoreFixture store = StoreFixture.of(LargeFileRestoreTest.class, "R2", "");
  @TempDir Path tmp;
  private ManifestStore manifests;
  private TestIndex.Commit commit;
  private FileEntry big;
  private String bigKey;

  @BeforeEach
  void backUp() throws Exception {
    manifests = store.manifests();
    TestIndex index = store.closeAfter(new TestIndex(tmp.resolve("primary"), false));
    index.add(300, store.random());
    index.addLarge(1_200, 10 << 10, store.random()); // ~12 MiB: three parts of 5 MiB
    commit = index.commit(1);
    store.backupService(manifests).submit(commit.source()).get(60, TimeUnit.SECONDS);
    big = commit.point().files().values().stream().max(Comparator.comparingLong(FileEntry::length)).orElseThrow();
    bigKey = manifests.layout().fileKey(big);
    assertThat(big.length()).isGreaterThan(2 * ObjectStoreConfig.MIN_PART_SIZE);
  }

  @Test
  void aLargeFileIsRestoredInRangedPartsByteForByteWhateverTheBoundOnParallelTransfers() throws Exception {
    long parts = (big.length() + ObjectStoreConfig.MIN_PART_SIZE - 1) / ObjectStoreConfig.MIN_PART_SIZE;
    for (int parallel : new int[] {4, 1}) {
      ManifestStore m = store.manifests(c -> c.maxParallelTransfers(parallel));
      long before = store.server().rangedGets(bigKey);
      Path target = tmp.resolve("restored-" + parallel);
      try (Directory restored = FSDirectory.open(target)) {
        store.restorer(m).restoreLatest(restored);
        assertThat(TestIndex.search(restored)).containsExactly(commit.docs(), commit.alphaHits());
      }
      assertThat(store.server().rangedGets(bigKey) - before).as("parallel %d", parallel).isEqualTo(parts);
      for (FileEntry f : commit.point().files().values()) {
        assertThat(target.resolve(f.name())).as("%s, parallel %d", f.name(), parallel)
            .hasSameBinaryContentAs(tmp.resolve("primary").resolve(f.name()));
      }
      assertThat(m.blobStore().metrics().snapshot().filesDownloaded()).isEqualTo(commit.point().files().size());
    }
    // A directory that is not on the file system gets the file in one piece.
    long before = store.server().rangedGets(bigKey);
    try (Directory restored = new ByteBuffersDirectory()) {
      store.restorer(manifests).restoreLatest(restored);
      try (IndexInput in = restored.openInput(big.name(), IOContext.READONCE)) {
        byte[] bytes = new byte[(int) in.length()];
        in.readBytes(bytes, 0, bytes.length);
        assertThat(bytes).isEqualTo(Files.readAllBytes(tmp.resolve("primary").resolve(big.name())));
      }
    }
    assertThat(store.server().rangedGets(bigKey)).isEqualTo(before);
  }

  @Test
  void aDamagedRangeATruncatedOrAMissingLargeObjectIsRefusedNamingItAndLeavesTheTargetEmpty() throws Exception {
    byte[] good = store.server().read(bigKey);
    // A bit in the middle part: that range arrives whole and in order, only the file's checksum can tell.
    long middle = ObjectStoreConfig.MIN_PART_SIZE + store.random().nextLong(ObjectStoreConfig.MIN_PART_SIZE);
    byte[] flipped = good.clone();
    flipped[(int) middle] ^= (byte) (1 << store.random().nextInt(8));
    store.server().write(bigKey, flipped);
    assertRefused("flipped bit at " + middle);

    int cut = (int) ObjectStoreConfig.MIN_PART_SIZE + store.random().nextInt((int) ObjectStoreConfig.MIN_PART_SIZE);
    store.server().write(bigKey, Arrays.copyOf(good, cut));
    assertRefused("cut to " + cut + " bytes");

    store.server().write(bigKey, Arrays.copyOf(good, good.length + 1));
    assertRefused("one byte too many");

    store.server().remove(bigKey);
    assertRefused("missing");
  }

  private void assertRefused(String what) throws Exception {
    Path target = tmp.resolve("restored-" + Math.abs(what.hashCode()));
    try (Directory restored = FSDirectory.open(target)) {
      assertThatThrownBy(() -> store.restorer(manifests).restoreLatest(restored))
          .as("%s (seed %d)", what, store.seed())
          .isInstanceOfSatisfying(CorruptBackupException.class, e -> assertThat(e.objectKey()).isEqualTo(bigKey));
      assertThat(restored.listAll()).as("left in the target after %s (seed %d)", what, store.seed()).isEmpty();
    }
  }
}

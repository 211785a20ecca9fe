package io.nrtcluster.objectstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nrtcluster.common.CorruptLocalFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A backup stores only bytes that match their Lucene checksums: a file damaged on the primary's disk
 * fails the backup, naming it, and a damaged object already in the store is not reused once known
 * (a truncated one by its length, any other once a verification found it).
 */
class BackupIntegrityTest {
  @RegisterExtension final StoreFixture store = StoreFixture.of(BackupIntegrityTest.class, "P1", "");
  @TempDir Path tmp;
  private ManifestStore manifests;
  private BackupService backups;
  private TestIndex index;

  @BeforeEach
  void start() throws Exception {
    manifests = store.manifests();
    backups = store.backupService(manifests);
    index = store.closeAfter(new TestIndex(tmp.resolve("primary"), false)); // no merges: files stay
  }

  @Test
  void aBitFlippedInALocalFileFailsTheBackupNamingItAndWritesNoManifest() throws Exception {
    index.add(400, store.random());
    index.addLarge(1_200, 10 << 10, store.random()); // one file of ~12 MiB: a multipart upload of 3 parts
    TestIndex.Commit c = index.commit(1);
    List<FileEntry> files = List.copyOf(c.point().files().values());
    FileEntry big = files.stream().max(Comparator.comparingLong(FileEntry::length)).orElseThrow();
    assertThat(big.length()).isGreaterThan(2 * ObjectStoreConfig.MIN_PART_SIZE);
    List<FileEntry> small = files.stream().filter(f -> f.length() < ObjectStoreConfig.MIN_PART_SIZE).toList();
    FileEntry one = small.get(store.random().nextInt(small.size()));
    // A bit before the footer's checksum (the CRC no longer matches), and one in it (the footer no longer matches).
    long body = store.random().nextLong(one.length() - UploadCheck.CHECKSUM_BYTES);
    long footer = one.length() - 1 - store.random().nextInt(UploadCheck.CHECKSUM_BYTES);
    long inBig = store.random().nextLong(big.length() - UploadCheck.CHECKSUM_BYTES);
    for (Object[] damage : List.of(new Object[] {one, body}, new Object[] {one, footer}, new Object[] {big, inBig})) {
      FileEntry victim = (FileEntry) damage[0];
      long pos = (Long) damage[1];
      int bit = store.random().nextInt(8);
      String key = manifests.layout().fileKey(victim);
      Path file = tmp.resolve("primary").resolve(victim.name());
      // Files of a failed backup that went up stay for the next one; the damaged one must not be there yet.
      store.server().remove(key);
      TestIndex.flip(file, pos, bit);
      String what = String.format("seed %d: bit %d of byte %d of %s (%d bytes)", store.seed(), bit, pos, victim.name(),
          victim.length());

      assertThatThrownBy(() -> backups.submit(BackupSource.of(index.dir, c.point(), null)).get(60, TimeUnit.SECONDS))
          .as(what)
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOfSatisfying(CorruptLocalFileException.class, e -> {
            assertThat(e.files()).containsExactly(victim.name());
            assertThat(e.getMessage()).contains(victim.name());
          });
      assertThat(manifests.list()).as(what).isEmpty();
      assertThat(store.server().keys(manifests.layout().filesPrefix())).as(what).doesNotContain(key);
      TestIndex.flip(file, pos, bit); // repaired
    }
    // Repaired, the same point backs up and restores.
    backups.submit(c.source()).get(60, TimeUnit.SECONDS);
    try (Directory restored = FSDirectory.open(tmp.resolve("restored"))) {
      store.restorer(manifests).restoreLatest(restored);
      assertThat(TestIndex.search(restored)).containsExactly(c.docs(), c.alphaHits());
    }
  }

  @Test
  void aTruncatedStoredFileIsUploadedAgainByTheNextBackupAndTheRestoreAfterwardsSucceeds() throws Exception {
    index.add(500, store.random());
    TestIndex.Commit c1 = index.commit(1);
    backups.submit(c1.source()).get(60, TimeUnit.SECONDS);
    List<FileEntry> files = List.copyOf(c1.point().files().values());
    FileEntry victim = files.get(store.random().nextInt(files.size()));
    String key = manifests.layout().fileKey(victim);
    byte[] good = store.server().read(key);
    int cut = 1 + store.random().nextInt(Math.min(good.length - 1, 64));
    store.server().write(key, Arrays.copyOf(good, good.length - cut));

    index.add(300, store.random());
    TestIndex.Commit c2 = index.commit(1);
    assertThat(c2.point().files()).containsValue(victim);
    Set<String> fresh = new HashSet<>(c2.point().files().keySet());
    fresh.removeAll(c1.point().files().keySet());
    BackupResult r2 = backups.submit(c2.source()).get(60, TimeUnit.SECONDS);

    String what = String.format("seed %d: %s cut by %d bytes", store.seed(), key, cut);
    assertThat(r2.filesUploaded()).as(what).isEqualTo(fresh.size() + 1);
    assertThat(store.server().read(key)).as(what).isEqualTo(good);
    try (Directory restored = FSDirectory.open(tmp.resolve("restored"))) {
      store.restorer(manifests).restoreLatest(restored);
      assertThat(TestIndex.search(restored)).as(what).containsExactly(c2.docs(), c2.alphaHits());
    }
  }

  @Test
  @Timeout(120)
  void aStoredObjectAVerificationFoundDamagedIsUploadedAgainByTheNextBackup() throws Exception {
    DamagedObjects damaged = new DamagedObjects();
    BackupService service = store.closeAfter(new BackupService(manifests, store.log(), damaged));
    index.add(500, store.random());
    TestIndex.Commit c1 = index.commit(1);
    service.submit(c1.source()).get(60, TimeUnit.SECONDS);
    List<FileEntry> files = List.copyOf(c1.point().files().values());
    FileEntry victim = files.get(store.random().nextInt(files.size()));
    String key = manifests.layout().fileKey(victim);
    byte[] good = store.server().read(key);
    byte[] flipped = good.clone();
    int pos = store.random().nextInt(good.length - 16); // before the footer: the length and the footer still hold
    flipped[pos] ^= (byte) (1 << store.random().nextInt(8));
    store.server().write(key, flipped);
    String what = String.format("seed %d: byte %d of %s flipped", store.seed(), pos, key);

    // A plain backup cannot tell: it checks a stored object by its length.
    index.add(300, store.random());
    TestIndex.Commit c2 = index.commit(1);
    assertThat(c2.point().files()).containsValue(victim);
    BackupResult r2 = service.submit(c2.source()).get(60, TimeUnit.SECONDS);
    assertThat(r2.filesUploaded()).as(what).isEqualTo(newFiles(c1, c2));
    assertThat(store.server().read(key)).as(what).isEqualTo(flipped);

    VerifyReport found = new BackupVerifier(manifests, BackupVerifier.UNLIMITED).verifyLatest();
    assertThat(found.damage()).as(what).singleElement().satisfies(d -> {
      assertThat(d.key()).isEqualTo(key);
      assertThat(d.problem()).isEqualTo(VerifyReport.Problem.WRONG_CHECKSUM);
    });
    damaged.addAll(found.damagedKeys());

    // Known damaged now: the next backup naming it stores a fresh copy, then forgets the mark.
    index.add(100, store.random());
    TestIndex.Commit c3 = index.commit(1);
    assertThat(c3.point().files()).containsValue(victim);
    BackupResult r3 = service.submit(c3.source()).get(60, TimeUnit.SECONDS);
    assertThat(r3.filesUploaded()).as(what).isEqualTo(newFiles(c2, c3) + 1);
    assertThat(store.server().read(key)).as(what).isEqualTo(good);
    assertThat(damaged.keys()).as(what).isEmpty();
    assertThat(new BackupVerifier(manifests, BackupVerifier.UNLIMITED).verifyLatest().intact()).as(what).isTrue();
    try (Directory restored = FSDirectory.open(tmp.resolve("restored"))) {
      store.restorer(manifests).restoreLatest(restored);
      assertThat(TestIndex.search(restored)).as(what).containsExactly(c3.docs(), c3.alphaHits());
    }
  }

  /** Files of {@code next} that {@code previous} did not have. */
  private static int newFiles(TestIndex.Commit previous, TestIndex.Commit next) {
    Set<String> fresh = new HashSet<>(next.point().files().keySet());
    fresh.removeAll(previous.point().files().keySet());
    return fresh.size();
  }
}

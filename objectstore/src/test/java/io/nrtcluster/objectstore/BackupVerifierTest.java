package io.nrtcluster.objectstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** A backup reread from a real S3-compatible server: every way an object can be damaged is named, none is missed. */
@Timeout(120)
class BackupVerifierTest {
  @RegisterExtension final StoreFixture fixture = StoreFixture.of(BackupVerifierTest.class, "P1", "backups");
  @TempDir Path tmp;
  private ManifestStore manifests;
  private TestIndex.Commit commit;
  private ManifestId backedUp;

  @BeforeEach
  void backUp() throws Exception {
    manifests = fixture.manifests();
    try (TestIndex index = new TestIndex(tmp.resolve("primary"), false)) {
      for (int segment = 0; segment < 3; segment++) { // three segments: enough files to damage five differently
        index.add(150 + fixture.random().nextInt(100), fixture.random());
        index.addLarge(40, 1024, fixture.random()); // incompressible: enough bytes to measure a pace by
        index.writer.flush();
      }
      commit = index.commit(1);
      backedUp = fixture.backupService(manifests).submit(commit.source()).get(60, TimeUnit.SECONDS).manifest();
    }
  }

  @Test
  void anIntactBackupReadsEveryObjectOnce() throws Exception {
    long before = manifests.blobStore().metrics().snapshot().bytesDownloaded();
    VerifyReport r = new BackupVerifier(manifests, BackupVerifier.UNLIMITED).verifyLatest();
    assertThat(r.intact()).as("seed %d: %s", fixture.seed(), r.damage()).isTrue();
    assertThat(r.manifest().key()).isEqualTo(backedUp.key());
    assertThat(r.objectsChecked()).isEqualTo(commit.point().files().size());
    long total = commit.point().files().values().stream().mapToLong(FileEntry::length).sum();
    assertThat(r.bytesRead()).isEqualTo(total);
    long manifestBytes = fixture.server().read(backedUp.key()).length;
    assertThat(manifests.blobStore().metrics().snapshot().bytesDownloaded() - before).isEqualTo(total + manifestBytes);
    assertThat(new BackupVerifier(manifests, 0).verifyVersion(backedUp.version()).intact()).isTrue();
  }

  @Test
  void eachDamagedObjectIsNamedWithItsProblemAndTheOthersStillChecked() throws Exception {
    List<FileEntry> files = new ArrayList<>(commit.point().files().values());
    Collections.shuffle(files, fixture.random());
    List<VerifyReport.Damage> expected = new ArrayList<>();
    // A byte before the footer: the bytes no longer match either checksum.
    FileEntry body = files.get(0);
    damage(body, fixture.random().nextInt((int) body.length() - 16));
    expected.add(damage(body, VerifyReport.Problem.WRONG_CHECKSUM));
    // A byte of the footer's stored checksum: the bytes still match the manifest, not the footer.
    FileEntry stored = files.get(1);
    damage(stored, (int) stored.length() - 1 - fixture.random().nextInt(4)); // the low 32 bits: still a CRC32
    expected.add(damage(stored, VerifyReport.Problem.WRONG_CHECKSUM));
    // A byte of the footer's magic or algorithm id.
    FileEntry footer = files.get(2);
    damage(footer, (int) footer.length() - 16 + fixture.random().nextInt(8));
    expected.add(damage(footer, VerifyReport.Problem.BAD_FOOTER));
    FileEntry cut = files.get(3);
    String cutKey = manifests.layout().fileKey(cut);
    byte[] good = fixture.server().read(cutKey);
    fixture.server().write(cutKey, Arrays.copyOf(good, good.length - 1 - fixture.random().nextInt(Math.min(20, good.length - 1))));
    expected.add(damage(cut, VerifyReport.Problem.WRONG_LENGTH));
    FileEntry gone = files.get(4);
    fixture.server().remove(manifests.layout().fileKey(gone));
    expected.add(damage(gone, VerifyReport.Problem.MISSING));

    VerifyReport r = new BackupVerifier(manifests, BackupVerifier.UNLIMITED).verify(backedUp);
    assertThat(r.intact()).isFalse();
    assertThat(r.objectsChecked()).isEqualTo(files.size());
    assertThat(r.damage()).as("seed %d", fixture.seed())
        .usingRecursiveFieldByFieldElementComparatorIgnoringFields("detail")
        .containsExactlyInAnyOrderElementsOf(expected);
    assertThat(r.damage()).allSatisfy(d -> assertThat(d.detail()).isNotBlank());
    assertThat(r.damagedKeys()).containsExactlyInAnyOrderElementsOf(expected.stream().map(VerifyReport.Damage::key).toList());
  }

  @Test
  void aManifestThatDoesNotParseIsRefusedNamingItAndAMissingOneIsNotFound() throws Exception {
    byte[] bytes = fixture.server().read(backedUp.key());
    bytes[fixture.random().nextInt(bytes.length)] ^= 0x04;
    fixture.server().write(backedUp.key(), bytes);
    BackupVerifier verifier = new BackupVerifier(manifests, BackupVerifier.UNLIMITED);
    assertThatThrownBy(() -> verifier.verify(backedUp))
        .isInstanceOfSatisfying(CorruptBackupException.class, e -> assertThat(e.objectKey()).isEqualTo(backedUp.key()));
    assertThatThrownBy(() -> verifier.verifyVersion(backedUp.version() + 1)).isInstanceOf(BackupNotFoundException.class);
    fixture.server().remove(backedUp.key());
    assertThatThrownBy(verifier::verifyLatest).isInstanceOf(BackupNotFoundException.class);
  }

  @Test
  void damagedSegmentInfosInAManifestThatParsesAreRefusedNamingIt() throws Exception {
    Manifest m = manifests.read(backedUp);
    byte[] infos = m.infosBytes();
    infos[fixture.random().nextInt(infos.length)] ^= 0x01;
    // Written with its own checksum over the damaged infos: only the infos' checksum can tell.
    ManifestId id = manifests.write(new Manifest(m.version(), m.primaryGen(), m.infosGeneration(), infos, m.files(),
        m.userData(), m.createdEpochMillis()));
    assertThatThrownBy(() -> new BackupVerifier(manifests, 0).verify(id))
        .isInstanceOfSatisfying(CorruptBackupException.class, e -> {
          assertThat(e.objectKey()).isEqualTo(backedUp.key());
          assertThat(e.getMessage()).contains("segment infos");
        });
  }

  @Test
  void readsArePacedToTheConfiguredRate() throws Exception {
    long rate = BackupVerifier.MIN_BYTES_PER_SECOND;
    long total = commit.point().files().values().stream().mapToLong(FileEntry::length).sum();
    // At least the bytes past the first burst take their time.
    Duration least = Duration.ofNanos((long) ((total - rate * Pace.BURST_NANOS / 1e9) * 1e9 / rate));
    assertThat(least).as("enough bytes to measure").isGreaterThan(Duration.ofMillis(1000));
    long start = System.nanoTime();
    VerifyReport r = new BackupVerifier(manifests, rate).verify(backedUp);
    Duration wall = Duration.ofNanos(System.nanoTime() - start);
    assertThat(r.intact()).isTrue();
    assertThat(r.took()).isGreaterThanOrEqualTo(least).isLessThanOrEqualTo(wall);
    assertThatThrownBy(() -> new BackupVerifier(manifests, rate - 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("bytesPerSecond");
  }

  @Test
  void aStoppedStoreIsATypedFailureNotDamage() throws Exception {
    ManifestStore quick = fixture.manifests(b -> b.maxAttempts(2));
    fixture.server().stop();
    assertThatThrownBy(() -> new BackupVerifier(quick, 0).verify(backedUp))
        .isInstanceOf(ObjectStoreUnavailableException.class);
  }

  private void damage(FileEntry f, int pos) throws Exception {
    String key = manifests.layout().fileKey(f);
    byte[] bytes = fixture.server().read(key);
    bytes[pos] ^= (byte) (1 << fixture.random().nextInt(8));
    fixture.server().write(key, bytes);
  }

  private VerifyReport.Damage damage(FileEntry f, VerifyReport.Problem problem) {
    return new VerifyReport.Damage(manifests.layout().fileKey(f), f.name(), problem, "-");
  }
}

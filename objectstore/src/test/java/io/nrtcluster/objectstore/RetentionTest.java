package io.nrtcluster.objectstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Retention against a real S3-compatible server, alone and racing backups. */
class RetentionTest {
  @RegisterExtension final StoreFixture fixture = StoreFixture.of(RetentionTest.class, "P1", "");

  @TempDir Path tmp;
  private BlobStore store;
  private ManifestStore manifests;
  private BackupService backups;
  private RetentionSweeper sweeper;

  @BeforeEach
  void start() throws Exception {
    manifests = fixture.manifests();
    store = manifests.blobStore();
    backups = fixture.backupService(manifests);
    sweeper = new RetentionSweeper(manifests, fixture.log());
  }

  @Test
  void keepsTheLastKManifestsAndExactlyTheFilesTheyName() throws Exception {
    List<TestIndex.Commit> commits = new ArrayList<>();
    try (TestIndex index = new TestIndex(tmp.resolve("primary"), true)) {
      for (int i = 0; i < 5; i++) {
        index.add(300, fixture.random());
        index.writer.forceMerge(1 + fixture.random().nextInt(2)); // old segments go away, so old files become garbage
        TestIndex.Commit c = index.commit(1);
        commits.add(c);
        backups.submit(c.source()).get(60, TimeUnit.SECONDS);
      }
    }
    SweepResult r = sweeper.sweep(RetentionPolicy.keepLast(2));
    assertThat(r.complete()).isTrue();
    assertThat(r.deletedManifests()).hasSize(3);
    assertThat(r.kept()).extracting(ManifestId::version)
        .containsExactly(commits.get(3).point().version(), commits.get(4).point().version());
    Set<String> expected = new HashSet<>();
    for (TestIndex.Commit c : commits.subList(3, 5)) {
      c.point().files().values().forEach(f -> expected.add(manifests.layout().fileKey(f)));
    }
    assertThat(fixture.server().keys(manifests.layout().filesPrefix())).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(r.filesDeleted()).isPositive();
    assertThat(fixture.server().keys(manifests.layout().pendingPrefix())).isEmpty();
    assertThat(fixture.server().keys(manifests.layout().sweepsPrefix())).isEmpty();
    for (TestIndex.Commit c : commits.subList(3, 5)) {
      try (Directory restored = FSDirectory.open(tmp.resolve("restored-" + c.point().version()));
          Restorer restorer = new Restorer(manifests, fixture.log())) {
        restorer.restoreVersion(c.point().version(), restored);
        assertThat(TestIndex.search(restored)).containsExactly(c.docs(), c.alphaHits());
      }
    }
  }

  @Test
  void keepsEverythingNewerThanTheGivenAge() throws Exception {
    try (TestIndex index = new TestIndex(tmp.resolve("primary"), true)) {
      for (int i = 0; i < 3; i++) {
        index.add(100, fixture.random());
        backups.submit(index.commit(1).source()).get(60, TimeUnit.SECONDS);
      }
    }
    SweepResult r = sweeper.sweep(new RetentionPolicy(1, Duration.ofHours(1)));
    assertThat(r.kept()).hasSize(3);
    assertThat(r.deletedManifests()).isEmpty();
  }

  @Test
  void aKeptManifestThatDoesNotParseStopsTheSweepBeforeItDeletesAnything() throws Exception {
    try (TestIndex index = new TestIndex(tmp.resolve("primary"), true)) {
      for (int i = 0; i < 3; i++) {
        index.add(100, fixture.random());
        index.writer.forceMerge(1);
        backups.submit(index.commit(1).source()).get(60, TimeUnit.SECONDS);
      }
    }
    ManifestId latest = manifests.latestId().orElseThrow();
    fixture.server().write(latest.key(), "garbage".getBytes());
    List<String> before = fixture.server().keys("");
    assertThatThrownBy(() -> sweeper.sweep(RetentionPolicy.keepLast(1)))
        .isInstanceOfSatisfying(CorruptBackupException.class, e -> assertThat(e.objectKey()).isEqualTo(latest.key()));
    assertThat(fixture.server().keys("")).containsExactlyInAnyOrderElementsOf(before);
  }

  /**
   * The interleaving the protocol exists for: a sweep has read the (no) backup markers and listed the
   * manifests and files, and is about to delete the files no manifest names (left by a backup that
   * failed); then a backup starts whose point has those very files. Were the backup to find them
   * there and reuse them, its manifest would name deleted files; it must see the sweep, wait for it,
   * and upload them again.
   */
  @Test
  void aBackupThatStartsWhileASweepRunsReuploadsWhatTheSweepDeletes() throws Exception {
    try (TestIndex index = new TestIndex(tmp.resolve("primary"), false)) {
      index.add(200, fixture.random());
      TestIndex.Commit c = index.commit(1);
      // A failed backup left every file of the point in the store, and no manifest.
      for (FileEntry f : c.point().files().values()) {
        store.putFile(manifests.layout().fileKey(f), index.dir, f.name(), f.length());
      }
      CountDownLatch planned = new CountDownLatch(1);
      CountDownLatch proceed = new CountDownLatch(1);
      sweeper.beforeDeletes(() -> {
        planned.countDown();
        try {
          proceed.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      CompletableFuture<SweepResult> sweep = CompletableFuture.supplyAsync(() -> {
        try {
          return sweeper.sweep(RetentionPolicy.keepLast(1));
        } catch (Exception e) {
          throw new RuntimeException(e);
        }
      });
      assertThat(planned.await(60, TimeUnit.SECONDS)).isTrue();
      String sweepsPrefix = manifests.layout().sweepsPrefix();
      long sweepListings = fixture.server().listings(sweepsPrefix);
      int files = c.point().files().size();
      CompletableFuture<BackupResult> backup = backups.submit(c.source());
      // Let the backup go as far as it will while the sweep is paused: it either waits for the sweep
      // (it lists the sweeps again and again) or, were it not to, reuses every file at once.
      await().atMost(Duration.ofSeconds(30)).until(() ->
          fixture.server().listings(sweepsPrefix) >= sweepListings + 2 || store.metrics().snapshot().filesSkipped() == files);
      proceed.countDown();
      SweepResult swept = sweep.get(60, TimeUnit.SECONDS);
      BackupResult result = backup.get(60, TimeUnit.SECONDS);

      assertThat(swept.filesDeleted()).as("the sweep deleted the unreferenced files").isEqualTo(files);
      assertThat(result.filesUploaded()).as("the backup uploaded them again").isEqualTo(files);
      assertEveryListedManifestIsWhole();
      try (Directory restored = FSDirectory.open(tmp.resolve("restored"));
          Restorer restorer = new Restorer(manifests, fixture.log())) {
        restorer.restoreLatest(restored);
        assertThat(TestIndex.search(restored)).containsExactly(c.docs(), c.alphaHits());
      }
    }
  }

  @Test
  void sweepsRacingBackupsNeverDeleteAFileAKeptManifestNames() throws Exception {
    int rounds = 20;
    Map<Long, Integer> docsByVersion = new HashMap<>();
    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicInteger sweeps = new AtomicInteger();
    Random sweepRandom = new Random(fixture.seed() + 7);
    CompletableFuture<Void> sweeping = CompletableFuture.runAsync(() -> {
      try {
        while (writing.get()) {
          SweepResult r = sweeper.sweep(RetentionPolicy.keepLast(1 + sweepRandom.nextInt(2)));
          sweeps.incrementAndGet();
          if (!r.deletedManifests().isEmpty()) {
            assertThat(r.kept()).as("seed %d", fixture.seed()).isNotEmpty();
          }
          assertEveryListedManifestIsWhole();
        }
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    });
    try (TestIndex index = new TestIndex(tmp.resolve("primary"), true)) {
      List<CompletableFuture<BackupResult>> pending = new ArrayList<>();
      for (int i = 0; i < rounds; i++) {
        index.add(50 + fixture.random().nextInt(200), fixture.random());
        if (fixture.random().nextInt(3) == 0) {
          index.writer.forceMerge(1 + fixture.random().nextInt(3));
        }
        TestIndex.Commit c = index.commit(1);
        docsByVersion.put(c.point().version(), c.docs());
        pending.add(backups.submit(c.source()));
        if (fixture.random().nextBoolean()) {
          pending.get(pending.size() - 1).handle((r, e) -> null).get(60, TimeUnit.SECONDS);
        }
      }
      for (CompletableFuture<BackupResult> f : pending) {
        f.handle((r, e) -> {
          assertThat(e == null || e.getCause() instanceof BackupAbandonedException || e instanceof BackupAbandonedException)
              .as("backup failed (seed %d): %s", fixture.seed(), e).isTrue();
          return null;
        }).get(60, TimeUnit.SECONDS);
      }
    } finally {
      writing.set(false);
    }
    sweeping.get(120, TimeUnit.SECONDS);
    assertThat(sweeps.get()).as("seed %d", fixture.seed()).isPositive();
    assertEveryListedManifestIsWhole();
    try (Restorer restorer = new Restorer(manifests, fixture.log())) {
      for (ManifestId id : manifests.list()) {
        try (Directory restored = FSDirectory.open(tmp.resolve("restored-" + id.version()))) {
          restorer.restore(id, restored);
          assertThat(TestIndex.search(restored)[0]).as("version %d (seed %d)", id.version(), fixture.seed())
              .isEqualTo(docsByVersion.get(id.version()));
        }
      }
    }
  }

  /** Every manifest in the store names only files that are in the store. */
  private void assertEveryListedManifestIsWhole() throws Exception {
    List<ManifestId> ids = manifests.list();
    Set<String> present = new HashSet<>(fixture.server().keys(manifests.layout().filesPrefix()));
    for (ManifestId id : ids) {
      Manifest m;
      try {
        m = manifests.read(id);
      } catch (BackupNotFoundException e) {
        continue; // dropped by the sweep meanwhile
      }
      for (FileEntry f : m.files().values()) {
        String key = manifests.layout().fileKey(f);
        assertThat(present.contains(key) || fixture.server().read(key) != null)
            .as("manifest %s names %s, which is not in the store (seed %d)", id.key(), key, fixture.seed()).isTrue();
      }
    }
  }
}

package io.nrtcluster.objectstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Backups of a real Lucene index to a real S3-compatible server, and verified restores. */
class BackupRestoreTest {
  @RegisterExtension final StoreFixture fixture = StoreFixture.of(BackupRestoreTest.class, "P1", "backups");

  @TempDir Path tmp;
  private BlobStore store;
  private ManifestStore manifests;
  private BackupService backups;
  private Restorer restorer;

  @BeforeEach
  void start() throws Exception {
    manifests = fixture.manifests();
    store = manifests.blobStore();
    backups = fixture.backupService(manifests);
    restorer = fixture.restorer(manifests);
  }

  @Test
  void backUpWhileWritingThenRestoreIntoAnEmptyDirectorySearchesExactlyTheBackedUpDocuments() throws Exception {
    List<TestIndex.Commit> commits = new ArrayList<>();
    List<BackupResult> results = new ArrayList<>();
    try (TestIndex index = new TestIndex(tmp.resolve("primary"), true)) {
      AtomicBoolean stop = new AtomicBoolean();
      Random writerRandom = new Random(fixture.seed() + 1);
      CompletableFuture<Void> writing = CompletableFuture.runAsync(() -> {
        try {
          while (!stop.get()) {
            index.add(50, writerRandom);
          }
        } catch (Exception e) {
          throw new RuntimeException(e);
        }
      });
      for (int round = 0; round < 4; round++) {
        index.add(200 + fixture.random().nextInt(300), fixture.random());
        TestIndex.Commit c = index.commit(1);
        commits.add(c);
        results.add(backups.submit(c.source()).get(60, TimeUnit.SECONDS));
      }
      stop.set(true);
      writing.get(60, TimeUnit.SECONDS);
      assertThat(index.released).hasValue(4);
    }
    // The primary is gone; only the store is left.
    TestIndex.Commit last = commits.get(commits.size() - 1);
    try (Directory restored = FSDirectory.open(tmp.resolve("restored-latest"))) {
      Manifest m = restorer.restoreLatest(restored);
      assertThat(m.version()).isEqualTo(last.point().version());
      assertThat(TestIndex.search(restored)).containsExactly(last.docs(), last.alphaHits());
    }
    TestIndex.Commit first = commits.get(0);
    try (Directory restored = FSDirectory.open(tmp.resolve("restored-first"))) {
      restorer.restoreVersion(first.point().version(), restored);
      assertThat(TestIndex.search(restored)).containsExactly(first.docs(), first.alphaHits());
    }
    assertThat(manifests.list()).extracting(ManifestId::key)
        .containsExactlyElementsOf(results.stream().map(r -> r.manifest().key()).toList());
    List<ManifestSummary> summaries = manifests.summaries();
    assertThat(summaries).hasSize(4);
    assertThat(summaries.get(3).files()).isEqualTo(last.point().files().size());
    assertThat(summaries.get(3).bytes()).isEqualTo(last.point().files().values().stream().mapToLong(FileEntry::length).sum());
    assertThat(summaries).allSatisfy(m -> assertThat(m.stored()).isNotNull());
    ObjectStoreMetrics.Snapshot s = store.metrics().snapshot();
    assertThat(s.backupsCompleted()).isEqualTo(4);
    assertThat(s.lastBackedUpVersion()).isEqualTo(last.point().version());
    assertThat(s.lagVersions()).isZero();
    assertThat(s.filesDownloaded()).isEqualTo(first.point().files().size() + last.point().files().size());
  }

  @Test
  void anNrtPointThatWasNeverCommittedRestoresAtItsVersion() throws Exception {
    try (TestIndex index = new TestIndex(tmp.resolve("primary"), true)) {
      index.add(300, fixture.random());
      index.writer.commit();
      index.add(200 + fixture.random().nextInt(100), fixture.random()); // flushed into NRT segments only
      org.apache.lucene.index.DirectoryReader nrt = org.apache.lucene.index.DirectoryReader.open(index.writer);
      org.apache.lucene.index.SegmentInfos infos = ((org.apache.lucene.index.StandardDirectoryReader) nrt).getSegmentInfos();
      // What a primary's CopyState holds for this point: lengths and checksums of its files, the infos' bytes.
      java.util.Map<String, org.apache.lucene.replicator.nrt.FileMetaData> files = new java.util.HashMap<>();
      for (String name : infos.files(false)) {
        try (org.apache.lucene.store.IndexInput in = index.dir.openInput(name, org.apache.lucene.store.IOContext.READONCE)) {
          files.put(name, new org.apache.lucene.replicator.nrt.FileMetaData(new byte[0], new byte[0], in.length(),
              org.apache.lucene.codecs.CodecUtil.retrieveChecksum(in)));
        }
      }
      org.apache.lucene.store.ByteBuffersDataOutput bytes = new org.apache.lucene.store.ByteBuffersDataOutput();
      try (var out = new org.apache.lucene.store.ByteBuffersIndexOutput(bytes, "infos", "infos")) {
        infos.write(out);
      }
      var state = new org.apache.lucene.replicator.nrt.CopyState(files, infos.getVersion(), infos.getGeneration(),
          bytes.toArrayCopy(), java.util.Set.of(), 3, infos);
      int docs = nrt.numDocs();
      BackupPoint point = BackupPoint.of(state, java.util.Map.of("replay", "17"));
      backups.submit(BackupSource.of(index.dir, point, () -> {
        try {
          nrt.close();
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      })).get(60, TimeUnit.SECONDS);
      try (Directory restored = FSDirectory.open(tmp.resolve("restored"))) {
        Manifest m = restorer.restoreLatest(restored);
        assertThat(m.primaryGen()).isEqualTo(3);
        assertThat(m.userData()).containsEntry("replay", "17");
        try (org.apache.lucene.index.DirectoryReader r = org.apache.lucene.index.DirectoryReader.open(restored)) {
          assertThat(r.numDocs()).isEqualTo(docs);
          assertThat(r.getVersion()).isEqualTo(state.version());
        }
      }
    }
  }

  @Test
  void incrementalBackupUploadsOnlyTheNewFiles() throws Exception {
    try (TestIndex index = new TestIndex(tmp.resolve("primary"), false)) {
      index.add(500, fixture.random());
      TestIndex.Commit c1 = index.commit(1);
      BackupResult r1 = backups.submit(c1.source()).get(60, TimeUnit.SECONDS);
      assertThat(r1.filesUploaded()).isEqualTo(c1.point().files().size());
      assertThat(r1.filesReused()).isZero();

      index.add(300, fixture.random());
      TestIndex.Commit c2 = index.commit(1);
      Set<String> newFiles = new HashSet<>(c2.point().files().keySet());
      newFiles.removeAll(c1.point().files().keySet());
      long newBytes = newFiles.stream().mapToLong(n -> c2.point().files().get(n).length()).sum();
      long uploadedBefore = store.metrics().snapshot().bytesUploaded();

      BackupResult r2 = backups.submit(c2.source()).get(60, TimeUnit.SECONDS);
      assertThat(newFiles).isNotEmpty();
      assertThat(r2.filesUploaded()).isEqualTo(newFiles.size());
      assertThat(r2.bytesUploaded()).isEqualTo(newBytes);
      assertThat(r2.filesReused()).isEqualTo(c2.point().files().size() - newFiles.size());
      ObjectStoreMetrics.Snapshot s = store.metrics().snapshot();
      // Only the new files and the two small objects (marker, manifest) crossed the network.
      long small = s.bytesUploaded() - uploadedBefore - newBytes;
      assertThat(small).isPositive().isLessThan(4096);
      assertThat(s.filesUploaded()).isEqualTo(c1.point().files().size() + newFiles.size());
      assertThat(s.filesSkipped()).isEqualTo(r2.filesReused());
    }
  }

  @Test
  void aNameReusedWithOtherBytesIsStoredApart() throws Exception {
    // Two indexes (think: a primary that lost its disk and started over) both name their first segment _0.
    TestIndex.Commit a;
    TestIndex.Commit b;
    try (TestIndex one = new TestIndex(tmp.resolve("one"), false); TestIndex two = new TestIndex(tmp.resolve("two"), false)) {
      one.add(100, fixture.random());
      two.add(150, fixture.random());
      a = one.commit(1);
      b = two.commit(2);
      backups.submit(a.source()).get(60, TimeUnit.SECONDS);
      BackupResult rb = backups.submit(b.source()).get(60, TimeUnit.SECONDS);
      assertThat(rb.filesReused()).isZero();
    }
    assertThat(manifests.highestPrimaryGen()).isEqualTo(2);
    Set<String> shared = new HashSet<>(a.point().files().keySet());
    shared.retainAll(b.point().files().keySet());
    assertThat(shared).isNotEmpty();
    for (String name : shared) {
      String keyA = manifests.layout().fileKey(a.point().files().get(name));
      String keyB = manifests.layout().fileKey(b.point().files().get(name));
      assertThat(keyA).isNotEqualTo(keyB);
      assertThat(fixture.server().keys(manifests.layout().filesPrefix())).contains(keyA, keyB);
    }
    for (TestIndex.Commit c : List.of(a, b)) {
      ManifestId id = manifests.list().stream().filter(m -> m.primaryGen() == c.point().primaryGen()).findFirst().orElseThrow();
      try (Directory restored = FSDirectory.open(tmp.resolve("restored-" + id.primaryGen()))) {
        restorer.restore(id, restored);
        assertThat(TestIndex.search(restored)).containsExactly(c.docs(), c.alphaHits());
      }
    }
  }

  @Test
  void aDamagedOrMissingFileIsRefusedNamingItAndLeavesTheTargetEmpty() throws Exception {
    TestIndex.Commit c;
    try (TestIndex index = new TestIndex(tmp.resolve("primary"), false)) {
      index.add(400, fixture.random());
      c = index.commit(1);
      backups.submit(c.source()).get(60, TimeUnit.SECONDS);
    }
    List<FileEntry> files = new ArrayList<>(c.point().files().values());
    FileEntry victim = files.get(fixture.random().nextInt(files.size()));
    String key = manifests.layout().fileKey(victim);
    byte[] good = fixture.server().read(key);

    byte[] flipped = good.clone();
    int pos = fixture.random().nextInt(flipped.length);
    flipped[pos] ^= (byte) (1 << fixture.random().nextInt(8));
    fixture.server().write(key, flipped);
    assertRefused(key, "flipped bit at " + pos + " of " + victim.name());

    fixture.server().write(key, java.util.Arrays.copyOf(good, good.length - 1 - fixture.random().nextInt(Math.min(good.length, 20))));
    assertRefused(key, "truncated " + victim.name());

    fixture.server().remove(key);
    assertRefused(key, "missing " + victim.name());

    fixture.server().write(key, good);
    try (Directory restored = FSDirectory.open(tmp.resolve("restored-ok"))) {
      restorer.restoreLatest(restored);
      assertThat(TestIndex.search(restored)[0]).isEqualTo(c.docs());
    }
  }

  private void assertRefused(String key, String what) throws Exception {
    Path target = tmp.resolve("restored-" + Math.abs(what.hashCode()));
    try (Directory restored = FSDirectory.open(target)) {
      assertThatThrownBy(() -> restorer.restoreLatest(restored))
          .as("%s (seed %d)", what, fixture.seed())
          .isInstanceOfSatisfying(CorruptBackupException.class, e -> {
            assertThat(e.objectKey()).isEqualTo(key);
            assertThat(e.getMessage()).contains(key);
          });
      assertThat(restored.listAll()).as("left in the target after %s", what).isEmpty();
    }
  }

  @Test
  void aManifestThatDoesNotParseIsRefusedNamingIt() throws Exception {
    try (TestIndex index = new TestIndex(tmp.resolve("primary"), false)) {
      index.add(100, fixture.random());
      backups.submit(index.commit(1).source()).get(60, TimeUnit.SECONDS);
    }
    ManifestId id = manifests.latestId().orElseThrow();
    byte[] bytes = fixture.server().read(id.key());
    bytes[fixture.random().nextInt(bytes.length)] ^= 0x10;
    fixture.server().write(id.key(), bytes);
    try (Directory restored = FSDirectory.open(tmp.resolve("restored"))) {
      assertThatThrownBy(() -> restorer.restoreLatest(restored))
          .isInstanceOfSatisfying(CorruptBackupException.class, e -> assertThat(e.objectKey()).isEqualTo(id.key()));
      assertThat(restored.listAll()).isEmpty();
      assertThatThrownBy(() -> restorer.restoreVersion(id.version() + 1000, restored))
          .isInstanceOf(BackupNotFoundException.class);
    }
  }

  @Test
  void aStoreThatFailsOrStopsFailsTheBackupTypedAndTheNextOneReusesWhatWentUp() throws Exception {
    try (TestIndex index = new TestIndex(tmp.resolve("primary"), false)) {
      index.add(300, fixture.random());
      fixture.server().failNext(3);
      BackupResult ok = backups.submit(index.commit(1).source()).get(60, TimeUnit.SECONDS);
      assertThat(store.metrics().snapshot().requestFailures()).isGreaterThanOrEqualTo(3);

      index.add(300, fixture.random());
      TestIndex.Commit c2 = index.commit(1);
      fixture.server().stop();
      assertThatThrownBy(() -> backups.submit(c2.source()).get(60, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(ObjectStoreUnavailableException.class);
      fixture.server().restart();
      assertThat(manifests.list()).extracting(ManifestId::key).containsExactly(ok.manifest().key());
      assertThat(store.metrics().snapshot().backupsFailed()).isEqualTo(1);

      index.add(10, fixture.random());
      TestIndex.Commit c3 = index.commit(1);
      BackupResult r3 = backups.submit(c3.source()).get(60, TimeUnit.SECONDS);
      assertThat(r3.filesReused()).isPositive();
      try (Directory restored = FSDirectory.open(tmp.resolve("restored"))) {
        restorer.restoreLatest(restored);
        assertThat(TestIndex.search(restored)[0]).isEqualTo(c3.docs());
      }
    }
  }

  @Test
  void submitNeverBlocksAndANewerPointReplacesTheWaitingOne() throws Exception {
    try (TestIndex index = new TestIndex(tmp.resolve("primary"), false)) {
      List<CompletableFuture<BackupResult>> futures = new ArrayList<>();
      List<TestIndex.Commit> commits = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        index.add(100, fixture.random());
        TestIndex.Commit c = index.commit(1);
        commits.add(c);
        long t0 = System.nanoTime();
        futures.add(backups.submit(c.source()));
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(1));
      }
      int completed = 0;
      int superseded = 0;
      for (CompletableFuture<BackupResult> f : futures) {
        try {
          f.get(60, TimeUnit.SECONDS);
          completed++;
        } catch (ExecutionException e) {
          assertThat(e.getCause()).isInstanceOf(BackupAbandonedException.class);
          superseded++;
        }
      }
      assertThat(completed + superseded).isEqualTo(6);
      assertThat(futures.get(5)).isCompleted().isNotCompletedExceptionally(); // the newest is always backed up
      assertThat(index.released).hasValue(6); // every point released exactly once
      assertThat(store.metrics().snapshot().backupsSuperseded()).isEqualTo(superseded);
      assertThat(manifests.latest().version()).isEqualTo(commits.get(5).point().version());
    }
  }
}

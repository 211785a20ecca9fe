package io.nrtcluster.objectstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.common.IndexUnavailableException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.TermQuery;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A follower of a real Lucene index's backups on a real S3-compatible server: it installs each new
 * point, downloading only what it lacks, keeps serving through a store outage and damaged objects,
 * and follows a new primary generation whose files reuse names with other bytes.
 */
@Timeout(120)
class StoreFollowerTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final Duration FAST = Duration.ofMillis(50);

  @RegisterExtension final StoreFixture fixture = StoreFixture.of(StoreFollowerTest.class, "F1", "backups");
  @TempDir Path tmp;
  private ManifestStore manifests;
  private BackupService backups;

  @BeforeEach
  void start() throws Exception {
    manifests = fixture.manifests();
    backups = fixture.backupService(manifests);
  }

  @Test
  void followsSuccessivePointsDownloadingOnlyWhatItLacksAndDeletesWhatNoSearchHolds() throws Exception {
    try (TestIndex index = new TestIndex(tmp.resolve("primary"), true)) {
      StoreFollower f = follower(FAST);
      assertThatThrownBy(f::acquire).isInstanceOf(IndexUnavailableException.class);

      index.add(300 + fixture.random().nextInt(200), fixture.random());
      TestIndex.Commit c1 = backUp(index, 1);
      awaitServing(f, c1);
      FollowerStatus s1 = f.status();
      assertThat(s1.primaryGen()).isEqualTo(1);
      assertThat(s1.caughtUp()).isTrue();
      assertThat(s1.lag()).isZero();
      assertThat(s1.filesDownloaded()).isEqualTo(c1.point().files().size());
      assertThat(s1.bytesDownloaded()).isEqualTo(totalBytes(c1.point().files().values()));

      IndexSearcher held = f.acquire(); // a search under way while the next point installs
      index.add(200 + fixture.random().nextInt(100), fixture.random());
      TestIndex.Commit c2 = backUp(index, 1);
      awaitServing(f, c2);
      List<FileEntry> fresh = newFiles(c1, c2);
      FollowerStatus s2 = f.status();
      assertThat(fresh).isNotEmpty();
      assertThat(s2.bytesDownloaded() - s1.bytesDownloaded()).as("seed %d", fixture.seed())
          .isEqualTo(totalBytes(fresh)).isLessThan(totalBytes(c2.point().files().values()));
      assertThat(s2.filesDownloaded() - s1.filesDownloaded()).isEqualTo(fresh.size());
      assertThat(s2.filesReused() - s1.filesReused()).isEqualTo(c2.point().files().size() - fresh.size());
      assertThat(((DirectoryReader) held.getIndexReader()).getVersion()).isEqualTo(c1.point().version());
      assertThat(held.getIndexReader().numDocs()).isEqualTo(c1.docs());

      // A merge leaves the old segments to no newer point: they go once no search holds them.
      index.writer.forceMerge(1);
      TestIndex.Commit c3 = backUp(index, 1);
      awaitServing(f, c3);
      Set<String> oldOnly = new HashSet<>(c1.point().files().keySet());
      oldOnly.removeAll(c3.point().files().keySet());
      assertThat(oldOnly).isNotEmpty();
      assertThat(localFiles()).containsAll(oldOnly); // the held searcher's
      f.release(held);
      Set<String> wanted = new HashSet<>(c3.point().files().keySet());
      wanted.add(IndexWriter.WRITE_LOCK_NAME);
      await("only version " + c3.point().version() + "'s files left (seed " + fixture.seed() + ")").atMost(WAIT)
          .until(() -> localFiles().stream().filter(n -> !n.startsWith("segments_")).toList(),
              names -> new HashSet<>(names).equals(wanted));
      assertThat(localFiles().stream().filter(n -> n.startsWith("segments_"))).hasSize(1);
      assertThat(f.status().failures()).isZero();
    }
  }

  @Test
  void aStoreOutageLeavesTheLastPointServingAndItCatchesUpAfter() throws Exception {
    try (TestIndex index = new TestIndex(tmp.resolve("primary"), true)) {
      StoreFollower f = follower(FAST);
      index.add(300, fixture.random());
      TestIndex.Commit c1 = backUp(index, 1);
      awaitServing(f, c1);

      fixture.server().stop();
      await("failed looks at a stopped store (seed " + fixture.seed() + ")").atMost(WAIT)
          .until(() -> f.status().failures() >= 2);
      FollowerStatus down = f.status();
      assertThat(down.lastError()).contains(ObjectStoreUnavailableException.class.getSimpleName());
      assertThat(down.version()).isEqualTo(c1.point().version());
      assertSearches(f, c1);

      fixture.server().restart();
      index.add(100 + fixture.random().nextInt(100), fixture.random());
      backUp(index, 1);
      index.add(100 + fixture.random().nextInt(100), fixture.random());
      TestIndex.Commit c3 = backUp(index, 1);
      awaitServing(f, c3);
      assertThat(f.status().caughtUp()).isTrue();
    }
  }

  @Test
  void aRestartWhileTheStoreIsDownServesWhatTheLastRunInstalledThenFollowsOn() throws Exception {
    try (TestIndex index = new TestIndex(tmp.resolve("primary"), true)) {
      StoreFollower first = follower(FAST);
      index.add(300, fixture.random());
      TestIndex.Commit c1 = backUp(index, 1);
      awaitServing(first, c1);
      first.close();

      ManifestStore connection = fixture.manifests(); // opened while the store answers: opening checks access
      fixture.server().stop();
      StoreFollower second = follower(FAST, connection);
      assertSearches(second, c1); // at once: the store is not asked
      await("failed looks at a stopped store (seed " + fixture.seed() + ")").atMost(WAIT)
          .until(() -> second.status().failures() >= 1);
      assertThat(second.status().version()).isEqualTo(c1.point().version());
      assertThat(second.status().primaryGen()).isEqualTo(-1); // not recorded on disk

      fixture.server().restart();
      // The store's manifest of the same version installs over it: every local file read, none downloaded.
      await("generation known again (seed " + fixture.seed() + ")").atMost(WAIT)
          .until(() -> second.status().primaryGen() == 1);
      assertThat(second.status().filesDownloaded()).isZero();
      assertThat(second.status().filesReused()).isEqualTo(c1.point().files().size());
      index.add(100, fixture.random());
      TestIndex.Commit c2 = backUp(index, 1);
      awaitServing(second, c2);
    }
  }

  @Test
  void aDamagedFileOrManifestIsRefusedAndTheLastGoodPointServesUntilARepairOrANewerPoint() throws Exception {
    try (TestIndex index = new TestIndex(tmp.resolve("primary"), false)) {
      StoreFollower f = follower(Duration.ofHours(1)); // driven by pollNow: no look runs while the test checks
      index.add(300, fixture.random());
      TestIndex.Commit c1 = backUp(index, 1);
      f.pollNow();
      assertThat(f.status().version()).isEqualTo(c1.point().version());

      // The store damages one of the next point's new files: a flipped byte, the length kept. The backup
      // finds an object of the right length under its key and does not upload it again.
      index.add(200, fixture.random());
      TestIndex.Commit c2 = index.commit(1);
      List<FileEntry> fresh = newFiles(c1, c2);
      FileEntry victim = fresh.get(fixture.random().nextInt(fresh.size()));
      String key = manifests.layout().fileKey(victim);
      byte[] good = Files.readAllBytes(tmp.resolve("primary").resolve(victim.name()));
      byte[] bad = good.clone();
      bad[fixture.random().nextInt(bad.length)] ^= (byte) (1 << fixture.random().nextInt(8));
      fixture.server().write(key, bad);
      assertThat(backups.submit(c2.source()).get(60, TimeUnit.SECONDS).filesReused()).isPositive();

      for (int i = 1; i <= 3; i++) {
        f.pollNow();
        FollowerStatus s = f.status();
        assertThat(s.failures()).as("seed %d", fixture.seed()).isEqualTo(i);
        assertThat(s.lastError()).contains(CorruptBackupException.class.getSimpleName()).contains(key);
        assertThat(s.version()).isEqualTo(c1.point().version());
        assertThat(s.newestVersion()).isEqualTo(c2.point().version());
        assertThat(s.lagVersions()).isEqualTo(c2.point().version() - c1.point().version());
        assertThat(s.lag().isNegative()).isFalse();
        assertSearches(f, c1);
        assertThat(localFiles()).noneMatch(n -> n.endsWith(".tmp") || n.startsWith("pending_"))
            .doesNotContain(victim.name());
      }

      // The lag in time grows while the newest point is not served (against the store's clock, whose
      // listings may round to the second: so, eventually).
      await("a lag in time (seed " + fixture.seed() + ")").atMost(WAIT).until(() -> f.status().lag().toMillis() > 0);

      fixture.server().write(key, good);
      f.pollNow();
      assertSearches(f, c2);
      assertThat(f.status().failures()).isEqualTo(3);

      // A manifest the store damaged, newer than the point served: refused; then a newer point installs.
      ManifestId v2 = manifests.latestId().orElseThrow();
      byte[] manifest = fixture.server().read(v2.key());
      manifest[fixture.random().nextInt(manifest.length)] ^= 1;
      String damagedKey = manifests.layout().manifestKey(v2.version(), v2.primaryGen() + 1);
      fixture.server().write(damagedKey, manifest);
      f.pollNow();
      assertThat(f.status().failures()).isEqualTo(4);
      assertThat(f.status().lastError()).contains(damagedKey);
      assertSearches(f, c2);
      index.add(50, fixture.random());
      TestIndex.Commit c3 = backUp(index, 1);
      f.pollNow();
      assertSearches(f, c3);
    }
  }

  @Test
  void aNewGenerationWhoseFilesReuseNamesWithOtherBytesIsFollowedAndAnOlderPointIgnored() throws Exception {
    // Two writers over two directories both name their first segments _0...: think of a new primary
    // that started over after a failover. Its generation and its versions are higher.
    try (TestIndex one = new TestIndex(tmp.resolve("one"), false); TestIndex two = new TestIndex(tmp.resolve("two"), false)) {
      StoreFollower f = follower(FAST);
      one.add(200, fixture.random());
      TestIndex.Commit c1 = backUp(one, 1);
      awaitServing(f, c1);
      IndexSearcher held = f.acquire();

      two.add(350, fixture.random());
      two.writer.advanceSegmentInfosVersion(c1.point().version() + 1000);
      TestIndex.Commit c2 = backUp(two, 2);
      Set<String> reused = new HashSet<>(c1.point().files().keySet());
      reused.retainAll(c2.point().files().keySet());
      assertThat(reused).as("names both points use").isNotEmpty();
      assertThat(reused).allSatisfy(n -> assertThat(c2.point().files().get(n)).isNotEqualTo(c1.point().files().get(n)));
      awaitServing(f, c2);
      for (String name : reused) {
        assertThat(Files.readAllBytes(tmp.resolve("follower").resolve("index").resolve(name)))
            .as("%s holds the new generation's bytes", name).isEqualTo(Files.readAllBytes(tmp.resolve("two").resolve(name)));
      }
      assertThat(f.status().primaryGen()).isEqualTo(2);
      assertThat(f.status().filesReused()).isZero();
      // The search that held the old point's readers still sees the old point whole.
      assertThat(held.getIndexReader().numDocs()).isEqualTo(c1.docs());
      assertThat(held.count(new TermQuery(new Term("body", "alpha")))).isEqualTo(c1.alphaHits());
      f.release(held);

      // The old primary's late backup, at a lower version: ignored.
      one.add(10, fixture.random());
      TestIndex.Commit late = backUp(one, 1);
      assertThat(late.point().version()).isLessThan(c2.point().version());
      f.pollNow();
      assertThat(f.status().version()).isEqualTo(c2.point().version());
      assertThat(f.status().lagVersions()).isZero();
      assertSearches(f, c2);
      assertThat(f.status().failures()).isZero();
    }
  }

  private StoreFollower follower(Duration pollInterval) throws Exception {
    return follower(pollInterval, fixture.manifests()); // a connection of its own, as on another host
  }

  private StoreFollower follower(Duration pollInterval, ManifestStore own) throws Exception {
    return fixture.closeAfter(StoreFollower.start(own, tmp.resolve("follower"),
        StoreFollowerConfig.builder().pollInterval(pollInterval).maxParallelDownloads(3).build(), "F1/docs"));
  }

  private TestIndex.Commit backUp(TestIndex index, long primaryGen) throws Exception {
    TestIndex.Commit c = index.commit(primaryGen);
    backups.submit(c.source()).get(60, TimeUnit.SECONDS);
    return c;
  }

  private void awaitServing(StoreFollower f, TestIndex.Commit c) throws IOException {
    long version = c.point().version();
    await("follower at version " + version + " (seed " + fixture.seed() + ")").atMost(WAIT)
        .pollInterval(Duration.ofMillis(20)).until(() -> f.status().version() == version);
    assertSearches(f, c);
  }

  /** The follower's searcher is at {@code c}'s version and finds exactly its documents. */
  private static void assertSearches(StoreFollower f, TestIndex.Commit c) throws IOException {
    assertThat(f.searcherVersion()).isEqualTo(c.point().version());
    IndexSearcher s = f.acquire();
    try {
      assertThat(((DirectoryReader) s.getIndexReader()).getVersion()).isEqualTo(c.point().version());
      assertThat(s.getIndexReader().numDocs()).isEqualTo(c.docs());
      assertThat(s.count(new TermQuery(new Term("body", "alpha")))).isEqualTo(c.alphaHits());
    } finally {
      f.release(s);
    }
  }

  /** The files of {@code later} that {@code earlier} does not have with the same name, length and checksum. */
  private static List<FileEntry> newFiles(TestIndex.Commit earlier, TestIndex.Commit later) {
    return later.point().files().values().stream()
        .filter(e -> !e.equals(earlier.point().files().get(e.name()))).toList();
  }

  private static long totalBytes(java.util.Collection<FileEntry> files) {
    return files.stream().mapToLong(FileEntry::length).sum();
  }

  private List<String> localFiles() throws IOException {
    try (Stream<Path> s = Files.list(tmp.resolve("follower").resolve("index"))) {
      return s.map(p -> p.getFileName().toString()).toList();
    }
  }
}

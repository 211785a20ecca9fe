package io.nrtcluster.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.primary.Primary;
import io.nrtcluster.transport.FaultInjection;
import io.nrtcluster.transport.TransportConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica that must drop its local index for a new primary's (same file names, other contents):
 * a reopen that fails is retried until it works, the last good searcher serves meanwhile, and
 * closing the replica during the resync leaves no node open holding the index's write lock.
 *
 * <p>Each primary epoch names its new segments from a range of its own, so a successor in the same
 * cluster never writes a name a replica holds with other contents; the other primaries here serve
 * a <em>fork</em> of A's index (its segments named from A's range, with other contents), which is
 * what still forces a resync: an index restored from elsewhere, or rolled back and written outside
 * the cluster.
 */
@Timeout(120)
class ResyncTest {
  private static final Duration CONVERGE = Duration.ofSeconds(60);

  @TempDir Path dir;

  /** What {@link #commitThenLosePrimaryA} leaves: R1's version, and the segment counter A began with. */
  private record LostA(long searched, long counterOfA) {}

  /** R1 follows primary A (generation 1) and commits; then primary B of generation 2, a fork of A's index, takes over. */
  private static long resyncToAnotherPrimary(MiniCluster cluster, Path root, StorageFaults disk, long seed) throws IOException {
    LostA a = commitThenLosePrimaryA(cluster);
    fork(root.resolve("p-other"), a.counterOfA(), "fork", 10, seed);
    disk.failIndexOpens(true);
    cluster.startPrimary(cluster.primaryConfig().dataDir(root.resolve("p-other")).primaryGen(2)
        .forcePrimaryVersion(a.searched() + 1).build());
    cluster.addDocs(150);
    return cluster.refresh();
  }

  /** R1 copies 200 documents from primary A and commits them; A goes away. */
  private static LostA commitThenLosePrimaryA(MiniCluster cluster) throws IOException {
    Replica r = cluster.replica(0);
    long counter = cluster.primary().writer().getSegmentInfosCounter();
    cluster.addDocs(200);
    cluster.awaitAllAt(cluster.refresh());
    r.commit();
    long searched = r.searchingVersion();
    cluster.primary().close();
    return new LostA(searched, counter);
  }

  /**
   * Writes a fork of A's index into {@code dataDir}: {@code docs} documents of its own in segments
   * named from {@code counterOfA} on, as A named its first ones, committed.
   */
  private static void fork(Path dataDir, long counterOfA, String name, int docs, long seed) throws IOException {
    Path index = dataDir.resolve("index");
    Files.createDirectories(index);
    try (Directory d = FSDirectory.open(index); IndexWriter w = new IndexWriter(d, new IndexWriterConfig(new StandardAnalyzer()))) {
      w.advanceSegmentInfosCounter(counterOfA);
      for (int i = 0; i < docs; i++) {
        Document doc = new Document();
        doc.add(new StringField("id", name + i, Field.Store.YES));
        doc.add(new TextField("body", "contents of " + name + " under the same file names " + i + " " + seed, Field.Store.YES));
        w.addDocument(doc);
      }
      w.commit();
    }
  }

  @Test
  void aResyncWhoseReopenFailsIsRetriedAndConvergesWhileTheLastSearcherServes() throws Exception {
    long seed = TestSeeds.seed();
    StorageFaults disk = StorageFaults.switchable();
    try (MiniCluster cluster = new MiniCluster(dir, seed, 1, MiniCluster.fastTransport(), MiniCluster.fastTransport())
        .replicaStorage(0, disk).start()) {
      Replica r = cluster.replica(0);
      long target = resyncToAnotherPrimary(cluster, dir, disk, seed);

      await("R1 resyncs and its reopen keeps failing").atMost(CONVERGE).until(() -> r.state() == Replica.State.RESYNCING);
      // Both attempts of the first reopen fail; more failures mean the replica keeps trying.
      await("R1 retries the reopen").atMost(CONVERGE).until(() -> disk.indexOpenFaults() >= 5);
      assertThat(r.state()).isEqualTo(Replica.State.RESYNCING);
      // The last point installed: A's, or B's first (empty) one, which shares no file with A's commit.
      assertThat(MiniCluster.count(r)).as("seed %d: the last good searcher serves", seed).isIn(0L, 200L);

      disk.failIndexOpens(false);
      cluster.awaitReplicasAt(target, CONVERGE);
      assertThat(r.state()).isEqualTo(Replica.State.RUNNING);
      assertThat(r.primaryGen()).isEqualTo(2);
      assertThat(MiniCluster.count(r)).as("seed %d: B's documents only", seed).isEqualTo(160);
      assertThat(r.stats().resyncs()).isEqualTo(1);
    }
  }

  private static Primary openOtherPrimary(MiniCluster cluster, Path root, long forceVersion) throws IOException {
    return Primary.open(cluster.primaryConfig().dataDir(root.resolve("p-other")).primaryGen(2).forcePrimaryVersion(forceVersion)
        .build(), new IndexWriterConfig(new StandardAnalyzer()));
  }

  @Test
  void aResyncWhosePrimaryDiesMidCopyKeepsServingAndConvergesOnceItIsBack() throws Exception {
    long seed = TestSeeds.seed();
    TransportConfig throttled = MiniCluster.faulty(FaultInjection.builder().switchable(true).seed(seed).build());
    try (MiniCluster cluster = new MiniCluster(dir, seed, 1, MiniCluster.fastTransport(), throttled).start()) {
      Replica r = cluster.replica(0);
      LostA a = commitThenLosePrimaryA(cluster);
      fork(dir.resolve("p-other"), a.counterOfA(), "b", 20_000, seed);
      Primary b = openOtherPrimary(cluster, dir, a.searched() + 1);
      try {
        r.transport().updateFaults(0, 16 * 1024);
        r.setPrimary(b.address());
        await("R1 resyncs from B, slowly").atMost(CONVERGE).until(() -> r.state() == Replica.State.RESYNCING);
      } finally {
        b.close();
      }
      await("the failed sync was noticed").during(Duration.ofMillis(500)).atMost(CONVERGE)
          .untilAsserted(() -> assertThat(r.state()).as("searching %d", r.searchingVersion()).isEqualTo(Replica.State.RESYNCING));
      assertThat(MiniCluster.count(r)).as("seed %d: the last good searcher, not an empty index", seed).isEqualTo(200);

      r.transport().updateFaults(0, 0);
      try (Primary again = openOtherPrimary(cluster, dir, -1)) {
        r.setPrimary(again.address());
        await("R1 converges on B").atMost(CONVERGE).until(() -> r.searchingVersion() == again.version());
        assertThat(MiniCluster.count(r)).as("seed %d", seed).isEqualTo(20_000);
      }
    }
  }

  @Test
  void closingDuringAResyncLeavesNothingOpenAndTheDirectoryOpensAgain() throws Exception {
    long seed = TestSeeds.seed();
    StorageFaults disk = StorageFaults.switchable();
    try (MiniCluster cluster = new MiniCluster(dir, seed, 1, MiniCluster.fastTransport(), MiniCluster.fastTransport())
        .replicaStorage(0, disk).start()) {
      Replica r = cluster.replica(0);
      long target = resyncToAnotherPrimary(cluster, dir, disk, seed);
      await().atMost(CONVERGE).until(() -> r.state() == Replica.State.RESYNCING && disk.indexOpenFaults() >= 2);

      // The reopen may now succeed at any moment: close races with it, and must win cleanly either way.
      disk.failIndexOpens(false);
      r.close();
      assertThat(r.state()).isEqualTo(Replica.State.CLOSED);

      cluster.reopenReplica(0);
      Replica again = cluster.replica(0);
      cluster.awaitReplicasAt(target, CONVERGE);
      assertThat(MiniCluster.count(again)).as("seed %d", seed).isEqualTo(160);
    }
  }
  private static Primary openFork(MiniCluster cluster, Path root, String name, long gen, long forceVersion, LostA a,
      int docs, long seed) throws IOException {
    fork(root.resolve(name), a.counterOfA(), name, docs, seed);
    return Primary.open(cluster.primaryConfig().dataDir(root.resolve(name)).primaryGen(gen).forcePrimaryVersion(forceVersion)
        .build(), new IndexWriterConfig(new StandardAnalyzer()));
  }

  /**
   * Issue 26: a resync to primary B dies mid-copy (Lucene has dropped the starting commit by then,
   * so nothing is left locally), and a second failover brings primary C of the next generation. The
   * reopen for C found an empty directory, opened it as an empty index without syncing, and the
   * replica answered searches at version 0 (a chaos run saw version 8918, then 0 a second later).
   * The last good searcher must serve until a point copied from C is installed.
   */
  @Test
  void aResyncInterruptedByASecondFailoverServesTheLastGoodSearcherUntilTheNewPointIsInstalled() throws Exception {
    long seed = TestSeeds.seed();
    TransportConfig throttled = MiniCluster.faulty(FaultInjection.builder().switchable(true).seed(seed).build());
    try (MiniCluster cluster = new MiniCluster(dir, seed, 1, MiniCluster.fastTransport(), throttled).start()) {
      Replica r = cluster.replica(0);
      LostA a = commitThenLosePrimaryA(cluster);
      long searched = a.searched();
      AtomicBoolean running = new AtomicBoolean(true);
      AtomicLong fewest = new AtomicLong(Long.MAX_VALUE);
      AtomicLong searches = new AtomicLong();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread searcher = new Thread(() -> {
        while (running.get()) {
          try {
            long n = MiniCluster.count(r);
            if (n != 20_000) {
              fewest.accumulateAndGet(n, Math::min);
            }
            searches.incrementAndGet();
          } catch (Throwable t) {
            failure.compareAndSet(null, t);
          }
        }
      }, "searcher");
      searcher.start();
      try {
        r.transport().updateFaults(0, 16 * 1024);
        try (Primary b = openFork(cluster, dir, "p-b", 2, searched + 1, a, 20_000, seed)) {
          r.setPrimary(b.address());
          await("R1 resyncs from B, slowly").atMost(CONVERGE).until(() -> r.state() == Replica.State.RESYNCING);
        }
        // Lucene dropped the starting commit before syncing: once B is gone, nothing is left locally.
        Path index = dir.resolve("r1").resolve("index");
        await("R1's local commit is gone").atMost(CONVERGE).until(() -> {
          try (var files = java.nio.file.Files.list(index)) {
            return files.noneMatch(f -> f.getFileName().toString().startsWith("segments_"));
          }
        });
        try (Primary c = openFork(cluster, dir, "p-c", 3, searched + 100_000, a, 20_000, seed)) {
          r.setPrimary(c.address());
          await("R1 follows C's generation").atMost(CONVERGE).until(() -> r.highestPrimaryGenSeen() == 3);
          long during = searches.get();
          // C's point crawls over the throttled link: search along the copy.
          await().atMost(CONVERGE).until(() -> searches.get() > during + 200);
          r.transport().updateFaults(0, 0);
          await("R1 converges on C").atMost(CONVERGE).until(() -> r.searchingVersion() == c.version());
          assertThat(MiniCluster.count(r)).as("seed %d", seed).isEqualTo(20_000);
        }
      } finally {
        running.set(false);
        searcher.join();
      }
      assertThat(failure.get()).as("seed %d: searches kept working", seed).isNull();
      assertThat(fewest.get()).as("seed %d: the last good searcher until C's point, never an empty index", seed)
          .isIn(200L, Long.MAX_VALUE);
    }
  }
}

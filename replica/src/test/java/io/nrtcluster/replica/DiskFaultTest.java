package io.nrtcluster.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.common.StorageException;
import io.nrtcluster.primary.PreCopyResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexCommit;
import org.apache.lucene.index.IndexNotFoundException;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.SegmentCommitInfo;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.index.StandardDirectoryReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica whose disk fills up or fails, through its configured {@link StorageFaults}, with a real
 * primary and real replicas on loopback: the failed copy leaves nothing behind, the last good
 * searcher keeps serving, and the replica converges once the disk works again.
 */
@Timeout(120)
class DiskFaultTest {
  private static final Duration CONVERGE = Duration.ofSeconds(60);

  @TempDir Path dir;

  @Test
  void aFullDiskFailsTheCopyCleanlyKeepsTheLastSearcherAndRecoversWhenSpaceReturns() throws Exception {
    long seed = TestSeeds.seed();
    StorageFaults disk = StorageFaults.switchable();
    try (MiniCluster cluster = faultyCluster(seed, 2, disk).start()) {
      Replica full = cluster.replica(0);
      Path index = cluster.dataDir(0).resolve("index");
      cluster.addDocs(300);
      cluster.awaitReplicasAt(cluster.refresh(), CONVERGE);
      MiniCluster.View before = MiniCluster.view(full);

      disk.fillDisk(64 * 1024);
      cluster.addDocs(3000);
      long blocked = cluster.refresh();
      // Wait for the copies themselves: a merge pre-copy that hits the full disk counts a storage
      // failure too, but not a copy failure, so three storage failures can be two failed copies.
      await("R1 retried the copy and failed again").atMost(CONVERGE).until(() -> full.stats().consecutiveCopyFailures() >= 3);
      assertThat(disk.diskFullFaults()).as("seed %d", seed).isPositive();
      assertThat(full.stats().storageFailures()).as("seed %d: the copies failed on storage", seed).isGreaterThanOrEqualTo(3);
      assertThat(MiniCluster.view(full)).as("seed %d: R1 keeps serving its last good searcher", seed).isEqualTo(before);
      assertNoStrayFiles(full, index, seed);
      await("the healthy replica is not held back").atMost(CONVERGE)
          .until(() -> cluster.replica(1).searchingVersion() >= blocked);

      disk.clear();
      cluster.awaitReplicasAt(blocked, CONVERGE);
      assertSearchesWhatThePrimaryPublished(cluster, full, seed);
      assertThat(full.stats().consecutiveCopyFailures()).isZero();
      assertNoStrayFiles(full, index, seed);
      cluster.closeReplica(0);
      FaultToleranceTest.assertCheckIndexClean(index, seed);
    }
  }

  @Test
  void anIoErrorInTheMiddleOfAFileFailsThatCopyOnlyAndTheRetrySucceeds() throws Exception {
    long seed = TestSeeds.seed();
    StorageFaults disk = StorageFaults.switchable();
    AtomicInteger observedStorageFailures = new AtomicInteger();
    ReplicaObserver observer = new ReplicaObserver() {
      @Override
      public void storageFailed() {
        observedStorageFailures.incrementAndGet();
      }
    };
    try (MiniCluster cluster = faultyCluster(seed, 1, disk).replicaObserver(0, observer).start()) {
      Replica r = cluster.replica(0);
      Path index = cluster.dataDir(0).resolve("index");
      cluster.addDocs(200);
      cluster.awaitReplicasAt(cluster.refresh(), CONVERGE);

      disk.ioErrorAfter(100 * 1024);
      cluster.addDocs(3000);
      long version = cluster.refresh();
      cluster.awaitReplicasAt(version, CONVERGE);

      assertThat(disk.ioErrors()).as("seed %d: I/O errors injected", seed).isEqualTo(1);
      assertThat(r.stats().storageFailures()).as("seed %d: copies failed on storage", seed).isEqualTo(1);
      assertThat(observedStorageFailures).as("seed %d: the observer (metrics) heard of it", seed).hasValue(1);
      assertThat(r.stats().nrtCopiesFailed()).as("seed %d", seed).isEqualTo(1);
      assertRecovered(cluster, r, index, seed);
    }
  }

  @Test
  void aCopyWhoseFilesCannotBeInstalledKeepsTheSearcherAndIsRetried() throws Exception {
    long seed = TestSeeds.seed();
    StorageFaults disk = StorageFaults.switchable();
    try (MiniCluster cluster = faultyCluster(seed, 1, disk).start()) {
      Replica r = cluster.replica(0);
      Path index = cluster.dataDir(0).resolve("index");
      cluster.addDocs(200);
      cluster.awaitReplicasAt(cluster.refresh(), CONVERGE);
      MiniCluster.View before = MiniCluster.view(r);

      disk.failRenames(true);
      cluster.addDocs(500);
      long version = cluster.refresh();
      await("the install failed, was retried and failed again").atMost(CONVERGE)
          .until(() -> r.stats().storageFailures() >= 2);
      assertThat(disk.renameFaults()).as("seed %d", seed).isPositive();
      assertThat(MiniCluster.view(r)).as("seed %d: the last good searcher keeps serving", seed).isEqualTo(before);
      assertNoStrayFiles(r, index, seed);

      disk.clear();
      cluster.awaitReplicasAt(version, CONVERGE);
      assertRecovered(cluster, r, index, seed);
    }
  }

  @Test
  void aFullDiskDuringAMergePreCopyNeitherStallsThePrimaryNorWedgesTheReplica() throws Exception {
    long seed = TestSeeds.seed();
    StorageFaults disk = StorageFaults.switchable();
    try (MiniCluster cluster = faultyCluster(seed, 2, disk)) {
      // Neither the pre-copy deadline nor the keep-alive can end the wait within this test: only the
      // replica's report of its failure can.
      cluster.startPrimary(cluster.primaryConfig().preCopyTimeout(Duration.ofMinutes(5))
          .preCopyKeepAlive(Duration.ofMinutes(5)).build());
      cluster.startReplicas();
      Replica full = cluster.replica(0);
      Path index = cluster.dataDir(0).resolve("index");
      for (int i = 0; i < 6; i++) {
        cluster.addDocs(300);
        cluster.awaitReplicasAt(cluster.refresh(), CONVERGE);
      }
      MiniCluster.View before = MiniCluster.view(full);

      disk.fillDisk(16 * 1024);
      CompletableFuture<Void> merge = CompletableFuture.runAsync(() -> {
        try {
          cluster.primary().writer().forceMerge(1);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
      merge.get(60, TimeUnit.SECONDS);
      PreCopyResult preCopy = cluster.primary().lastPreCopy();
      assertThat(preCopy.replicas()).as("seed %d", seed).isEqualTo(2);
      assertThat(preCopy.succeeded()).as("seed %d: only the healthy replica pre-copied", seed).isEqualTo(1);
      assertThat(full.stats().storageFailures()).as("seed %d", seed).isPositive();
      assertNoStrayFiles(full, index, seed);

      cluster.addDocs(100);
      long merged = cluster.refresh();
      assertThat(segmentsSearchedByThePrimary(cluster)).as("seed %d: the primary installed the merge", seed)
          .contains(preCopy.segment());
      await("the healthy replica searches the merged segment").atMost(CONVERGE)
          .until(() -> cluster.replica(1).searchingVersion() >= merged);
      assertThat(MiniCluster.view(full)).as("seed %d: R1 still serves its last good searcher", seed).isEqualTo(before);

      disk.clear();
      cluster.awaitReplicasAt(merged, CONVERGE);
      assertRecovered(cluster, full, index, seed);
    }
  }

  @Test
  void aCommitThatFailsOnStorageKeepsThePreviousCommitOpenable() throws Exception {
    long seed = TestSeeds.seed();
    StorageFaults disk = StorageFaults.switchable();
    try (MiniCluster cluster = faultyCluster(seed, 1, disk).start()) {
      Replica r = cluster.replica(0);
      Path index = cluster.dataDir(0).resolve("index");
      cluster.addDocs(200);
      long committed = cluster.refresh();
      cluster.awaitReplicasAt(committed, CONVERGE);
      r.commit();
      cluster.addDocs(200);
      long searched = cluster.refresh();
      cluster.awaitReplicasAt(searched, CONVERGE);

      disk.fillDisk(0);
      assertThatThrownBy(r::commit).as("seed %d", seed).isInstanceOf(StorageException.class);
      assertThat(disk.diskFullFaults()).isPositive();
      assertLatestCommitIs(index, committed, cluster.expected(committed));

      disk.clear();
      disk.failSyncs(true);
      assertThatThrownBy(r::commit).as("seed %d", seed).isInstanceOf(StorageException.class);
      assertThat(disk.syncFaults()).isPositive();
      assertLatestCommitIs(index, committed, cluster.expected(committed));

      assertThat(r.stats().storageFailures()).isEqualTo(2);
      assertThat(r.lastCommitVersion()).isEqualTo(committed);
      assertThat(MiniCluster.view(r).version()).as("seed %d: the replica keeps searching", seed).isEqualTo(searched);
      assertThat(strayFiles(r, index)).as("seed %d: no half-written segments file", seed).isEmpty();

      disk.clear();
      r.commit();
      assertThat(r.lastCommitVersion()).isEqualTo(searched);
      cluster.closeReplica(0);
      assertLatestCommitIs(index, searched, cluster.expected(searched));
      FaultToleranceTest.assertCheckIndexClean(index, seed);
    }
  }

  /** A primary and {@code replicas} replicas on loopback, the first writing its index through {@code disk}. */
  private MiniCluster faultyCluster(long seed, int replicas, StorageFaults disk) {
    return new MiniCluster(dir, seed, replicas, MiniCluster.fastTransport(), MiniCluster.fastTransport())
        .replicaStorage(0, disk);
  }

  /**
   * After the disk recovered: the replica searches what the primary published, its directory holds
   * no stray file, and once closed its index passes CheckIndex.
   */
  private static void assertRecovered(MiniCluster cluster, Replica r, Path index, long seed) throws Exception {
    assertSearchesWhatThePrimaryPublished(cluster, r, seed);
    assertNoStrayFiles(r, index, seed);
    cluster.closeReplica(0);
    FaultToleranceTest.assertCheckIndexClean(index, seed);
  }

  private static void assertSearchesWhatThePrimaryPublished(MiniCluster cluster, Replica r, long seed) throws IOException {
    MiniCluster.View view = MiniCluster.view(r);
    assertThat(view.version()).as("seed %d R%d", seed, r.nodeId()).isEqualTo(cluster.primary().version());
    assertThat(view.counts()).as("seed %d R%d", seed, r.nodeId()).isEqualTo(cluster.expected(view.version()));
  }

  /**
   * Only what the searched point-in-time and the commits reference is left. Awaited: a replica
   * deletes the files of its previous point-in-time just after it starts searching the new one, and
   * while the disk is full a retry may be writing its temp file right now; a file left by every
   * failed attempt would never let this hold.
   */
  private static void assertNoStrayFiles(Replica r, Path index, long seed) {
    await("seed " + seed + ": no temp file or unreferenced file left in " + index).atMost(CONVERGE)
        .pollInterval(Duration.ofMillis(20)).until(() -> strayFiles(r, index).isEmpty());
  }

  /** Files in the index directory that neither the searched point-in-time nor a commit references. */
  static Set<String> strayFiles(Replica r, Path index) throws IOException {
    Set<String> present;
    try (Stream<Path> files = Files.list(index)) {
      present = files.map(p -> p.getFileName().toString()).collect(Collectors.toCollection(TreeSet::new));
    }
    Set<String> referenced = new HashSet<>();
    referenced.add(IndexWriter.WRITE_LOCK_NAME);
    IndexSearcher s = r.acquireSearcher();
    try {
      referenced.addAll(((StandardDirectoryReader) s.getIndexReader()).getSegmentInfos().files(true));
    } finally {
      r.releaseSearcher(s);
    }
    try (Directory d = FSDirectory.open(index)) {
      for (IndexCommit c : DirectoryReader.listCommits(d)) {
        referenced.addAll(c.getFileNames());
      }
    } catch (IndexNotFoundException e) {
      // No commit yet.
    }
    present.removeAll(referenced);
    return present;
  }

  private static void assertLatestCommitIs(Path index, long version, java.util.List<Long> expectedCounts) throws IOException {
    try (Directory d = FSDirectory.open(index); DirectoryReader reader = DirectoryReader.open(d)) {
      assertThat(reader.getVersion()).as("version of the latest commit").isEqualTo(version);
      assertThat(MiniCluster.counts(new IndexSearcher(reader))).isEqualTo(expectedCounts);
    }
  }

  private static Set<String> segmentsSearchedByThePrimary(MiniCluster cluster) throws IOException {
    IndexSearcher s = cluster.primary().acquireSearcher();
    try {
      SegmentInfos infos = ((StandardDirectoryReader) s.getIndexReader()).getSegmentInfos();
      Set<String> names = new HashSet<>();
      for (SegmentCommitInfo info : infos) {
        names.add(info.info.name);
      }
      return names;
    } finally {
      cluster.primary().releaseSearcher(s);
    }
  }
}

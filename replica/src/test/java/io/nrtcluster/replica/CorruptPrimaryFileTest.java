package io.nrtcluster.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.primary.Primary;
import io.nrtcluster.transport.FaultInjection;
import io.nrtcluster.transport.TransportConfig;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A file that keeps failing its checksum on the way to a replica, with real nodes on loopback: when
 * the primary's own copy is corrupt on its disk, the replica reports it after a bounded number of
 * failures, the primary finds it corrupt and records a tragic event on its writer, and the replica
 * stops fetching it; when only the wire flips bits, the primary finds its file intact, the replica
 * backs off and copies it once the link is clean. Neither ever installs a bad byte, and a replica in
 * that failure loop keeps answering and closes promptly while new versions arrive.
 */
@Timeout(120)
class CorruptPrimaryFileTest {
  private static final Logger LOG = LoggerFactory.getLogger(CorruptPrimaryFileTest.class);
  private static final int REPORT_AFTER = 3;

  @TempDir Path dir;

  /** The largest file of the primary's index (the flushed segment's compound file). */
  private static Path largestSegmentFile(Path index) throws IOException {
    try (Stream<Path> files = Files.list(index)) {
      return files.filter(p -> !p.getFileName().toString().startsWith("segments") && !p.getFileName().toString().equals("write.lock"))
          .max(Comparator.comparingLong(p -> p.toFile().length())).orElseThrow();
    }
  }

  /** Flips one bit in the middle of a file on disk, as bit rot would. */
  private static void flipMiddleByte(Path file) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      long at = f.length() / 2;
      f.seek(at);
      int b = f.read();
      f.seek(at);
      f.write(b ^ 0x04);
    }
  }

  /** Every index file the replica holds verifies in full: nothing corrupt was installed. */
  private static void assertEveryFileVerifies(Path index, long seed) throws IOException {
    try (Directory d = FSDirectory.open(index); Stream<Path> files = Files.list(index)) {
      for (Path p : files.toList()) {
        String name = p.getFileName().toString();
        if (name.equals("write.lock") || name.endsWith(".tmp")) {
          continue;
        }
        try (IndexInput in = d.openInput(name, IOContext.READONCE)) {
          CodecUtil.checksumEntireFile(in);
        } catch (CorruptIndexException e) {
          throw new AssertionError("seed " + seed + ": replica installed a corrupt file " + name, e);
        }
      }
    }
  }

  private ReplicaConfig.Builder newReplica(MiniCluster cluster, TransportConfig transport) {
    return cluster.replicaConfig(0).toBuilder().nodeId(9).dataDir(dir.resolve("r9")).transport(transport)
        .corruptFileReportAfter(REPORT_AFTER);
  }

  @Test
  void aFileCorruptOnThePrimarysDiskIsReportedAndIsATragicEventAndTheCopyLoopIsBounded() throws Exception {
    long seed = TestSeeds.seed();
    try (MiniCluster cluster = new MiniCluster(dir, seed, 1, MiniCluster.fastTransport(), MiniCluster.fastTransport()).start()) {
      cluster.addDocs(3000);
      long version = cluster.refresh();
      cluster.awaitAllAt(version);
      Primary primary = cluster.primary();
      Path bad = largestSegmentFile(dir.resolve("p0").resolve("index"));
      flipMiddleByte(bad);
      LOG.info("seed {}: flipped a bit in the middle of the primary's {} ({} bytes)", seed, bad.getFileName(), bad.toFile().length());

      long start = System.nanoTime();
      // The hold after a "corrupt" verdict outlasts the observation window below.
      try (Replica fresh = Replica.open(newReplica(cluster, MiniCluster.fastTransport())
          .badFileBackoffMin(Duration.ofSeconds(1)).badFileBackoffMax(Duration.ofSeconds(30)).build())) {
        ReplicaStats stats = fresh.stats();
        await("seed " + seed + ": the primary's verdict").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(10))
            .until(() -> stats.primaryFilesCorrupt() >= 1);
        long millis = (System.nanoTime() - start) / 1_000_000;
        long mismatches = stats.checksumMismatches();
        LOG.info("seed {}: verdict after {} ms, {} mismatches, {} bytes fetched, {} copy failures ({})", seed, millis,
            mismatches, stats.bytesCopied(), stats.nrtCopiesFailed(), stats);

        assertThat(stats.corruptFileReports()).as("seed %d: reports", seed).isEqualTo(1);
        assertThat(mismatches).as("seed %d: the file failed exactly until it was reported", seed).isEqualTo(REPORT_AFTER);
        assertThat(primary.writer().getTragicException()).as("seed %d: the primary's writer", seed)
            .isInstanceOf(CorruptIndexException.class);
        // Bounded: no more fetches of the bad file while the hold lasts, however often it is woken.
        await("seed " + seed + ": no fetch during the hold").during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5))
            .until(() -> stats.checksumMismatches() == mismatches && stats.corruptFileReports() == 1);
        assertThat(fresh.searchingVersion()).as("seed %d: never searches the corrupt point", seed).isNotEqualTo(version);
        assertThat(fresh.state()).isEqualTo(Replica.State.RUNNING);

        // A new primary generation (here a clean primary elsewhere) ends the 30 s hold at once.
        long newGen = primary.primaryGen() + 1;
        primary.close();
        cluster.startPrimary(cluster.primaryConfig().dataDir(dir.resolve("p1")).primaryGen(newGen).build());
        fresh.setPrimary(cluster.primary().address());
        await("seed " + seed + ": follows the new primary within the hold").atMost(Duration.ofSeconds(15))
            .until(() -> fresh.primaryGen() == newGen);
        assertThat(stats.checksumMismatches()).isEqualTo(mismatches);
      }
      assertEveryFileVerifies(dir.resolve("r9").resolve("index"), seed);
    }
  }

  @Test
  void bitFlipsOnTheWireOnlyAreAnsweredIntactAndTheReplicaBacksOffAndRecovers() throws Exception {
    long seed = TestSeeds.seed();
    TransportConfig flipping = MiniCluster.faulty(FaultInjection.builder().bitFlipProbability(1.0).seed(seed)
        .switchable(true).build());
    try (MiniCluster cluster = new MiniCluster(dir, seed, 1, MiniCluster.fastTransport(), MiniCluster.fastTransport()).start()) {
      cluster.addDocs(2000);
      long version = cluster.refresh();
      cluster.awaitAllAt(version);

      long start = System.nanoTime();
      try (Replica fresh = Replica.open(newReplica(cluster, flipping)
          .badFileBackoffMin(Duration.ofMillis(500)).badFileBackoffMax(Duration.ofSeconds(2)).build())) {
        ReplicaStats stats = fresh.stats();
        await("seed " + seed + ": the primary's verdict").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(10))
            .until(() -> stats.primaryFilesIntact() >= 1);
        LOG.info("seed {}: verdict after {} ms: {}", seed, (System.nanoTime() - start) / 1_000_000, stats);
        assertThat(stats.primaryFilesCorrupt()).as("seed %d", seed).isZero();
        assertThat(cluster.primary().writer().getTragicException()).as("seed %d: no tragic event", seed).isNull();
        assertThat(fresh.transport().faultStats().bitFlipsInjected()).isGreaterThanOrEqualTo(REPORT_AFTER);
        assertThat(stats.copyFailures(CopyFailureReason.CHECKSUM_MISMATCH) + stats.consecutiveCopyFailures())
            .as("seed %d: the failure shows in the metrics", seed).isPositive();

        fresh.transport().updateFaults(0, 0);
        long clean = System.nanoTime();
        await("seed " + seed + ": caught up once the link is clean").atMost(Duration.ofSeconds(30))
            .until(() -> fresh.searchingVersion() >= version);
        LOG.info("seed {}: caught up {} ms after the link was clean", seed, (System.nanoTime() - clean) / 1_000_000);
        assertThat(stats.consecutiveCopyFailures()).isZero();
        assertThat(MiniCluster.view(fresh).counts()).isEqualTo(cluster.expected(version));
      }
      assertEveryFileVerifies(dir.resolve("r9").resolve("index"), seed);
    }
  }

  @Test
  void aReplicaInTheFailureLoopKeepsAnsweringWhileNewVersionsArriveAndClosesPromptly() throws Exception {
    long seed = TestSeeds.seed();
    try (MiniCluster cluster = new MiniCluster(dir, seed, 1, MiniCluster.fastTransport(), MiniCluster.fastTransport()).start()) {
      cluster.addDocs(3000);
      long version = cluster.refresh();
      cluster.awaitAllAt(version);
      flipMiddleByte(largestSegmentFile(dir.resolve("p0").resolve("index")));

      // Never reports: the loop of today (copy, mismatch, retry), bounded only by the backoffs.
      Replica fresh = Replica.open(newReplica(cluster, MiniCluster.fastTransport()).corruptFileReportAfter(1000)
          .closeTimeout(Duration.ofSeconds(5)).build());
      AtomicReference<Throwable> failed = new AtomicReference<>();
      try {
        // Fewer refreshes than a merge needs: the primary's writer never reads the corrupt segment.
        for (int i = 0; i < 8; i++) {
          cluster.addDocs(20);
          long announced = cluster.refresh();
          await("seed " + seed + ": version " + announced + " arrives").atMost(Duration.ofSeconds(10))
              .until(() -> fresh.newestAnnouncedVersion() >= announced);
          // Status and search answer within a bound while the copy loop fails.
          CompletableFuture<long[]> answer = CompletableFuture.supplyAsync(() -> {
            try {
              IndexSearcher s = fresh.acquireSearcher();
              try {
                return new long[] {fresh.searchingVersion(), s.count(MiniCluster.QUERIES.get(0)),
                    fresh.stats().consecutiveCopyFailures(), fresh.isCopying() ? 1 : 0, fresh.versionsBehind()};
              } finally {
                fresh.releaseSearcher(s);
              }
            } catch (IOException e) {
              throw new IllegalStateException(e);
            }
          });
          assertThat(answer.get(5, TimeUnit.SECONDS)[0]).as("seed %d: never the corrupt point", seed).isLessThan(version);
        }
        assertThat(fresh.stats().checksumMismatches()).as("seed %d: in the failure loop", seed).isPositive();
        assertThat(fresh.stats().consecutiveCopyFailures()).as("seed %d", seed).isPositive();
      } catch (Throwable t) {
        failed.set(t);
      }
      CompletableFuture<Void> closing = CompletableFuture.runAsync(() -> {
        try {
          fresh.close();
        } catch (IOException e) {
          throw new IllegalStateException(e);
        }
      });
      await("seed " + seed + ": close").atMost(Duration.ofSeconds(15)).until(closing::isDone);
      closing.get();
      assertThat(fresh.state()).isEqualTo(Replica.State.CLOSED);
      if (failed.get() != null) {
        throw new AssertionError("seed " + seed, failed.get());
      }
      assertEveryFileVerifies(dir.resolve("r9").resolve("index"), seed);
    }
  }
}

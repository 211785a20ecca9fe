package io.nrtcluster.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.primary.CopyStateLeaseCounts;
import io.nrtcluster.transport.FaultInjection;
import io.nrtcluster.transport.NodeAddress;
import io.nrtcluster.transport.TransportConfig;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A copy cut by a dropped connection resumes on the next one: the partly copied file from its byte
 * offset, its checksum state recomputed from the disk, while the primary keeps the copy-state under
 * a lease. Real loopback connections, dropped by the transport's "dropAfterFileBytes" fault point or
 * by pointing the replica at a dead address for a while.
 */
@Timeout(240)
class DropResumeTest {
  private static final Logger LOG = LoggerFactory.getLogger(DropResumeTest.class);
  private static final int MB = 1024 * 1024;

  @TempDir Path dir;

  /**
   * Adds {@code docs} documents of one incompressible 1 MiB stored field each (one segment: stored
   * fields are streamed to disk, not buffered) and refreshes; returns the bytes of the new files.
   */
  private long addLargeSegment(MiniCluster cluster, int docs, long seed) throws IOException {
    Path index = dir.resolve("p0").resolve("index");
    Map<String, Long> before = sizes(index);
    SplittableRandom random = new SplittableRandom(seed);
    byte[] blob = new byte[MB];
    for (int i = 0; i < docs; i++) {
      for (int b = 0; b < blob.length; b += 8) {
        long r = random.nextLong();
        for (int k = 0; k < 8; k++) {
          blob[b + k] = (byte) (r >>> (8 * k));
        }
      }
      Document d = new Document();
      d.add(new StringField("id", "big-" + i, Field.Store.YES));
      d.add(new StoredField("blob", blob));
      cluster.primary().writer().addDocument(d);
    }
    cluster.refresh();
    long added = 0;
    for (Map.Entry<String, Long> e : sizes(index).entrySet()) {
      if (!before.containsKey(e.getKey())) {
        added += e.getValue();
      }
    }
    return added;
  }

  private static Map<String, Long> sizes(Path index) throws IOException {
    Map<String, Long> out = new HashMap<>();
    try (Stream<Path> files = Files.list(index)) {
      for (Path p : (Iterable<Path>) files::iterator) {
        if (!p.getFileName().toString().equals("write.lock")) {
          out.put(p.getFileName().toString(), Files.size(p));
        }
      }
    }
    return out;
  }

  private static NodeAddress deadAddress() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return new NodeAddress("127.0.0.1", s.getLocalPort());
    }
  }

  private static void assertServesThePrimarysPoint(MiniCluster cluster, Replica r, long seed) throws IOException {
    MiniCluster.View view = MiniCluster.view(r);
    assertThat(view.counts()).as("seed %d", seed).isEqualTo(cluster.expected(view.version()));
  }

  @Test
  void aLargeFileCompletesAcrossThreeDropsSendingLittleMoreThanItsLength() throws Exception {
    long seed = TestSeeds.seed();
    TransportConfig dropping = MiniCluster.faulty(FaultInjection.builder()
        .dropAfterFileBytes(14L * MB).maxDrops(3).seed(seed).build());
    try (MiniCluster cluster = new MiniCluster(dir, seed, 1, MiniCluster.fastTransport(), dropping).start()) {
      Replica r = cluster.replica(0);
      long wireBefore = r.transport().faultStats().dropPointFileBytes();
      long newBytes = addLargeSegment(cluster, 64, seed);
      long version = cluster.primary().version();
      cluster.awaitReplicasAt(version, Duration.ofSeconds(150));

      long wire = r.transport().faultStats().dropPointFileBytes() - wireBefore;
      double ratio = (double) wire / newBytes;
      LOG.info("seed {}: {} bytes of new files arrived as {} bytes over {} drops: {} x; {}", seed, newBytes, wire,
          r.transport().faultStats().connectionsDropped(), String.format("%.3f", ratio), r.stats());
      assertThat(r.transport().faultStats().connectionsDropped()).as("seed %d", seed).isEqualTo(3);
      assertThat(r.stats().copyResumes()).as("seed %d: %s", seed, r.stats()).isGreaterThanOrEqualTo(3);
      assertThat(ratio).as("seed %d: bytes sent / bytes of the new files (%s)", seed, r.stats()).isLessThan(1.3);
      assertServesThePrimarysPoint(cluster, r, seed);
      await().atMost(Duration.ofSeconds(20)).until(() -> cluster.primary().copyStatesHeld() == 0);
      assertThat(cluster.primary().copyStateLeases().resumed()).as("seed %d", seed).isGreaterThanOrEqualTo(3);
      cluster.closeReplica(0);
      FaultToleranceTest.assertCheckIndexClean(cluster.dataDir(0).resolve("index"), seed);
    }
  }

  /** A slow link, so a copy of a few tens of MiB is cut while it runs. */
  private static TransportConfig slowLink(long seed) {
    return MiniCluster.faulty(FaultInjection.builder().throttleBytesPerSecond(8L * MB).seed(seed).build());
  }

  /** Cuts the replica off (retargeted at a dead address) once it has copied {@code bytes} of the big file. */
  private static void cutOffAfter(Replica r, long bytes) throws IOException {
    long start = r.stats().bytesCopied();
    await().atMost(Duration.ofSeconds(60)).until(() -> r.isCopying() && r.stats().bytesCopied() - start > bytes);
    r.setPrimary(deadAddress());
    await().atMost(Duration.ofSeconds(20)).until(() -> !r.isConnected());
  }

  @Test
  void anExpiredLeaseFallsBackToAFreshCopy() throws Exception {
    long seed = TestSeeds.seed();
    try (MiniCluster cluster = new MiniCluster(dir, seed, 1, MiniCluster.fastTransport(), slowLink(seed))) {
      cluster.startPrimary(cluster.primaryConfig().copyStateLease(Duration.ofMillis(300)).build());
      cluster.startReplicas();
      Replica r = cluster.replica(0);
      addLargeSegment(cluster, 24, seed);
      cutOffAfter(r, 2L * MB);
      await("the lease expired").atMost(Duration.ofSeconds(20))
          .until(() -> cluster.primary().copyStateLeases().expired() >= 1);
      r.setPrimary(cluster.primary().address());

      cluster.awaitReplicasAt(cluster.primary().version(), Duration.ofSeconds(120));
      assertThat(r.stats().resumesRefused()).as("seed %d: %s", seed, r.stats()).isGreaterThanOrEqualTo(1);
      assertServesThePrimarysPoint(cluster, r, seed);
      CopyStateLeaseCounts leases = cluster.primary().copyStateLeases();
      assertThat(leases.resumed()).as("seed %d: %s", seed, leases).isZero();
      await().atMost(Duration.ofSeconds(20)).until(() -> cluster.primary().copyStatesHeld() == 0);
      cluster.closeReplica(0);
      FaultToleranceTest.assertCheckIndexClean(cluster.dataDir(0).resolve("index"), seed);
    }
  }

  /** Flips one bit in the middle of the largest temp file of replica 0: the partly copied one. */
  private static void flipABitInThePartlyCopiedFile(MiniCluster cluster, long seed) throws IOException {
    Path partial;
    try (Stream<Path> files = Files.list(cluster.dataDir(0).resolve("index"))) {
      partial = files.filter(p -> p.getFileName().toString().endsWith(".tmp"))
          .max(Comparator.comparingLong(p -> p.toFile().length())).orElseThrow();
    }
    long size = Files.size(partial);
    assertThat(size).as("seed %d: the partly copied file", seed).isGreaterThan(MB);
    long at = size / 2;
    try (FileChannel ch = FileChannel.open(partial, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer one = ByteBuffer.allocate(1);
      ch.read(one, at);
      one.put(0, (byte) (one.get(0) ^ 0x10)).rewind();
      ch.write(one, at);
    }
    LOG.info("seed {}: flipped a bit at {} of {} ({} bytes on disk)", seed, at, partial.getFileName(), size);
  }

  /**
   * The resumed copy and the newer point's copy race after the reconnect (the newer one takes over
   * the partly copied file either from the resumed copy or from the one still waiting for its link):
   * either way the bit flipped on disk is caught and the newest point is reached.
   */
  @Test
  void aNewerPointPublishedWhileTheLinkIsDownIsReachedAndTheChangedBytesAreCaught() throws Exception {
    long seed = TestSeeds.seed();
    try (MiniCluster cluster = new MiniCluster(dir, seed, 1, MiniCluster.fastTransport(), slowLink(seed)).start()) {
      Replica r = cluster.replica(0);
      addLargeSegment(cluster, 24, seed);
      cutOffAfter(r, 4L * MB);
      flipABitInThePartlyCopiedFile(cluster, seed);
      long mismatchesBefore = r.stats().checksumMismatches();
      cluster.addDocs(50);
      long newest = cluster.refresh();
      r.setPrimary(cluster.primary().address());

      cluster.awaitReplicasAt(newest, Duration.ofSeconds(120));
      assertThat(r.stats().checksumMismatches()).as("seed %d: the changed bytes were caught (%s)", seed, r.stats())
          .isGreaterThan(mismatchesBefore);
      assertServesThePrimarysPoint(cluster, r, seed);
      await().atMost(Duration.ofSeconds(20)).until(() -> cluster.primary().copyStatesHeld() == 0);
      cluster.closeReplica(0);
      FaultToleranceTest.assertCheckIndexClean(cluster.dataDir(0).resolve("index"), seed);
    }
  }

  @Test
  void aPartlyCopiedFileChangedOnDiskWhileTheLinkWasDownIsFetchedAgain() throws Exception {
    long seed = TestSeeds.seed();
    try (MiniCluster cluster = new MiniCluster(dir, seed, 1, MiniCluster.fastTransport(), slowLink(seed)).start()) {
      Replica r = cluster.replica(0);
      addLargeSegment(cluster, 24, seed);
      cutOffAfter(r, 4L * MB);
      flipABitInThePartlyCopiedFile(cluster, seed);
      long mismatchesBefore = r.stats().checksumMismatches();
      r.setPrimary(cluster.primary().address());

      cluster.awaitReplicasAt(cluster.primary().version(), Duration.ofSeconds(120));
      assertThat(r.stats().copyResumes()).as("seed %d: %s", seed, r.stats()).isGreaterThanOrEqualTo(1);
      assertThat(r.stats().checksumMismatches()).as("seed %d: the changed bytes were caught", seed)
          .isGreaterThan(mismatchesBefore);
      assertThat(r.stats().bytesDiscarded()).as("seed %d", seed).isGreaterThan(0);
      assertServesThePrimarysPoint(cluster, r, seed);
      cluster.closeReplica(0);
      FaultToleranceTest.assertCheckIndexClean(cluster.dataDir(0).resolve("index"), seed);
    }
  }
}

package io.nrtcluster.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.common.IndexUnavailableException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Bits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A byte flipped on a replica's disk, from outside the process as bit rot or a stray write would:
 * found at start or by the scrub, quarantined, copied again, and never read by a search afterwards.
 */
@Timeout(180)
class LocalCorruptionTest {
  @TempDir Path dir;

  @Test
  void aByteFlippedOnAStoppedReplicaIsFoundAtStartQuarantinedAndCopiedAgain() throws Exception {
    long seed = TestSeeds.seed();
    Random random = new Random(seed);
    try (MiniCluster cluster = new MiniCluster(dir, seed, 1, MiniCluster.fastTransport(), MiniCluster.fastTransport())
        .replicaScrub(0, ScrubConfig.off()).start()) {
      cluster.addDocs(20_000);
      cluster.awaitAllAt(cluster.refresh());
      cluster.closeReplica(0);
      Path index = cluster.dataDir(0).resolve("index");
      String flipped = flipInLargestFile(index, random);

      cluster.reopenReplica(0);
      Replica r = cluster.replica(0);
      assertThat(r.stats().corruptFilesAtStart()).as("seed %d: found at start", seed).isEqualTo(1);
      assertThat(r.stats().quarantinedFiles()).as("the file and its commit point").isEqualTo(2);
      try (Stream<Path> q = Files.list(cluster.dataDir(0).resolve(FileIntegrity.QUARANTINE_DIR))) {
        assertThat(q.map(p -> p.getFileName().toString())).anyMatch(n -> n.startsWith(flipped + "."));
      }
      cluster.addDocs(10);
      long version = cluster.refresh();
      cluster.awaitAllAt(version);
      await("repaired").atMost(MiniCluster.TIMEOUT).until(() -> r.corruptFiles().isEmpty());
      assertThat(allDocs(r)).as("seed %d: every document as on the primary", seed).isEqualTo(primaryDocs(cluster));
      assertIntact(index, flipped);

      // Nothing changed: the record vouches for every file, only the commit point written at close is read.
      long indexBytes = RestartTest.sizeOf(index);
      Replica again = cluster.restartReplica(0);
      assertThat(again.stats().corruptFilesAtStart()).isZero();
      assertThat(again.stats().bytesVerified()).as("seed %d: an unchanged index is not read again (%d bytes)", seed, indexBytes)
          .isLessThan(indexBytes / 100);
      assertThat(allDocs(again)).isEqualTo(primaryDocs(cluster));
    }
  }

  /**
   * Issue 26: bit rot changes no timestamp, and a replica that did not stop cleanly cannot vouch for
   * the record of verified files it left: it verifies every file at start, before it serves. The
   * record here is as a killed process leaves it (the replica stopped without its clean close; the
   * record's session is another process's), and one bit flips with the file's timestamps put back.
   * A clean stop keeps trusting the record (the restart in the test above reads almost nothing).
   */
  @Test
  void aFlipWithItsTimestampsKeptOnAReplicaThatDidNotStopCleanlyIsFoundAtStart() throws Exception {
    long seed = TestSeeds.seed();
    Random random = new Random(seed);
    try (MiniCluster cluster = new MiniCluster(dir, seed, 1, MiniCluster.fastTransport(), MiniCluster.fastTransport())
        .replicaScrub(0, ScrubConfig.off()).start()) {
      cluster.addDocs(20_000);
      cluster.awaitAllAt(cluster.refresh());
      Replica r = cluster.replica(0);
      r.commit();
      r.closeWithoutCommit();
      leftByAnotherProcess(cluster.dataDir(0));
      Path index = cluster.dataDir(0).resolve("index");
      Path largest;
      try (Stream<Path> files = Files.list(index)) {
        largest = files.filter(p -> !p.getFileName().toString().equals("write.lock"))
            .max(Comparator.comparingLong(p -> p.toFile().length())).orElseThrow();
      }
      BasicFileAttributes before = Files.readAttributes(largest, BasicFileAttributes.class);
      String flipped = flipIn(index, random, name -> name.equals(largest.getFileName().toString()));
      Files.getFileAttributeView(largest, BasicFileAttributeView.class)
          .setTimes(before.lastModifiedTime(), before.lastAccessTime(), before.creationTime());
      long indexBytes = RestartTest.sizeOf(index);

      cluster.reopenReplica(0);
      Replica again = cluster.replica(0);
      assertThat(again.stats().corruptFilesAtStart()).as("seed %d: %s found at start", seed, flipped).isEqualTo(1);
      assertThat(again.stats().bytesVerified()).as("seed %d: every file read again", seed).isGreaterThan(indexBytes / 2);
      try (Stream<Path> q = Files.list(cluster.dataDir(0).resolve(FileIntegrity.QUARANTINE_DIR))) {
        assertThat(q.map(p -> p.getFileName().toString())).anyMatch(n -> n.startsWith(flipped + "."));
      }
      cluster.addDocs(10);
      cluster.awaitAllAt(cluster.refresh());
      await("repaired").atMost(MiniCluster.TIMEOUT).until(() -> again.corruptFiles().isEmpty());
      assertThat(allDocs(again)).as("seed %d: every document as on the primary", seed).isEqualTo(primaryDocs(cluster));
    }
  }

  /**
   * Makes the record of verified files in {@code dataDir} look as a killed process of another run
   * leaves it: its session line names that process and says it never stopped cleanly.
   */
  private static void leftByAnotherProcess(Path dataDir) throws IOException {
    Path record = dataDir.resolve(FileIntegrity.RECORD_FILE);
    List<String> lines = new java.util.ArrayList<>(Files.readAllLines(record));
    lines.removeIf(l -> l.startsWith("S "));
    lines.add("S another-process open");
    Files.write(record, lines);
  }

  /**
   * Lucene reads every segment's {@code .si} file while it reads the commit itself, so a flip there
   * fails the commit before its file list is known: the damaged {@code .si} file is still the one
   * quarantined (a chaos run saw only the commit's segments file moved aside).
   */
  @Test
  void aByteFlippedInASegmentInfoFileIsQuarantinedByName() throws Exception {
    long seed = TestSeeds.seed();
    Random random = new Random(seed);
    try (MiniCluster cluster = new MiniCluster(dir, seed, 1, MiniCluster.fastTransport(), MiniCluster.fastTransport())
        .replicaScrub(0, ScrubConfig.off()).start()) {
      cluster.addDocs(2_000);
      cluster.awaitAllAt(cluster.refresh());
      cluster.closeReplica(0);
      Path index = cluster.dataDir(0).resolve("index");
      String flipped = flipIn(index, random, name -> name.endsWith(".si"));

      cluster.reopenReplica(0);
      Replica r = cluster.replica(0);
      try (Stream<Path> q = Files.list(cluster.dataDir(0).resolve(FileIntegrity.QUARANTINE_DIR))) {
        assertThat(q.map(p -> p.getFileName().toString())).as("seed %d", seed).anyMatch(n -> n.startsWith(flipped + "."));
      }
      cluster.addDocs(10);
      cluster.awaitAllAt(cluster.refresh());
      await("repaired").atMost(MiniCluster.TIMEOUT).until(() -> r.corruptFiles().isEmpty());
      assertThat(allDocs(r)).as("seed %d: every document as on the primary", seed).isEqualTo(primaryDocs(cluster));
    }
  }

  @Test
  void aReplicaThatCannotReplaceACorruptFileServesNothingAndNamesIt() throws Exception {
    long seed = TestSeeds.seed();
    Random random = new Random(seed);
    try (MiniCluster cluster = new MiniCluster(dir, seed, 1, MiniCluster.fastTransport(), MiniCluster.fastTransport())
        .replicaScrub(0, ScrubConfig.off()).start()) {
      cluster.addDocs(5_000);
      cluster.awaitAllAt(cluster.refresh());
      cluster.closeReplica(0);
      cluster.primary().commit();
      cluster.primary().close();
      String flipped = flipInLargestFile(cluster.dataDir(0).resolve("index"), random);

      cluster.reopenReplica(0);
      Replica r = cluster.replica(0);
      assertThat(r.corruptFiles()).as("seed %d", seed).containsExactly(flipped);
      assertThat(r.searchingVersion()).isEqualTo(-1);
      assertThatThrownBy(r::acquireSearcher).isInstanceOf(IndexUnavailableException.class).hasMessageContaining(flipped);

      // Still named after a restart: the set is durable.
      Replica again = cluster.restartReplica(0);
      assertThat(again.corruptFiles()).containsExactly(flipped);

      cluster.startPrimary();
      cluster.addDocs(10);
      cluster.awaitAllAt(cluster.refresh());
      await("repaired").atMost(MiniCluster.TIMEOUT).until(() -> again.corruptFiles().isEmpty());
      assertThat(allDocs(again)).as("seed %d", seed).isEqualTo(primaryDocs(cluster));
    }
  }

  @Test
  void aByteFlippedOnARunningReplicaIsFoundByTheScrubAndCopiedAgain() throws Exception {
    long seed = TestSeeds.seed();
    Random random = new Random(seed);
    try (MiniCluster cluster = new MiniCluster(dir, seed, 1, MiniCluster.fastTransport(), MiniCluster.fastTransport())
        .replicaScrub(0, ScrubConfig.builder().bytesPerSecond(256L << 20).interval(Duration.ofMillis(200)).build())
        .start()) {
      cluster.addDocs(20_000);
      cluster.awaitAllAt(cluster.refresh());
      Replica r = cluster.replica(0);
      Path index = cluster.dataDir(0).resolve("index");
      await("a clean scrub pass").atMost(MiniCluster.TIMEOUT).until(() -> r.stats().bytesVerified() > 0);
      String flipped = flipInLargestFile(index, random);

      await("found by the scrub").atMost(MiniCluster.TIMEOUT).until(() -> r.stats().corruptFilesByScrub() == 1);
      cluster.addDocs(10);
      long version = cluster.refresh();
      cluster.awaitAllAt(version);
      await("repaired").atMost(MiniCluster.TIMEOUT).until(() -> r.corruptFiles().isEmpty());
      assertThat(r.stats().corruptFilesAtStart()).as("counted once, by the scrub").isZero();
      assertThat(allDocs(r)).as("seed %d: every document as on the primary", seed).isEqualTo(primaryDocs(cluster));
      assertIntact(index, flipped);
    }
  }

  /**
   * Cost of the check at start: verifies a ~{@code nrt.verify.bench.mb} MB index (default 300) and
   * prints MiB/s and seconds per GiB. Run by hand: {@code -Dtest=LocalCorruptionTest#verificationCost
   * -Dnrt.verify.bench=true}.
   */
  @Test
  void verificationCost() throws Exception {
    if (!Boolean.getBoolean("nrt.verify.bench")) {
      return;
    }
    long targetBytes = Long.getLong("nrt.verify.bench.mb", 300) << 20;
    Path index = dir.resolve("bench");
    Random random = new Random(42);
    try (Directory d = FSDirectory.open(index);
        org.apache.lucene.index.IndexWriter w = new org.apache.lucene.index.IndexWriter(d,
            new org.apache.lucene.index.IndexWriterConfig(new org.apache.lucene.analysis.standard.StandardAnalyzer()))) {
      while (RestartTest.sizeOf(index) < targetBytes) {
        for (int i = 0; i < 20_000; i++) {
          org.apache.lucene.document.Document doc = new org.apache.lucene.document.Document();
          StringBuilder b = new StringBuilder();
          for (int k = 0; k < 80; k++) {
            b.append(Long.toString(random.nextLong(), 36)).append(' ');
          }
          doc.add(new org.apache.lucene.document.TextField("body", b.toString(), org.apache.lucene.document.Field.Store.YES));
          w.addDocument(doc);
        }
        w.commit();
      }
    }
    VerifiedFiles record = VerifiedFiles.open(dir.resolve("verified.files"));
    io.nrtcluster.common.NodeLog log = new io.nrtcluster.common.NodeLog(org.slf4j.LoggerFactory.getLogger(getClass()), "bench", () -> -1);
    LocalFileVerifier.Result cold = new LocalFileVerifier(index, dir.resolve("q"), record, log).verifyLastCommit();
    Files.delete(dir.resolve("verified.files"));
    LocalFileVerifier.Result warm = new LocalFileVerifier(index, dir.resolve("q"), VerifiedFiles.open(dir.resolve("verified.files")), log)
        .verifyLastCommit();
    LocalFileVerifier.Result recorded = new LocalFileVerifier(index, dir.resolve("q"), VerifiedFiles.open(dir.resolve("verified.files")), log)
        .verifyLastCommit();
    for (var e : Map.of("first read", cold, "page cache warm", warm, "recorded", recorded).entrySet()) {
      LocalFileVerifier.Result r = e.getValue();
      double gib = r.bytesRead() / (double) (1L << 30);
      System.out.printf("verification cost (%s): %d files, %.1f MiB in %d ms = %.0f MiB/s, %.2f s per GiB%n", e.getKey(),
          r.filesRead(), r.bytesRead() / 1048576.0, r.nanos() / 1_000_000, r.bytesRead() / 1048576.0 / (r.nanos() / 1e9),
          gib == 0 ? 0 : r.nanos() / 1e9 / gib);
    }
    assertThat(recorded.bytesRead()).isZero();
  }

  /** Flips one byte in the middle of the largest file of {@code index} (the stored fields, mostly); returns its name. */
  private static String flipInLargestFile(Path index, Random random) throws IOException {
    return flipIn(index, random, name -> true);
  }

  /** Flips one bit in the middle half of the largest file of {@code index} whose name passes {@code which}. */
  private static String flipIn(Path index, Random random, java.util.function.Predicate<String> which) throws IOException {
    Path largest;
    try (Stream<Path> files = Files.list(index)) {
      largest = files.filter(p -> !p.getFileName().toString().equals("write.lock") && which.test(p.getFileName().toString()))
          .max(Comparator.comparingLong(p -> p.toFile().length())).orElseThrow();
    }
    long length = Files.size(largest);
    long at = length / 4 + random.nextLong(length / 2);
    try (FileChannel ch = FileChannel.open(largest, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(1);
      ch.read(b, at);
      b.put(0, (byte) (b.get(0) ^ (1 << random.nextInt(8))));
      b.rewind();
      ch.write(b, at);
    }
    return largest.getFileName().toString();
  }

  /** The file named {@code name} in {@code index}, if there, passes its whole checksum. */
  private static void assertIntact(Path index, String name) throws IOException {
    if (!Files.exists(index.resolve(name))) {
      return;
    }
    try (Directory d = FSDirectory.open(index); IndexInput in = d.openInput(name, IOContext.READONCE)) {
      CodecUtil.checksumEntireFile(in);
    }
  }

  private static Map<String, String> primaryDocs(MiniCluster cluster) throws IOException {
    IndexSearcher s = cluster.primary().acquireSearcher();
    try {
      return docs(s);
    } finally {
      cluster.primary().releaseSearcher(s);
    }
  }

  private static Map<String, String> allDocs(Replica r) throws IOException {
    IndexSearcher s = r.acquireSearcher();
    try {
      return docs(s);
    } finally {
      r.releaseSearcher(s);
    }
  }

  /** Every live document's id and stored body: reads every stored field of the index. */
  private static Map<String, String> docs(IndexSearcher s) throws IOException {
    Map<String, String> out = new HashMap<>();
    for (LeafReaderContext ctx : s.getIndexReader().leaves()) {
      LeafReader leaf = ctx.reader();
      Bits live = leaf.getLiveDocs();
      StoredFields fields = leaf.storedFields();
      for (int i = 0; i < leaf.maxDoc(); i++) {
        if (live == null || live.get(i)) {
          var d = fields.document(i);
          out.put(d.get("id"), d.get("body"));
        }
      }
    }
    return out;
  }
}

package io.nrtcluster.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nrtcluster.common.CorruptIndexReadException;
import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.election.Role;
import io.nrtcluster.election.StepDownReason;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.util.BytesRef;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bit rot in a running node's stored fields, found by a read (issue 26): one byte of a stored-fields
 * file flips with its timestamps put back, as real rot leaves them. Every read of an affected
 * document through the library (its checked stored fields, or the application's report that a
 * stored source does not decode) gets the typed, retryable {@link CorruptIndexReadException}; the
 * node checks the segment at once and finds the file corrupt: a replica quarantines it and copies
 * it again, then reads every document intact; a primary steps down (a tragic event) and the other
 * node leads. Before, the read failed with whatever the codec threw (an {@code
 * ArrayIndexOutOfBoundsException} in the service's 500), and nothing noticed the file.
 */
@Timeout(180)
class UnreadableReadTest {
  private static final int DOCS = 20_000;
  private static final String SOURCE = "source";
  private static final Duration FOUND_WITHIN = Duration.ofSeconds(20);

  @TempDir Path dir;

  @BeforeEach
  void mergeThreadsMayFail() {
    // A primary's writer closes after the tragic event; its threads may end with exceptions.
    Awaitility.doNotCatchUncaughtExceptionsByDefault();
  }

  @AfterEach
  void resetAwaitility() {
    Awaitility.reset();
  }

  @Test
  void aReplicaQuarantinesTheRottenFileFoundByAReadAndCopiesItAgain() throws Exception {
    long seed = FailoverTest.seed();
    System.out.println("UnreadableReadTest replica seed " + seed);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (ClusterHarness c = cluster(seed).meters(1, registry).startWithFirstAsPrimary()) {
      long version = indexAndCommit(c, seed);
      ClusterNode replica = c.node(1);
      String flipped = flipInStoredFields(indexDir(c, 1), new Random(seed));

      int affected = readAll(replica, seed);
      assertThat(affected).as("seed %d: reads that hit the flipped byte", seed).isPositive();

      Path quarantine = c.root().resolve("n2").resolve(ClusterHarness.INDEX).resolve("quarantine");
      await("seed " + seed + ": " + flipped + " found corrupt and quarantined").atMost(FOUND_WITHIN)
          .until(() -> quarantined(quarantine, flipped));
      await("seed " + seed + ": copied again, every document intact").atMost(ClusterHarness.TIMEOUT)
          .ignoreExceptions().until(() -> replica.searchingVersion() >= version && readAll(replica, seed) == 0);
      assertThat(replica.integrity().corruptFiles()).isEmpty();
      assertThat(replica.role()).isEqualTo(Role.REPLICA);
      assertThat(registry.get(NrtMeters.UNREADABLE_READS).counter().count()).as("seed %d", seed).isGreaterThanOrEqualTo(1);
      assertThat(registry.get(NrtMeters.CORRUPT_FILES_FOUND).tag(NrtMeters.TAG_FOUND_BY, "read").counter().count())
          .as("seed %d: counted once per file", seed).isEqualTo(1);
    }
  }

  @Test
  void aPrimaryWhoseReadFindsARottenFileStepsDownAndIsNotElectedWhileItHoldsIt() throws Exception {
    long seed = FailoverTest.seed();
    System.out.println("UnreadableReadTest primary seed " + seed);
    try (ClusterHarness c = cluster(seed).startWithFirstAsPrimary()) {
      long version = indexAndCommit(c, seed);
      ClusterNode old = c.node(0);
      String flipped = flipInStoredFields(indexDir(c, 0), new Random(seed));

      int affected = readAll(old, seed);
      assertThat(affected).as("seed %d: reads that hit the flipped byte", seed).isPositive();

      await("seed " + seed + ": the primary steps down for the corrupt file").atMost(FOUND_WITHIN)
          .until(() -> old.status().lastStepDown() != null);
      assertThat(old.status().lastStepDown().reason()).isEqualTo(StepDownReason.CORRUPT_INDEX);
      assertThat(c.awaitPrimary()).as("seed %d: the other node leads", seed).isEqualTo(1);
      Path quarantine = c.root().resolve("n1").resolve(ClusterHarness.INDEX).resolve("quarantine");
      await("seed " + seed + ": " + flipped + " quarantined once it is a replica").atMost(FOUND_WITHIN)
          .until(() -> quarantined(quarantine, flipped));
      await("seed " + seed + ": copied from the new primary, every document intact").atMost(ClusterHarness.TIMEOUT)
          .ignoreExceptions().until(() -> old.role() == Role.REPLICA && old.searchingVersion() >= version
              && old.integrity().corruptFiles().isEmpty() && readAll(old, seed) == 0);
      assertThat(c.node(1).isWritablePrimary()).isTrue();
    }
  }

  private ClusterHarness cluster(long seed) throws Exception {
    // Separate files and no merges: the flipped .fdt stays searched (a merge would replace it, which
    // is how the observed node became correct again).
    return new ClusterHarness(dir, seed, 2).indexOpener((node, host, names) -> {
      for (String index : names) {
        host.openIndex(new IndexSettings(index, () -> new IndexWriterConfig(new StandardAnalyzer())
            .setUseCompoundFile(false).setMergePolicy(NoMergePolicy.INSTANCE).setMaxFullFlushMergeWaitMillis(0)));
      }
    });
  }

  /** {@link #DOCS} documents with a JSON source, refreshed, on every node, committed everywhere. */
  private static long indexAndCommit(ClusterHarness c, long seed) throws IOException {
    ClusterNode primary = c.node(0);
    for (int id = 0; id < DOCS; id++) {
      Document d = new Document();
      d.add(new StringField("id", Integer.toString(id), Field.Store.YES));
      d.add(new TextField("body", "doc " + id, Field.Store.NO));
      d.add(new StoredField(SOURCE, new BytesRef(source(seed, id).getBytes(StandardCharsets.UTF_8))));
      primary.addDocument(d);
    }
    long version = primary.refresh();
    c.awaitAllAt(version);
    primary.commit();
    c.node(1).commit();
    return version;
  }

  private static String source(long seed, int id) {
    Random r = new Random(seed * 31 + id);
    StringBuilder text = new StringBuilder();
    for (int w = 0; w < 8; w++) {
      text.append(ClusterHarness.WORDS[r.nextInt(ClusterHarness.WORDS.length)]).append(' ');
    }
    return "{\"id\":" + id + ",\"text\":\"" + text.toString().trim() + "\"}";
  }

  /**
   * Reads every document as an application does: through the node's stored fields, reporting a
   * source that is not the one written (what rot in compressed stored fields usually yields) through
   * {@link ClusterNode#reportUnreadable}. Returns how many reads ended in the typed error; any other
   * failure fails the test.
   */
  private static int readAll(ClusterNode node, long seed) throws IOException {
    IndexSearcher s = node.acquireSearcher();
    int failed = 0;
    try {
      StoredFields stored = node.storedFields(s);
      Set<String> seen = new HashSet<>();
      for (int doc = 0; doc < s.getIndexReader().maxDoc(); doc++) {
        CorruptIndexReadException error;
        try {
          Document d = stored.document(doc);
          String id = d.get("id");
          BytesRef b = d.getBinaryValue(SOURCE);
          String src = b == null ? null : new String(b.bytes, b.offset, b.length, StandardCharsets.UTF_8);
          if (id != null && id.matches("[0-9]{1,9}") && seen.add(id) && source(seed, Integer.parseInt(id)).equals(src)) {
            continue;
          }
          error = node.reportUnreadable(s, doc, new IllegalStateException("stored source of doc " + doc + " does not decode"));
        } catch (CorruptIndexReadException e) {
          error = e;
        }
        assertThat(error.code()).isEqualTo(ErrorCode.CORRUPT_INDEX_READ);
        assertThat(error.getCause()).isNotNull();
        failed++;
      }
    } finally {
      node.releaseSearcher(s);
    }
    return failed;
  }

  private static Path indexDir(ClusterHarness c, int node) {
    return c.root().resolve("n" + (node + 1)).resolve(ClusterHarness.INDEX).resolve("index");
  }

  /** Flips one bit of a byte inside the largest stored-fields data file, and puts its timestamps back. */
  static String flipInStoredFields(Path index, Random random) throws IOException {
    Path fdt;
    try (Stream<Path> files = Files.list(index)) {
      fdt = files.filter(p -> p.getFileName().toString().endsWith(".fdt"))
          .max(Comparator.comparingLong(p -> p.toFile().length())).orElseThrow();
    }
    FileTime modified = Files.getLastModifiedTime(fdt);
    long length = Files.size(fdt);
    long at = length / 4 + random.nextLong(length / 2);
    try (FileChannel ch = FileChannel.open(fdt, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(1);
      ch.read(b, at);
      b.put(0, (byte) (b.get(0) ^ (1 << random.nextInt(8))));
      b.rewind();
      ch.write(b, at);
      ch.force(true);
    }
    Files.setLastModifiedTime(fdt, modified);
    System.out.printf("flipped a bit at %d of %s (%d bytes)%n", at, fdt, length);
    return fdt.getFileName().toString();
  }

  private static boolean quarantined(Path quarantine, String name) throws IOException {
    if (!Files.isDirectory(quarantine)) {
      return false;
    }
    List<String> names = new ArrayList<>();
    try (Stream<Path> files = Files.list(quarantine)) {
      files.forEach(p -> names.add(p.getFileName().toString()));
    }
    return names.stream().anyMatch(n -> n.startsWith(name + "."));
  }
}

package io.nrtcluster.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.WriterLostException;
import io.nrtcluster.election.MemberInfo;
import io.nrtcluster.election.Role;
import io.nrtcluster.election.StepDownReason;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.IndexWriter;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A primary whose Lucene writer is lost (a tragic event) refuses writes with a typed error, gives its
 * epoch up to the other node, and rejoins as its replica; no acknowledged write is lost.
 */
@Timeout(180)
class TragicStepDownTest {
  @TempDir Path dir;

  @BeforeEach
  void mergeThreadsMayFail() {
    // A merge that reads the corrupt segment ends its merge thread with an uncaught exception, on
    // purpose; Awaitility would otherwise fail whichever wait is running at that moment.
    Awaitility.doNotCatchUncaughtExceptionsByDefault();
  }

  @AfterEach
  void resetAwaitility() {
    Awaitility.reset();
  }

  static long seed() {
    String s = System.getProperty("nrt.test.seed");
    return s == null || s.isBlank() ? System.nanoTime() : Long.parseLong(s);
  }

  /** Something that makes the primary's writer tragic. */
  interface Fault {
    void inflict(ClusterHarness c, ClusterNode primary) throws Exception;
  }

  @Test
  void aTragicEventReportedThroughOnTragicEventStepsThePrimaryDown() throws Exception {
    stepsDown((c, primary) -> {
      IndexWriter w = primary.primary().writer();
      w.onTragicEvent(new CorruptIndexException("bad checksum reported by a replica", "_0.cfs"), "test");
      assertThat(w.getTragicException()).isInstanceOf(CorruptIndexException.class);
    });
  }

  @Test
  void aTragicEventIsNoticedWithoutAnyWriteAndTheRefusalNamesItsCause() throws Exception {
    long seed = seed();
    try (ClusterHarness c = new ClusterHarness(dir, seed, 2).startWithFirstAsPrimary()) {
      ClusterNode old = c.node(0);
      c.addDocs(old, 50);
      c.awaitAllAt(old.refresh());
      CorruptIndexException tragedy = new CorruptIndexException("bad checksum reported by a replica", "_0.cfs");
      old.primary().writer().onTragicEvent(tragedy, "test");
      // Nothing writes: the periodic look alone hands the epoch over.
      assertThat(c.awaitPrimary()).as("seed %d", seed).isEqualTo(1);
      assertThat(old.status().lastStepDown().reason()).isEqualTo(StepDownReason.CORRUPT_INDEX);
      assertThat(old.status().lastStepDown().message()).contains("bad checksum reported by a replica");
    }
  }

  @Test
  void theFailedWriteItselfGetsTheTypedErrorWithLucenesExceptionAsItsCause() throws Exception {
    long seed = seed();
    try (ClusterHarness c = new ClusterHarness(dir, seed, 2).startWithFirstAsPrimary()) {
      ClusterNode old = c.node(0);
      CorruptIndexException tragedy = new CorruptIndexException("bad checksum reported by a replica", "_0.cfs");
      old.primary().writer().onTragicEvent(tragedy, "test");
      assertThatThrownBy(() -> old.addDocument(c.doc(1))).isInstanceOfSatisfying(WriterLostException.class, e -> {
        assertThat(e.code()).isEqualTo(io.nrtcluster.common.ErrorCode.WRITER_LOST);
        assertThat(e.getCause()).isSameAs(tragedy);
      });
    }
  }

  @Test
  void aCorruptSegmentReadByAMergeStepsThePrimaryDown() throws Exception {
    stepsDown((c, primary) -> {
      Path index = c.root().resolve("n1").resolve(ClusterHarness.INDEX).resolve("index");
      Path victim = largestSegmentFile(index);
      flipMiddleByte(victim);
      // The merge reads the corrupt file; Lucene then closes the writer for good.
      assertThatThrownBy(() -> primary.primary().writer().forceMerge(1)).as("merging %s", victim).isInstanceOf(Exception.class);
      IndexWriter w = primary.primary().writer();
      // The merge thread records the tragedy; forceMerge may return to us a moment before.
      await("the writer's tragic exception").atMost(Duration.ofSeconds(10)).until(() -> w.getTragicException() != null);
    });
  }

  private void stepsDown(Fault fault) throws Exception {
    long seed = seed();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (ClusterHarness c = new ClusterHarness(dir, seed, 2).meters(0, registry).startWithFirstAsPrimary()) {
      ClusterNode old = c.node(0);
      List<Integer> acked = new ArrayList<>();
      long v = 0;
      for (int batch = 0; batch < 3; batch++) {
        for (int k = 0; k < 200; k++) {
          int id = batch * 200 + k;
          old.addDocument(c.doc(id));
          acked.add(id);
        }
        v = old.refresh("batch-" + batch);
      }
      c.awaitAllAt(v);
      long oldGen = old.primaryGen();

      fault.inflict(c, old);
      long lostAt = System.nanoTime();
      // Refused at once, with the typed error naming the cause (never a "retry" refusal).
      assertThatThrownBy(() -> old.addDocument(c.doc(100_000)))
          .as("seed %d", seed)
          .isInstanceOfSatisfying(WriterLostException.class, e -> assertThat(e.getMessage()).contains("CORRUPT_INDEX"));
      assertThat(old.isWritablePrimary()).isFalse();

      // The other node takes the epoch and acknowledges writes.
      int np = c.awaitPrimary();
      assertThat(np).as("seed %d: the replica takes over", seed).isEqualTo(1);
      ClusterNode fresh = c.node(1);
      assertThat(fresh.primaryGen()).isGreaterThan(oldGen);
      fresh.addDocument(c.doc(1000));
      long v2 = fresh.refresh("after");
      long tookMillis = (System.nanoTime() - lostAt) / 1_000_000;
      System.out.printf("seed %d: tragic event to the new primary's first acknowledged write: %d ms%n", seed, tookMillis);
      acked.add(1000);
      c.assertAllSearchable(fresh, acked);

      // The old node rejoins as a replica of the new primary and converges.
      await("N1 replicates N2 (seed " + seed + ")").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
          .until(() -> old.role() == Role.REPLICA && ClusterHarness.view(old).version() >= v2);
      c.assertSameHits(v2);
      assertThat(ClusterHarness.count(old)).isEqualTo(acked.size());

      // Status, on the node and as every operator sees it (the member record behind `nrt status`).
      NodeStatus st = old.status();
      assertThat(st.lastStepDown()).isNotNull();
      assertThat(st.lastStepDown().reason()).isEqualTo(StepDownReason.CORRUPT_INDEX);
      assertThat(st.lastStepDown().message()).contains("CorruptIndexException");
      await("N1 a candidate again").atMost(Duration.ofSeconds(30)).until(() -> old.status().candidate());
      await("N1's member record shows the step-down").atMost(Duration.ofSeconds(10)).until(() ->
          fresh.members().stream().filter(m -> m.nodeId() == 1).map(MemberInfo::lastStepDown)
              .anyMatch(s -> s != null && s.reason() == StepDownReason.CORRUPT_INDEX));
      assertThat(registry.get(NrtMeters.WRITER_LOST).tag(NrtMeters.TAG_REASON, "CORRUPT_INDEX").counter().count()).isEqualTo(1.0);

      // A write on the old node now names the new primary.
      assertThatThrownBy(() -> old.addDocument(c.doc(100_001))).isInstanceOf(NrtClusterException.class)
          .hasMessageContaining(c.host(1).address().toString());
    }
  }

  static Path largestSegmentFile(Path index) throws IOException {
    try (Stream<Path> files = Files.list(index)) {
      return files.filter(p -> p.getFileName().toString().startsWith("_"))
          .max(Comparator.comparingLong(p -> p.toFile().length())).orElseThrow();
    }
  }

  static void flipMiddleByte(Path file) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      long at = ch.size() / 2;
      ByteBuffer b = ByteBuffer.allocate(1);
      ch.read(b, at);
      b.flip();
      byte flipped = (byte) (b.get(0) ^ 0x5a);
      ch.write(ByteBuffer.wrap(new byte[] {flipped}), at);
      ch.force(true);
    }
  }
}

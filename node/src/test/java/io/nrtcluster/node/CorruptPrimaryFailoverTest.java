package io.nrtcluster.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.election.Role;
import io.nrtcluster.election.StepDownReason;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end, as on a real disk: a segment file rots on the primary's disk after one replica copied
 * it cleanly. A new replica catches the bad checksum in transit, reports the file, the primary
 * verifies its own copy, finds it corrupt, loses its writer on purpose and steps down; the clean
 * replica takes over, and every node converges on it with every acknowledged document.
 */
@Timeout(180)
class CorruptPrimaryFailoverTest {
  @TempDir Path dir;

  @BeforeEach
  void mergeThreadsMayFail() {
    Awaitility.doNotCatchUncaughtExceptionsByDefault();
  }

  @AfterEach
  void resetAwaitility() {
    Awaitility.reset();
  }

  @Test
  void aReportedCorruptPrimaryFileHandsTheEpochToTheCleanReplica() throws Exception {
    long seed = TragicStepDownTest.seed();
    try (ClusterHarness c = new ClusterHarness(dir, seed, 3)) {
      c.start(0);
      assertThat(c.awaitPrimary()).isZero();
      c.start(1);
      ClusterNode primary = c.node(0);
      List<Integer> acked = new ArrayList<>();
      for (int id = 0; id < 2_000; id++) {
        primary.addDocument(c.doc(id));
        acked.add(id);
      }
      long v = primary.refresh("all");
      c.awaitAllAt(v);

      // Bit rot on the primary's disk, after node 2 copied the file intact.
      Path index = c.root().resolve("n1").resolve(ClusterHarness.INDEX).resolve("index");
      Path victim = TragicStepDownTest.largestSegmentFile(index);
      TragicStepDownTest.flipMiddleByte(victim);

      // A new replica must copy that file: it fails its checksum in transit, is reported, and the
      // primary's own verification finds it corrupt.
      c.start(2);
      await("the primary's writer is lost (seed " + seed + ")").atMost(Duration.ofSeconds(60))
          .until(() -> primary.status().lastStepDown() != null);
      assertThat(primary.status().lastStepDown().reason()).as("seed %d", seed).isEqualTo(StepDownReason.CORRUPT_INDEX);
      assertThat(primary.status().lastStepDown().message()).contains(victim.getFileName().toString());

      assertThat(c.awaitPrimary()).as("seed %d: the clean replica takes over", seed).isEqualTo(1);
      ClusterNode next = c.node(1);
      next.addDocument(c.doc(10_000));
      acked.add(10_000);
      long v2 = next.refresh("after");
      c.assertAllSearchable(next, acked);
      await("every node on the new primary (seed " + seed + ")").atMost(Duration.ofSeconds(90)).until(() ->
          primary.role() == Role.REPLICA && ClusterHarness.view(primary).version() >= v2
              && ClusterHarness.view(c.node(2)).version() >= v2);
      c.assertSameHits(v2);
      assertThat(ClusterHarness.count(c.node(2))).isEqualTo(acked.size());
      assertThat(ClusterHarness.count(primary)).isEqualTo(acked.size());
    }
  }

}

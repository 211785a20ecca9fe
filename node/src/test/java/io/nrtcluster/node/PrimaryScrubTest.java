package io.nrtcluster.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.election.Role;
import io.nrtcluster.election.StepDownReason;
import io.nrtcluster.replica.ScrubConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bit rot on a running primary's disk that no replica will ever read (they copied the file before it
 * rotted): only the primary's own scrub can find it. Found, it is a tragic event of the writer, as
 * when a replica reports it: the primary steps down, a clean replica takes over, and the old primary
 * reopens as a replica whose check at start reads the file again (although it was recorded as
 * verified when it was copied, and its modification time is unchanged), so it names the file and
 * may not lead until a copy replaced it.
 */
@Timeout(150)
class PrimaryScrubTest {
  private static final ScrubConfig FAST = ScrubConfig.builder().bytesPerSecond(64L << 20).interval(Duration.ofMillis(300)).build();

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
  void aByteFlippedOnARunningPrimaryIsFoundByItsScrubAndStepsItDown() throws Exception {
    long seed = TragicStepDownTest.seed();
    try (ClusterHarness c = new ClusterHarness(dir, seed, 3)
        .configureAll(b -> b.replicaTuning(ReplicaTuning.builder().scrub(FAST).build()))) {
      c.startWithFirstAsPrimary();
      c.addDocs(c.node(0), 3_000);
      long v = c.node(0).refresh();
      c.node(0).commit();
      c.awaitAllAt(v);
      c.awaitInSync();

      // The primary whose files were copied (and recorded as verified) while it was a replica.
      c.kill(0);
      int p = c.awaitPrimary();
      assertThat(p).as("seed %d", seed).isPositive();
      ClusterNode primary = c.node(p);
      int other = p == 1 ? 2 : 1;

      Path victim = TragicStepDownTest.largestSegmentFile(c.root().resolve("n" + (p + 1)).resolve(ClusterHarness.INDEX).resolve("index"));
      String name = victim.getFileName().toString();
      FileTime mtime = Files.getLastModifiedTime(victim);
      long size = Files.size(victim);
      TragicStepDownTest.flipMiddleByte(victim);
      Files.setLastModifiedTime(victim, mtime);
      long flippedAt = System.nanoTime();

      await("seed " + seed + ": the primary's scrub finds " + name).atMost(ClusterHarness.TIMEOUT)
          .until(() -> primary.status().lastStepDown() != null);
      // Printed before the assertions (the replica reopened since may have quarantined the file already).
      System.out.printf("PrimaryScrubTest seed %d: %s (%d bytes) found, the epoch given up %d ms after the flip%n", seed, name,
          size, (System.nanoTime() - flippedAt) / 1_000_000);
      assertThat(primary.status().lastStepDown().reason()).as("seed %d", seed).isEqualTo(StepDownReason.CORRUPT_INDEX);
      assertThat(primary.status().lastStepDown().message()).contains(name);

      assertThat(c.awaitPrimary()).as("seed %d: the clean replica takes over", seed).isEqualTo(other);
      await("seed " + seed + ": the old primary's check at start reads the file again").atMost(ClusterHarness.TIMEOUT)
          .until(() -> primary.role() == Role.REPLICA && primary.integrity().corruptFilesAtStart() == 1);
      await("seed " + seed + ": repaired from the new primary").atMost(ClusterHarness.TIMEOUT)
          .until(() -> primary.integrity().corruptFiles().isEmpty() && primary.integrity().eligible()
              && ClusterHarness.count(primary) == ClusterHarness.count(c.node(other)));
      assertThat(ClusterHarness.count(c.node(other))).as("seed %d", seed).isEqualTo(3_000);
      assertThat(c.node(other).status().lastStepDown()).as("the clean one never gave its epoch up").isNull();
    }
  }
}

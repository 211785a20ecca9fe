package io.nrtcluster.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nrtcluster.common.CorruptLocalFileException;
import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.election.MemberIntegrity;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica whose file was corrupted while it was stopped, coming back while the primary is gone:
 * it holds no verified index, so it must not lead. Before the election gate it was elected alone
 * (with an empty index: every document lost) as soon as the settle time passed.
 */
@Timeout(150)
class CorruptCandidateTest {
  private static final int CORRUPT = 2;
  private static final int CLEAN = 1;

  @TempDir Path dir;

  @Test
  void aReplicaHoldingACorruptFileIsNotElectedNorPromotedWithoutForceAndTheCleanOneIs() throws Exception {
    long seed = FailoverTest.seed();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (ClusterHarness c = new ClusterHarness(dir, seed, 3, List.of(ClusterHarness.INDEX)).meters(CORRUPT, registry);
        ClusterAdmin admin = ClusterAdmin.connect(c.zooKeeper(), Duration.ofSeconds(10))) {
      String flipped = corruptedWhileStoppedAndPrimaryGone(c, seed);

      ClusterNode corrupt = c.node(CORRUPT);
      MemberIntegrity own = corrupt.status().integrity();
      assertThat(own.corruptFiles()).as("seed %d", seed).containsExactly(flipped);
      assertThat(own.eligible()).isFalse();
      assertThat(own.corruptFilesAtStart()).isEqualTo(1);
      assertThat(own.quarantinedFiles()).as("the file and its commit point").isEqualTo(2);
      await("the member record says so").atMost(ClusterHarness.TIMEOUT).untilAsserted(() -> {
        MemberStatus row = admin.status(ClusterHarness.CLUSTER, ClusterHarness.INDEX).members().stream()
            .filter(m -> m.nodeId() == CORRUPT + 1).findFirst().orElseThrow();
        assertThat(row.integrity()).isEqualTo(own);
      });
      assertThat(registry.get(NrtMeters.CORRUPT_FILES_FOUND).tag(NrtMeters.TAG_FOUND_BY, "start").counter().count()).isEqualTo(1);
      assertThat(registry.get(NrtMeters.CORRUPT_FILES).gauge().value()).isEqualTo(1);
      assertThat(registry.get(NrtMeters.QUARANTINED_FILES).gauge().value()).isEqualTo(2);
      assertThat(registry.get(NrtMeters.ELIGIBLE).gauge().value()).isZero();

      await("seed " + seed + ": alone, it never claims").during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10))
          .until(() -> !corrupt.isWritablePrimary() && corrupt.role() != io.nrtcluster.election.Role.PRIMARY);

      assertThatThrownBy(() -> admin.promote(ClusterHarness.CLUSTER, ClusterHarness.INDEX, CORRUPT + 1, Duration.ofSeconds(5)))
          .isInstanceOfSatisfying(CorruptLocalFileException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.CORRUPT_LOCAL_FILE);
            assertThat(e.files()).containsExactly(flipped);
            assertThat(e.getMessage()).contains(flipped);
          });

      c.start(CLEAN);
      assertThat(c.awaitPrimary()).as("seed %d: the clean replica is elected", seed).isEqualTo(CLEAN);
      await("seed " + seed + ": repaired from the new primary").atMost(ClusterHarness.TIMEOUT)
          .until(() -> corrupt.integrity().eligible() && corrupt.searchingVersion() == c.node(CLEAN).searchingVersion());
      assertThat(ClusterHarness.count(corrupt)).as("seed %d", seed).isEqualTo(ClusterHarness.count(c.node(CLEAN)));
      assertThat(registry.get(NrtMeters.CORRUPT_FILES).gauge().value()).isZero();
      assertThat(registry.get(NrtMeters.ELIGIBLE).gauge().value()).isEqualTo(1);
    }
  }

  @Test
  void aForcedPromotionOfTheCorruptReplicaIsAttempted() throws Exception {
    long seed = FailoverTest.seed();
    try (ClusterHarness c = new ClusterHarness(dir, seed, 3, List.of(ClusterHarness.INDEX));
        ClusterAdmin admin = ClusterAdmin.connect(c.zooKeeper(), Duration.ofSeconds(10))) {
      String flipped = corruptedWhileStoppedAndPrimaryGone(c, seed);
      await().atMost(ClusterHarness.TIMEOUT).until(() -> !admin.status(ClusterHarness.CLUSTER, ClusterHarness.INDEX).members().isEmpty());
      ClusterAdmin.ForcePlan plan = admin.planForcedPromotion(ClusterHarness.CLUSTER, ClusterHarness.INDEX, CORRUPT + 1);
      assertThat(plan.corruptFiles()).as("seed %d", seed).containsExactly(flipped);
      IndexStatus after = admin.forcePromote(ClusterHarness.CLUSTER, ClusterHarness.INDEX, CORRUPT + 1, ClusterHarness.TIMEOUT);
      assertThat(after.primaryNodeId()).as("seed %d: the operator's force overrides the gate", seed).isEqualTo(CORRUPT + 1);
    }
  }

  /**
   * Three nodes, documents on all; the corrupt-to-be and the clean replica stop, a byte of the
   * former's largest file flips, the primary dies, and the corrupt one starts again alone.
   */
  private static String corruptedWhileStoppedAndPrimaryGone(ClusterHarness c, long seed) throws IOException {
    c.startWithFirstAsPrimary();
    c.addDocs(c.node(0), 3_000);
    c.awaitAllAt(c.node(0).refresh());
    c.stop(CORRUPT);
    c.stop(CLEAN);
    String flipped = flipInLargestFile(c.root().resolve("n" + (CORRUPT + 1)).resolve(ClusterHarness.INDEX).resolve("index"),
        new Random(seed));
    c.kill(0);
    c.start(CORRUPT);
    return flipped;
  }

  private static String flipInLargestFile(Path index, Random random) throws IOException {
    Path largest;
    try (Stream<Path> files = Files.list(index)) {
      largest = files.filter(p -> !p.getFileName().toString().equals("write.lock"))
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
}

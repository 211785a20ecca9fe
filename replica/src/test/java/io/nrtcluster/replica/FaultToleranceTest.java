package io.nrtcluster.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.transport.FaultInjection;
import io.nrtcluster.transport.TransportConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.apache.lucene.index.CheckIndex;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(180)
class FaultToleranceTest {
  @TempDir Path dir;

  @Test
  void bitFlipsOnTheWireAreDetectedAndNeverInstalled() throws Exception {
    long seed = TestSeeds.seed();
    TransportConfig flipping = MiniCluster.faulty(FaultInjection.builder().bitFlipProbability(0.3).seed(seed).build())
        .toBuilder().chunkBytes(16 * 1024).build();
    try (MiniCluster cluster = new MiniCluster(dir, seed, 2, MiniCluster.fastTransport(), flipping).start()) {
      for (int round = 0; round < 10; round++) {
        cluster.addDocs(400);
        cluster.updateDocs(40);
        cluster.deleteDocs(20);
        long version = cluster.refresh();
        cluster.awaitReplicasAt(version, Duration.ofSeconds(60));
        for (Replica r : cluster.replicas()) {
          MiniCluster.View view = MiniCluster.view(r);
          assertThat(view.counts()).as("seed %d R%d v%d", seed, r.nodeId(), view.version())
              .isEqualTo(cluster.expected(view.version()));
        }
      }
      for (Replica r : cluster.replicas()) {
        long injected = r.transport().faultStats().bitFlipsInjected();
        long detected = r.stats().checksumMismatches();
        assertThat(injected).as("seed %d: flips injected into R%d", seed, r.nodeId()).isPositive();
        assertThat(detected).as("seed %d: R%d detected flips (of %d injected)", seed, r.nodeId(), injected)
            .isPositive().isLessThanOrEqualTo(injected);
      }
      for (int i = 0; i < cluster.replicas().size(); i++) {
        cluster.closeReplica(i);
        assertCheckIndexClean(cluster.dataDir(i).resolve("index"), seed);
      }
    }
  }

  @Test
  void replicaBehindBySeveralPointsConvergesWhileNewOnesArrive() throws Exception {
    long seed = TestSeeds.seed();
    TransportConfig slow = MiniCluster.faulty(FaultInjection.builder().throttleBytesPerSecond(4 * 1024 * 1024).seed(seed).build());
    try (MiniCluster cluster = new MiniCluster(dir, seed, 2, MiniCluster.fastTransport(), MiniCluster.fastTransport())
        .replicaTransport(0, slow).start()) {
      long last = 0;
      for (int round = 0; round < 30; round++) {
        cluster.addDocs(300);
        cluster.updateDocs(30);
        last = cluster.refresh();
      }
      assertThat(cluster.replica(0).searchingVersion()).as("the throttled replica is behind").isLessThan(last);
      cluster.awaitReplicasAt(last, Duration.ofSeconds(90));
      for (Replica r : cluster.replicas()) {
        MiniCluster.View view = MiniCluster.view(r);
        assertThat(view.counts()).as("seed %d R%d", seed, r.nodeId()).isEqualTo(cluster.expected(view.version()));
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> cluster.primary().copyStatesHeld() == 0);
    }
  }

  @Test
  void primaryClosingDuringCopiesNeitherHangsNorLeaksAndReplicasKeepServing() throws Exception {
    long seed = TestSeeds.seed();
    TransportConfig slow = MiniCluster.faulty(FaultInjection.builder().throttleBytesPerSecond(256 * 1024).seed(seed).build());
    try (MiniCluster cluster = new MiniCluster(dir, seed, 2, MiniCluster.fastTransport(), slow).start()) {
      cluster.addDocs(200);
      long good = cluster.refresh();
      cluster.awaitReplicasAt(good, Duration.ofSeconds(60));
      cluster.addDocs(5000);
      cluster.refresh();
      await().atMost(Duration.ofSeconds(20)).until(() -> cluster.replicas().stream().allMatch(Replica::isCopying));
      assertThat(cluster.primary().copyStatesHeld()).isPositive();

      cluster.primary().close();
      assertThat(cluster.primary().copyStatesHeld()).as("no copy-state leaked").isZero();

      for (int i = 0; i < cluster.replicas().size(); i++) {
        Replica r = cluster.replica(i);
        await().atMost(Duration.ofSeconds(30)).until(() -> !r.isCopying());
        MiniCluster.View view = MiniCluster.view(r);
        // Close waits a bounded time, so a copy may still have finished; either way the replica
        // serves a complete point-in-time of the primary.
        assertThat(view.version()).as("R%d keeps a good searcher", r.nodeId()).isIn(good, cluster.primary().version());
        assertThat(view.counts()).isEqualTo(cluster.expected(view.version()));
        Path index = cluster.dataDir(i).resolve("index");
        await("temp files of R" + r.nodeId() + " removed").atMost(Duration.ofSeconds(10)).until(() -> tempFiles(index) == 0);
      }
    }
  }

  static long tempFiles(Path index) throws IOException {
    try (Stream<Path> files = Files.list(index)) {
      return files.filter(p -> p.getFileName().toString().endsWith(".tmp")).count();
    }
  }

  static void assertCheckIndexClean(Path index, long seed) throws IOException {
    try (Directory d = FSDirectory.open(index); CheckIndex checker = new CheckIndex(d)) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      checker.setInfoStream(new PrintStream(out, true, StandardCharsets.UTF_8));
      CheckIndex.Status status = checker.checkIndex();
      assertThat(status.clean).as("seed %d: CheckIndex of %s:%n%s", seed, index, out.toString(StandardCharsets.UTF_8)).isTrue();
    }
  }
}

package io.nrtcluster.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.transport.FaultInjection;
import io.nrtcluster.transport.TransportConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(120)
class MergePreCopyTest {
  @TempDir Path dir;

  @Test
  void forceMergedSegmentIsOnEveryReplicaBeforeThePrimaryInstallsIt() throws Exception {
    long seed = TestSeeds.seed();
    try (MiniCluster cluster = new MiniCluster(dir, seed, 2, MiniCluster.fastTransport(), MiniCluster.fastTransport()).start()) {
      for (int i = 0; i < 8; i++) {
        cluster.addDocs(300);
        cluster.awaitReplicasAt(cluster.refresh(), Duration.ofSeconds(30));
      }
      long[] copiedBefore = cluster.replicas().stream().mapToLong(r -> r.stats().bytesCopied()).toArray();
      long[] preCopiesBefore = cluster.replicas().stream().mapToLong(r -> r.stats().preCopiesCompleted()).toArray();

      // forceMerge returns once the merged segment is installed in the writer; the warmer, which
      // pre-copies, runs before that install.
      cluster.primary().writer().forceMerge(1);
      for (int i = 0; i < cluster.replicas().size(); i++) {
        Replica r = cluster.replica(i);
        assertThat(r.stats().preCopiesCompleted()).as("seed %d: R%d pre-copies", seed, r.nodeId())
            .isGreaterThan(preCopiesBefore[i]);
      }
      long preCopiedBytes = cluster.replica(0).stats().bytesCopied() - copiedBefore[0];
      assertThat(preCopiedBytes).as("seed %d: bytes pre-copied", seed).isPositive();

      long version = cluster.refresh();
      cluster.awaitReplicasAt(version, Duration.ofSeconds(30));
      for (int i = 0; i < cluster.replicas().size(); i++) {
        Replica r = cluster.replica(i);
        long copiedForMergedPoint = r.stats().bytesCopied() - copiedBefore[i] - preCopiedBytes;
        // The NRT point that installs the merged segment copies (almost) nothing: it is already there.
        assertThat(copiedForMergedPoint).as("seed %d: R%d bytes copied by the merged NRT point", seed, r.nodeId())
            .isLessThan(preCopiedBytes / 10);
        MiniCluster.View view = MiniCluster.view(r);
        assertThat(view.counts()).isEqualTo(cluster.expected(view.version()));
      }
      try (Stream<Path> files = Files.list(cluster.dataDir(0).resolve("index"))) {
        assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".tmp"));
      }
    }
  }

  @Test
  void aSlowReplicaCannotStallMergingAndAReplicaJoiningDuringAPreCopyCatchesUp() throws Exception {
    long seed = TestSeeds.seed();
    TransportConfig crawling = MiniCluster.faulty(FaultInjection.builder().throttleBytesPerSecond(64 * 1024).seed(seed).build());
    try (MiniCluster cluster = new MiniCluster(dir, seed, 2, MiniCluster.fastTransport(), MiniCluster.fastTransport())
        .replicaTransport(0, crawling)) {
      cluster.startPrimary(cluster.primaryConfig().preCopyTimeout(Duration.ofSeconds(3)).preCopyKeepAlive(Duration.ofSeconds(2)).build());
      cluster.replicas().add(cluster.openReplica(0));
      for (int i = 0; i < 4; i++) {
        cluster.addDocs(500);
        cluster.refresh();
      }
      CompletableFuture<Void> merge = CompletableFuture.runAsync(() -> {
        try {
          cluster.primary().writer().forceMerge(1);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
      await("a pre-copy to the crawling replica is running").atMost(Duration.ofSeconds(30))
          .until(() -> cluster.primary().preCopiesRunning() > 0 || merge.isDone());
      cluster.startReplicas();
      // The deadline bounds the merge even though R1 cannot finish its pre-copy in time.
      merge.get(60, TimeUnit.SECONDS);
      long version = cluster.refresh();
      cluster.awaitReplicasAt(version, Duration.ofSeconds(120));
      for (Replica r : cluster.replicas()) {
        MiniCluster.View view = MiniCluster.view(r);
        assertThat(view.counts()).as("seed %d R%d", seed, r.nodeId()).isEqualTo(cluster.expected(view.version()));
      }
    }
  }
}

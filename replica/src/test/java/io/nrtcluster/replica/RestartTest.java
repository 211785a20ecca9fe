package io.nrtcluster.replica;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(120)
class RestartTest {
  @TempDir Path dir;

  @Test
  void restartedReplicaCopiesOnlyTheFilesItLacks() throws Exception {
    long seed = TestSeeds.seed();
    try (MiniCluster cluster = new MiniCluster(dir, seed, 2, MiniCluster.fastTransport(), MiniCluster.fastTransport()).start()) {
      for (int i = 0; i < 5; i++) {
        cluster.addDocs(2000);
        cluster.awaitReplicasAt(cluster.refresh(), Duration.ofSeconds(30));
      }
      cluster.primary().writer().forceMerge(1);
      cluster.awaitReplicasAt(cluster.refresh(), Duration.ofSeconds(30));
      long indexBytes = sizeOf(cluster.dataDir(0).resolve("index"));

      cluster.closeReplica(0);
      cluster.addDocs(100);
      long version = cluster.refresh();
      cluster.reopenReplica(0);
      Replica restarted = cluster.replica(0);
      assertThat(restarted.searchingVersion()).as("serves its last commit at once").isPositive();
      cluster.awaitReplicasAt(version, Duration.ofSeconds(30));

      MiniCluster.View view = MiniCluster.view(restarted);
      assertThat(view.counts()).isEqualTo(cluster.expected(view.version()));
      assertThat(restarted.stats().bytesCopied())
          .as("seed %d: bytes copied after restart vs index of %d bytes", seed, indexBytes)
          .isPositive()
          .isLessThan(indexBytes / 5);
    }
  }

  @Test
  void replicaStartsAndServesWhileThePrimaryIsDownThenCatchesUp() throws Exception {
    long seed = TestSeeds.seed();
    try (MiniCluster cluster = new MiniCluster(dir, seed, 1, MiniCluster.fastTransport(), MiniCluster.fastTransport()).start()) {
      cluster.addDocs(500);
      long v1 = cluster.refresh();
      cluster.awaitReplicasAt(v1, Duration.ofSeconds(30));
      cluster.closeReplica(0);
      cluster.primary().commit();
      cluster.primary().close();

      cluster.reopenReplica(0);
      Replica r = cluster.replica(0);
      assertThat(r.isConnected()).isFalse();
      MiniCluster.View view = MiniCluster.view(r);
      assertThat(view.version()).as("serves its last commit without a primary").isEqualTo(v1);
      assertThat(view.counts()).isEqualTo(cluster.expected(v1));

      cluster.startPrimary();
      cluster.addDocs(300);
      long v2 = cluster.refresh();
      cluster.awaitReplicasAt(v2, Duration.ofSeconds(30));
      MiniCluster.View after = MiniCluster.view(r);
      assertThat(after.counts()).as("seed %d", seed).isEqualTo(cluster.expected(after.version()));
      assertThat(r.primaryGen()).isEqualTo(cluster.primary().primaryGen()).isEqualTo(1);
    }
  }

  static long sizeOf(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.mapToLong(p -> p.toFile().length()).sum();
    }
  }
}

package io.nrtcluster.replica;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class ReplayPositionTest {
  @TempDir Path dir;

  @Test
  void theSourcePositionTravelsWithEachPointInTimeAndSurvivesCommitsAndRestarts() throws Exception {
    try (MiniCluster cluster = new MiniCluster(dir, TestSeeds.seed(), 1, MiniCluster.fastTransport(), MiniCluster.fastTransport()).start()) {
      cluster.addDocs(10);
      long v = cluster.primary().refresh("offset-10");
      cluster.awaitReplicasAt(v, Duration.ofSeconds(30));
      assertThat(cluster.primary().replayPosition()).isEqualTo("offset-10");
      assertThat(cluster.replica(0).replayPosition()).isEqualTo("offset-10");

      cluster.replica(0).commit();
      assertThat(cluster.replica(0).replayPosition()).as("after the replica's own commit").isEqualTo("offset-10");
      cluster.restartReplica(0);
      assertThat(cluster.replica(0).replayPosition()).as("after a restart").isEqualTo("offset-10");

      cluster.primary().commit();
      cluster.primary().close();
      cluster.startPrimary();
      assertThat(cluster.primary().replayPosition()).as("primary restarted from its commit").isEqualTo("offset-10");
    }
  }
}

package io.nrtcluster.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.common.StalePrimaryGenerationException;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(120)
class StaleGenerationTest {
  @TempDir Path dir;

  @Test
  void aReplicaRefusesAnOlderPrimaryGenerationEvenAfterARestart() throws Exception {
    long seed = TestSeeds.seed();
    try (MiniCluster cluster = new MiniCluster(dir, seed, 1, MiniCluster.fastTransport(), MiniCluster.fastTransport())) {
      cluster.startPrimary(cluster.primaryConfig().primaryGen(5).build());
      cluster.startReplicas();
      cluster.addDocs(100);
      long good = cluster.refresh();
      cluster.awaitReplicasAt(good, Duration.ofSeconds(30));
      Replica r = cluster.replica(0);
      assertThat(r.highestPrimaryGenSeen()).isEqualTo(5);

      assertThatThrownBy(() -> r.onNrtPoint(3, good + 100)).isInstanceOf(StalePrimaryGenerationException.class);

      // A zombie primary of generation 3 on another directory: the replica must not follow it.
      cluster.primary().close();
      cluster.startPrimary(cluster.primaryConfig().primaryGen(3).dataDir(dir.resolve("zombie")).build());
      cluster.addDocs(50);
      cluster.refresh();
      await().atMost(Duration.ofSeconds(10)).until(() -> r.stats().staleGenerationsRefused() > 0);
      assertThat(r.isConnected()).isFalse();
      assertThat(r.searchingVersion()).isEqualTo(good);

      cluster.restartReplica(0);
      Replica restarted = cluster.replica(0);
      assertThat(restarted.highestPrimaryGenSeen()).as("remembered across restarts").isEqualTo(5);
      await().atMost(Duration.ofSeconds(10)).until(() -> restarted.stats().staleGenerationsRefused() > 0);
      assertThat(restarted.searchingVersion()).isEqualTo(good);
      assertThatThrownBy(() -> restarted.onNrtPoint(4, good + 100)).isInstanceOf(StalePrimaryGenerationException.class);
    }
  }
}

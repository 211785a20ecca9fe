package io.nrtcluster.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.nrtcluster.common.GenerationStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A version listener hears of a version at the searcher switch: before the replica records the
 * version in its state file and reports the install, which are file writes a busy disk makes slow.
 */
@Timeout(60)
class VersionListenerOrderTest {
  @TempDir Path dir;

  @Test
  void listenersHearOfAVersionBeforeTheReplicaRecordsIt() throws Exception {
    long seed = TestSeeds.seed();
    try (MiniCluster cluster = new MiniCluster(dir, seed, 1, MiniCluster.fastTransport(), MiniCluster.fastTransport()).start()) {
      Replica replica = cluster.replica(0);
      Path state = cluster.replicaConfig(0).statePath();
      List<long[]> heard = new CopyOnWriteArrayList<>();
      replica.addVersionListener(v -> {
        try {
          heard.add(new long[] {v, GenerationStore.open(state).highestVersion()});
        } catch (Exception e) {
          heard.add(new long[] {v, Long.MAX_VALUE});
        }
      });
      for (int i = 0; i < 3; i++) {
        cluster.addDocs(20);
        cluster.awaitReplicasAt(cluster.refresh(), Duration.ofSeconds(30));
      }
      assertThat(heard).as("seed %d", seed).hasSizeGreaterThanOrEqualTo(3);
      for (long[] h : heard) {
        assertThat(h[1]).as("seed %d: version %d recorded when its listener ran", seed, h[0]).isLessThan(h[0]);
      }
    }
  }
}

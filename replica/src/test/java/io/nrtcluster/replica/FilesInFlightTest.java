package io.nrtcluster.replica;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A copy of many files has several of them in flight at once: while the replica writes one file, the
 * primary is already sending the next ones it requested ahead ({@code prefetchFiles}), so a copy of
 * many small files does not pay a request round trip per file.
 *
 * <p>On an unthrottled loopback link on purpose: over a throttled one, the answers to the requests
 * queue behind the bytes of the file before them, so what the test would see is the link's speed,
 * not whether the replica asks ahead. "In flight" needs the primary's answer, not just the request:
 * the count is of files whose stream the primary opened and whose bytes are not written yet.
 */
@Timeout(120)
class FilesInFlightTest {
  @TempDir Path dir;

  @Test
  void aCopyOfManyFilesHasMoreThanTheFileBeingWrittenAndTheNextOneInFlight() throws Exception {
    long seed = TestSeeds.seed();
    try (MiniCluster cluster = new MiniCluster(dir, seed, 1, MiniCluster.fastTransport(), MiniCluster.fastTransport())) {
      cluster.startPrimary();
      // Six flushed segments (three files each with compound files): the replica's first copy takes them all.
      for (int i = 0; i < 6; i++) {
        cluster.addDocs(400);
        cluster.refresh();
      }
      cluster.startReplicas();
      cluster.awaitReplicasAt(cluster.primary().version(), Duration.ofSeconds(60));
      Replica r = cluster.replica(0);
      int prefetch = cluster.replicaConfig(0).prefetchFiles();
      assertThat(r.stats().filesCopied()).as("seed %d: files copied", seed).isGreaterThan(prefetch + 1L);
      // Prefetching one file ahead would give at most two (the file being written and the next one).
      // Small files are asked for together, as many as prefetchFiles full windows hold (64 at most).
      assertThat(r.stats().maxFilesInFlight()).as("seed %d: most files in flight at once (prefetch %d)", seed, prefetch)
          .isGreaterThan(2)
          .isLessThanOrEqualTo(Math.min(64, r.stats().filesCopied()));
    }
  }
}

package io.nrtcluster.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.transport.FaultInjection;
import io.nrtcluster.transport.TransportConfig;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(180)
class ResumeTest {
  @TempDir Path dir;

  @Test
  void aNewerNrtPointContinuesThePartlyCopiedFileFromItsOffset() throws Exception {
    long seed = TestSeeds.seed();
    TransportConfig slow = MiniCluster.faulty(FaultInjection.builder().throttleBytesPerSecond(1024 * 1024).seed(seed).build())
        .toBuilder().chunkBytes(32 * 1024).streamWindowBytes(128 * 1024).build();
    // Lucene's way (supersedeAfter 0): the newer point supersedes the copy under way at once.
    try (MiniCluster cluster = new MiniCluster(dir, seed, 1, MiniCluster.fastTransport(), slow)
        .replicaSettings(b -> b.supersedeAfter(java.time.Duration.ZERO)).start()) {
      Replica r = cluster.replica(0);
      cluster.addDocs(20_000);
      cluster.refresh();
      await().atMost(Duration.ofSeconds(30)).until(() -> r.isCopying() && r.stats().bytesCopied() > 256 * 1024);

      // A newer point while the big segment is still copying: its job takes over the partial file.
      cluster.addDocs(10);
      long version = cluster.refresh();
      cluster.awaitReplicasAt(version, Duration.ofSeconds(120));

      assertThat(r.stats().bytesResumed()).as("seed %d: bytes carried over instead of re-fetched", seed).isPositive();
      MiniCluster.View view = MiniCluster.view(r);
      assertThat(view.counts()).as("seed %d", seed).isEqualTo(cluster.expected(view.version()));
      cluster.closeReplica(0);
      FaultToleranceTest.assertCheckIndexClean(cluster.dataDir(0).resolve("index"), seed);
    }
  }
}

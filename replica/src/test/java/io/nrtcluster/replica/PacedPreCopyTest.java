package io.nrtcluster.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.Field;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.TieredMergePolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ReplicaConfig#preCopyBytesPerSecond}: a merge pre-copy keeps its pace on average, copies of
 * NRT points are not held behind it, and what arrives is the same index.
 */
@Timeout(120)
class PacedPreCopyTest {
  @TempDir Path dir;

  @Test
  void aPacedPreCopyKeepsItsPaceWhileNrtPointsStillArriveAtOnce() throws Exception {
    long seed = TestSeeds.seed();
    Random random = new Random(seed);
    try (MiniCluster cluster = new MiniCluster(dir, seed, 1, MiniCluster.fastTransport(), MiniCluster.fastTransport()).start()) {
      IndexWriter writer = cluster.primary().writer();
      ((TieredMergePolicy) writer.getConfig().getMergePolicy()).setSegmentsPerTier(50);
      // About 12 MiB of stored bytes that do not compress, in several segments.
      for (int s = 0; s < 6; s++) {
        for (int i = 0; i < 200; i++) {
          byte[] blob = new byte[10_000];
          random.nextBytes(blob);
          Document d = new Document();
          d.add(new StringField("id", "blob-" + s + "-" + i, Field.Store.YES));
          d.add(new StoredField("blob", blob));
          writer.addDocument(d);
        }
        cluster.awaitReplicasAt(cluster.refresh(), Duration.ofSeconds(30));
      }
      Replica replica = cluster.replica(0);
      long rate = 3L << 20;
      replica.preCopyBytesPerSecond(rate);
      long copiedBefore = replica.stats().bytesCopied();
      long preCopiesBefore = replica.stats().preCopiesCompleted();

      long start = System.nanoTime();
      CompletableFuture<Void> merge = CompletableFuture.runAsync(() -> {
        try {
          writer.forceMerge(1);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
      await("the pre-copy runs").atMost(Duration.ofSeconds(30))
          .until(() -> cluster.primary().preCopiesRunning() > 0 || merge.isDone());
      assertThat(merge).as("seed %d: the pre-copy of about 12 MiB at 3 MiB/s is still running", seed).isNotDone();

      // An NRT point copied while the pre-copy waits for its pace: it is not held behind it.
      cluster.addDocs(50);
      long point = cluster.refresh();
      cluster.awaitReplicasAt(point, Duration.ofSeconds(30));
      assertThat(merge).as("seed %d: the NRT point arrived before the paced pre-copy ended", seed).isNotDone();

      merge.get(90, TimeUnit.SECONDS);
      double seconds = (System.nanoTime() - start) / 1e9;
      long preCopied = replica.stats().bytesCopied() - copiedBefore;
      assertThat(replica.stats().preCopiesCompleted()).as("seed %d", seed).isGreaterThan(preCopiesBefore);
      assertThat(preCopied).as("seed %d: bytes copied", seed).isGreaterThan(8L << 20);
      // Each slice copies at most 1 MiB before the pace is checked again, and the NRT point's bytes
      // are not paced: the pre-copy cannot have been faster than its pace allows for the rest.
      double floor = (preCopied - (1 << 20) - (1 << 20)) / (double) rate;
      assertThat(seconds).as("seed %d: %d bytes at %d bytes/s", seed, preCopied, rate).isGreaterThanOrEqualTo(floor);

      long version = cluster.refresh();
      cluster.awaitReplicasAt(version, Duration.ofSeconds(30));
      MiniCluster.View view = MiniCluster.view(replica);
      assertThat(view.counts()).as("seed %d", seed).isEqualTo(cluster.expected(view.version()));
    }
  }

  @Test
  void aPaceOutOfRangeIsRefusedNamingTheField() throws Exception {
    assertThatThrownBy(() -> ReplicaConfig.builder().nodeId(1).cluster("c").index("i").dataDir(dir)
        .preCopyBytesPerSecond(-1).build()).hasMessageContaining("preCopyBytesPerSecond");
    try (MiniCluster cluster = new MiniCluster(dir, TestSeeds.seed(), 1, MiniCluster.fastTransport(),
        MiniCluster.fastTransport()).start()) {
      assertThatThrownBy(() -> cluster.replica(0).preCopyBytesPerSecond((1L << 40) + 1))
          .hasMessageContaining("preCopyBytesPerSecond");
    }
  }
}

package io.nrtcluster.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.common.IndexUnavailableException;
import io.nrtcluster.primary.Primary;
import java.io.IOException;
import java.nio.file.Path;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.index.IndexWriterConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 26: a primary's commit takes every write so far, also those after its last refresh, which
 * no refresh published (and which the next primary does not have). A primary killed and restarted
 * as a replica opened that commit and served it until it had copied the new primary's point: a
 * chaos run's verdict saw a restarted node answer searches from a version only its own commit made.
 * Such a commit is never searched; the replica answers a typed, retryable "unavailable" until a point
 * copied from a primary is installed, and it never commits it again as if a refresh had published it.
 */
@Timeout(120)
class UnpublishedCommitTest {
  @TempDir Path dir;

  @Test
  void aPrimarysCommitWithUnpublishedWritesIsNeverSearchedByTheReplicaItRestartsAs() throws Exception {
    long seed = TestSeeds.seed();
    try (MiniCluster cluster = new MiniCluster(dir, seed, 1, MiniCluster.fastTransport(), MiniCluster.fastTransport()).start()) {
      cluster.addDocs(100);
      long published = cluster.refresh();
      cluster.awaitAllAt(published);
      cluster.addDocs(50);
      cluster.primary().commit();
      Path exPrimary = dir.resolve("p0");
      cluster.primary().close();
      // R1 holds the published point: it becomes the next primary (generation 2).
      cluster.replica(0).commit();
      cluster.closeReplica(0);

      ReplicaConfig config = ReplicaConfig.builder().nodeId(7).cluster(MiniCluster.CLUSTER).index(MiniCluster.INDEX)
          .dataDir(exPrimary).transport(MiniCluster.fastTransport()).scrub(ScrubConfig.off()).build();
      Replica restarted = Replica.open(config);
      try {
        assertThatThrownBy(() -> MiniCluster.count(restarted)).as("seed %d: the commit's 150 documents, 50 never published", seed)
            .isInstanceOf(IndexUnavailableException.class);
        // Committing (an application's commit, or the one a graceful close makes) must not record the
        // unpublished commit as a published point: a later restart would serve it.
        restarted.commit();
      } finally {
        restarted.close();
      }
      Replica again = Replica.open(config);
      try {
        assertThatThrownBy(() -> MiniCluster.count(again)).as("seed %d: still unpublished after its own commit", seed)
            .isInstanceOf(IndexUnavailableException.class);
        try (Primary next = Primary.open(cluster.primaryConfig().nodeId(1).dataDir(dir.resolve("r1")).primaryGen(2)
            .forcePrimaryVersion(published + 1_000).build(), new IndexWriterConfig(new StandardAnalyzer()))) {
          again.setPrimary(next.address());
          await("the restarted node copies the new primary's point").atMost(MiniCluster.TIMEOUT)
              .until(() -> again.searchingVersion() == next.version());
          assertThat(MiniCluster.count(again)).as("seed %d: what the new primary published", seed).isEqualTo(100);
        }
      } finally {
        again.close();
      }
    }
  }
}

package io.nrtcluster.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nrtcluster.common.NotPrimaryException;
import io.nrtcluster.primary.Primary;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.IndexSearcher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A primary whose publication fails (it lost its epoch) never shows the refreshed version: not to its
 * own searches, not to a replica asking for a copy-state. Otherwise a zombie could serve a version
 * number that the new primary publishes with other contents.
 */
@Timeout(120)
class PublishGateTest {
  @TempDir Path dir;

  @Test
  void anUnpublishedVersionIsNeitherSearchedNorCopied() throws Exception {
    long seed = TestSeeds.seed();
    try (MiniCluster cluster = new MiniCluster(dir, seed, 1, MiniCluster.fastTransport(), MiniCluster.fastTransport())) {
      cluster.startPrimary();
      cluster.startReplicas();
      cluster.addDocs(100);
      long good = cluster.refresh();
      cluster.awaitReplicasAt(good, Duration.ofSeconds(30));
      Primary p = cluster.primary();
      AtomicBoolean fenced = new AtomicBoolean(true);
      p.setPublishGate(v -> {
        if (fenced.get()) {
          throw new NotPrimaryException("epoch lost (test)", null);
        }
      });

      cluster.addDocs(50);
      assertThatThrownBy(cluster::refresh).isInstanceOf(NotPrimaryException.class);
      assertThat(p.version()).as("seed=%d", seed).isEqualTo(good);
      assertThat(searchedVersion(p)).isEqualTo(good);
      IndexSearcher s = p.acquireSearcher();
      try {
        assertThat(MiniCluster.counts(s)).isEqualTo(MiniCluster.view(cluster.replica(0)).counts());
      } finally {
        p.releaseSearcher(s);
      }

      // A replica starting now asks for the current copy-state: it must not get the unpublished one.
      Replica restarted = cluster.restartReplica(0);
      assertThat(restarted.searchingVersion()).isEqualTo(good);

      fenced.set(false);
      cluster.addDocs(1);
      long next = cluster.refresh();
      assertThat(next).isGreaterThan(good);
      assertThat(searchedVersion(p)).isEqualTo(next);
      cluster.awaitReplicasAt(next, Duration.ofSeconds(30));
    }
  }

  private static long searchedVersion(Primary p) throws Exception {
    IndexSearcher s = p.acquireSearcher();
    try {
      return ((DirectoryReader) s.getIndexReader()).getVersion();
    } finally {
      p.releaseSearcher(s);
    }
  }
}

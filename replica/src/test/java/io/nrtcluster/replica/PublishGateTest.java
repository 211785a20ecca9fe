package io.nrtcluster.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.NotPrimaryException;
import io.nrtcluster.common.NotPublishedException;
import io.nrtcluster.primary.Primary;
import io.nrtcluster.transport.Connection;
import io.nrtcluster.transport.Message;
import io.nrtcluster.transport.PeerRole;
import io.nrtcluster.transport.Transport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.search.IndexSearcher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A primary whose publication fails (it lost its epoch, or ZooKeeper did not record the version)
 * never shows the refreshed version: not to its own searches, not to a replica asking for a
 * copy-state (which is told {@link NotPublishedException}). Otherwise a zombie could serve a version
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
      // What it is told is "not published (yet)", not "not the primary": the primary is still the primary.
      assertThat(getCopyState(p)).as("seed=%d", seed).isInstanceOfSatisfying(NotPublishedException.class,
          e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_PUBLISHED));

      fenced.set(false);
      cluster.addDocs(1);
      long next = cluster.refresh();
      assertThat(next).isGreaterThan(good);
      assertThat(searchedVersion(p)).isEqualTo(next);
      cluster.awaitReplicasAt(next, Duration.ofSeconds(30));
    }
  }

  /**
   * A failed publication that leaves the epoch in doubt (ZooKeeper did not record the version) is a
   * {@link NotPublishedException}, and retrying the refresh publishes the pending version even when
   * nothing was written since.
   */
  @Test
  void aRefreshWhosePublicationFailedPublishesOnRetryWithoutNewWrites() throws Exception {
    long seed = TestSeeds.seed();
    try (MiniCluster cluster = new MiniCluster(dir, seed, 1, MiniCluster.fastTransport(), MiniCluster.fastTransport())) {
      cluster.startPrimary();
      cluster.startReplicas();
      cluster.addDocs(100);
      long good = cluster.refresh();
      cluster.awaitReplicasAt(good, Duration.ofSeconds(30));
      Primary p = cluster.primary();
      AtomicBoolean zooKeeperDown = new AtomicBoolean(true);
      p.setPublishGate(v -> {
        if (zooKeeperDown.get()) {
          throw new NotPublishedException("could not record version " + v + " (test)");
        }
      });

      cluster.addDocs(50);
      assertThatThrownBy(cluster::refresh).isInstanceOf(NotPublishedException.class);
      assertThat(p.version()).as("seed=%d", seed).isEqualTo(good);
      assertThat(getCopyState(p)).isInstanceOf(NotPublishedException.class);

      zooKeeperDown.set(false);
      long retried = p.refresh();
      assertThat(retried).as("seed=%d", seed).isGreaterThan(good);
      assertThat(p.version()).as("the retry published the pending version").isEqualTo(retried);
      assertThat(searchedVersion(p)).isEqualTo(retried);
      cluster.awaitReplicasAt(retried, Duration.ofSeconds(30));
    }
  }

  /**
   * A primary opens at a version that never went through the gate (searchable locally only): its
   * first refresh must publish it even when nothing was written, or it would acknowledge a version
   * ZooKeeper never recorded, which the next primary may reuse with other contents.
   */
  @Test
  void theFirstRefreshOfANewPrimaryPassesTheGateEvenWithoutWrites() throws Exception {
    long seed = TestSeeds.seed();
    try (MiniCluster cluster = new MiniCluster(dir, seed, 1, MiniCluster.fastTransport(), MiniCluster.fastTransport())) {
      cluster.startPrimary();
      Primary p = cluster.primary();
      java.util.List<Long> gated = new java.util.concurrent.CopyOnWriteArrayList<>();
      p.setPublishGate(gated::add);
      long first = p.refresh();
      assertThat(gated).as("seed=%d: versions that passed the gate", seed).containsExactly(first);
      assertThat(p.refresh()).isEqualTo(first);
      assertThat(gated).as("an unchanged, already published version is not published again").containsExactly(first);
    }
  }

  /**
   * Lucene's commit takes writes no refresh published, under a version number nobody published; a
   * primary that then lost its epoch and reopened the commit would hold that number with contents
   * the next primary never had. So the commit's own version passes the gate before the commit is
   * durable: refused, nothing new is on disk; the next commit finishes it and commits again, so
   * what was written meanwhile is durable too.
   */
  @Test
  void aCommitsOwnVersionPassesTheGateBeforeTheCommitIsDurable() throws Exception {
    long seed = TestSeeds.seed();
    try (MiniCluster cluster = new MiniCluster(dir, seed, 1, MiniCluster.fastTransport(), MiniCluster.fastTransport())) {
      cluster.startPrimary();
      cluster.startReplicas();
      cluster.addDocs(100);
      long good = cluster.refresh();
      cluster.awaitReplicasAt(good, Duration.ofSeconds(30));
      Primary p = cluster.primary();
      p.commit();
      long before = SegmentInfos.readLatestCommit(p.writer().getDirectory()).getVersion();
      java.util.List<Long> gated = new java.util.concurrent.CopyOnWriteArrayList<>();
      AtomicBoolean zooKeeperDown = new AtomicBoolean(true);
      p.setPublishGate(v -> {
        gated.add(v);
        if (zooKeeperDown.get()) {
          throw new NotPublishedException("could not record version " + v + " (test)");
        }
      });

      cluster.addDocs(50);
      assertThatThrownBy(p::commit).isInstanceOf(NotPublishedException.class);
      assertThat(gated).as("seed=%d: the commit's own version, above the last refresh", seed).hasSize(1);
      long refused = gated.get(0);
      assertThat(refused).isGreaterThan(good);
      SegmentInfos onDisk = SegmentInfos.readLatestCommit(p.writer().getDirectory());
      assertThat(onDisk.getVersion()).as("nothing new is durable").isEqualTo(before);
      assertThat(onDisk.totalMaxDoc()).isEqualTo(100);

      zooKeeperDown.set(false);
      cluster.addDocs(10);
      p.commit();
      assertThat(gated).as("seed=%d", seed).hasSize(3).startsWith(refused, refused);
      onDisk = SegmentInfos.readLatestCommit(p.writer().getDirectory());
      assertThat(onDisk.getVersion()).as("the last commit's version passed the gate").isEqualTo(gated.get(2));
      assertThat(onDisk.totalMaxDoc()).as("the retry took the writes made meanwhile").isEqualTo(160);
      assertThat(p.lastCommitVersion()).isEqualTo(onDisk.getVersion());
      assertThat(p.version()).as("a commit publishes nothing to searches").isEqualTo(good);

      cluster.addDocs(1);
      long next = cluster.refresh();
      assertThat(next).isGreaterThan(onDisk.getVersion());
      cluster.awaitReplicasAt(next, Duration.ofSeconds(30));
    }
  }

  /** What a replica asking {@code p} for its current copy-state gets: null when served, else the failure. */
  private static Throwable getCopyState(Primary p) throws Exception {
    try (Transport t = Transport.create("asker", MiniCluster.fastTransport())) {
      Connection c = t.connect(p.address(), MiniCluster.CLUSTER, MiniCluster.INDEX, 98, PeerRole.REPLICA, (conn, m) -> {})
          .get(10, TimeUnit.SECONDS);
      try {
        Message.CopyStateReply r = (Message.CopyStateReply) c.request(id -> new Message.GetCopyState(id, 98))
            .get(10, TimeUnit.SECONDS);
        c.request(id -> new Message.ReleaseCopyState(id, r.copyStateId())).get(10, TimeUnit.SECONDS);
        return null;
      } catch (ExecutionException e) {
        return e.getCause();
      }
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

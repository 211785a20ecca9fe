package io.nrtcluster.objectstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.node.ClusterHarness;
import io.nrtcluster.node.ClusterNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.IndexSearcher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A follower of a real cluster (two NrtHosts, real ZooKeeper) whose primaries back up every NRT
 * point: it searches exactly what the primary searched at each backed-up version, and follows the
 * new primary's points after a failover. It never connects to the cluster: only the store.
 */
@Timeout(180)
class StoreFollowerClusterTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  @RegisterExtension final StoreFixture store = StoreFixture.of(StoreFollowerClusterTest.class, "F9", "backups");
  @TempDir Path tmp;

  @Test
  void followsEveryPointOfAPrimaryAndOfTheNextPrimaryAfterAFailover() throws Exception {
    ClusterHarness c = store.clusterWithPrimary(tmp.resolve("cluster"), 2);
    c.start(1);
    PrimaryBackups b0 = store.backups(c.node(0), BackupMode.EVERY_POINT, "B0");
    store.backups(c.node(1), BackupMode.EVERY_POINT, "B1");
    StoreFollower f = store.closeAfter(StoreFollower.start(store.manifests(), tmp.resolve("follower"),
        StoreFollowerConfig.builder().pollInterval(Duration.ofMillis(50)).build(), "F9/docs"));

    ClusterNode p = c.node(0);
    for (int round = 0; round < 3; round++) {
      c.addDocs(p, 50 + store.random().nextInt(100));
      long v = p.refresh();
      awaitFollowing(f, p, v);
    }
    long g1 = f.status().primaryGen();
    assertThat(g1).isEqualTo(p.primaryGen());
    assertThat(b0.metrics().snapshot().backupsCompleted()).isPositive();
    c.awaitAllAt(f.status().version());

    c.kill(0);
    assertThat(c.awaitPrimary()).isEqualTo(1);
    ClusterNode next = c.node(1);
    await("N2 writable (seed " + store.seed() + ")").atMost(WAIT).until(next::isWritablePrimary);
    c.addDocs(next, 40);
    long v = next.refresh();
    awaitFollowing(f, next, v);
    FollowerStatus s = f.status();
    assertThat(s.primaryGen()).as("seed %d", store.seed()).isEqualTo(next.primaryGen()).isGreaterThan(g1);
    assertThat(s.failures()).isZero();
  }

  /**
   * A primary's commit is backed up too, as the point it searches (never Lucene's commit, whose version
   * moved past every published one and may hold writes no refresh published): a follower searches
   * only what a refresh published, as a replica does.
   */
  @Test
  void aFollowerNeverSearchesWritesNoRefreshPublished() throws Exception {
    ClusterHarness c = store.clusterWithPrimary(tmp.resolve("cluster"), 1);
    PrimaryBackups b = store.backups(c.node(0), BackupMode.EVERY_POINT, "B0");
    StoreFollower f = store.closeAfter(StoreFollower.start(store.manifests(), tmp.resolve("follower"),
        StoreFollowerConfig.builder().pollInterval(Duration.ofHours(1)).build(), "F9/docs"));
    ClusterNode p = c.node(0);
    c.addDocs(p, 100);
    long published = p.refresh();
    await("backup of " + published).atMost(WAIT).until(() -> b.metrics().snapshot().lastBackedUpVersion() >= published);
    c.addDocs(p, 50); // written, not refreshed: only the commit holds them
    p.commit();
    f.pollNow();
    assertThat(f.status().version()).as("seed %d", store.seed()).isEqualTo(published);
    IndexSearcher s = f.acquire();
    try {
      assertThat(s.getIndexReader().numDocs()).as("seed %d: the unrefreshed writes are not searched", store.seed())
          .isEqualTo(100);
    } finally {
      f.release(s);
    }
    c.addDocs(p, 10);
    long next = p.refresh();
    await("backup of " + next).atMost(WAIT).until(() -> b.metrics().snapshot().lastBackedUpVersion() >= next);
    assertThat(store.manifests().list()).extracting(ManifestId::version).as("seed %d: only published versions are "
        + "backed up", store.seed()).isSubsetOf(published, next);
    f.pollNow();
    assertThat(f.status().version()).isEqualTo(next);
  }

  /** Waits until {@code f} serves {@code version}, then checks it finds what {@code primary} finds there. */
  private void awaitFollowing(StoreFollower f, ClusterNode primary, long version) throws Exception {
    await("follower at version " + version + " (seed " + store.seed() + ")").atMost(WAIT)
        .pollInterval(Duration.ofMillis(20)).until(() -> f.status().version() >= version);
    assertThat(f.status().version()).as("seed %d: the primary wrote nothing after", store.seed()).isEqualTo(version);
    IndexSearcher mine = f.acquire();
    IndexSearcher theirs = primary.acquireSearcher();
    try {
      assertThat(((DirectoryReader) mine.getIndexReader()).getVersion()).isEqualTo(version);
      List<Long> expected = ClusterHarness.counts(theirs);
      assertThat(ClusterHarness.counts(mine)).as("seed %d", store.seed()).isEqualTo(expected);
      assertThat(mine.getIndexReader().numDocs()).isEqualTo(theirs.getIndexReader().numDocs());
    } finally {
      primary.releaseSearcher(theirs);
      f.release(mine);
    }
  }
}

package io.nrtcluster.objectstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.common.ReplayPositions;
import io.nrtcluster.node.ClusterHarness;
import io.nrtcluster.node.ClusterNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Automatic backups from a real cluster's primary (two NrtHosts, real ZooKeeper) to a real S3-compatible server. */
@Timeout(180)
class PrimaryBackupsTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  @RegisterExtension final StoreFixture store = StoreFixture.of(PrimaryBackupsTest.class, "T", "backups");
  @TempDir Path tmp;

  @Test
  void everyCommitIsBackedUpAndAfterAFailoverTheNewPrimaryContinuesWithoutReuploadingFilesAlreadyThere() throws Exception {
    ClusterHarness c = store.clusterWithPrimary(tmp.resolve("cluster"), 2);
    c.start(1);
    PrimaryBackups b0 = store.backups(c.node(0), BackupMode.EVERY_COMMIT, "B0");
    PrimaryBackups b1 = store.backups(c.node(1), BackupMode.EVERY_COMMIT, "B1");
    ManifestStore manifests = store.manifests();

    c.addDocs(c.node(0), 300);
    long v1 = c.node(0).refresh("offset-300");
    // A refresh alone is no commit: nothing is backed up.
    assertThat(b0.lastBackup().get()).isNull();
    c.node(0).commit();
    BackupResult r1 = b0.lastBackup().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    long g1 = c.node(0).primaryGen();
    assertThat(r1.manifest().version()).as("seed %d", store.seed()).isEqualTo(v1);
    assertThat(r1.manifest().primaryGen()).isEqualTo(g1);
    assertThat(r1.filesReused()).isZero();
    Manifest m1 = manifests.read(r1.manifest());
    assertThat(m1.userData()).containsEntry(ReplayPositions.KEY, "offset-300");
    // A second commit with nothing new is not backed up again.
    c.node(0).commit();
    assertThat(b0.lastBackup().get()).isSameAs(r1);
    c.awaitAllAt(v1);

    c.kill(0);
    assertThat(c.awaitPrimary()).isEqualTo(1);
    ClusterNode p = c.node(1);
    await("N2 writable (seed " + store.seed() + ")").atMost(WAIT).until(p::isWritablePrimary);
    long g2 = p.primaryGen();
    assertThat(g2).isGreaterThan(g1);
    c.addDocs(p, 40);
    long v2 = p.refresh("offset-340");
    p.commit();
    await("N2's backup of version " + v2 + " (seed " + store.seed() + ")").atMost(WAIT)
        .until(() -> b1.lastBackup().isDone() && b1.lastBackup().get() != null);
    BackupResult r2 = b1.lastBackup().get();
    assertThat(r2.manifest().version()).isEqualTo(v2);
    assertThat(r2.manifest().primaryGen()).isEqualTo(g2);

    Manifest m2 = manifests.read(r2.manifest());
    List<FileEntry> shared = m2.files().values().stream().filter(f -> f.equals(m1.files().get(f.name()))).toList();
    long newBytes = m2.files().values().stream().filter(f -> !shared.contains(f)).mapToLong(FileEntry::length).sum();
    assertThat(shared).as("seed %d: the old primary's segments are still in the new point", store.seed()).isNotEmpty();
    assertThat(r2.filesReused()).as("seed %d", store.seed()).isEqualTo(shared.size());
    assertThat(r2.filesUploaded()).isEqualTo(m2.files().size() - shared.size());
    assertThat(r2.bytesUploaded()).isEqualTo(newBytes);
    assertThat(b1.metrics().snapshot().filesSkipped()).isEqualTo(shared.size());

    // The new primary's backup restores to exactly its documents.
    try (Directory target = FSDirectory.open(tmp.resolve("restored")); Restorer restorer = new Restorer(manifests, store.log())) {
      restorer.restore(r2.manifest(), target);
      try (DirectoryReader reader = DirectoryReader.open(target)) {
        assertThat(reader.getVersion()).isEqualTo(v2);
        assertThat(reader.numDocs()).isEqualTo(340);
      }
    }
  }

  @Test
  void everyPointModeBacksUpRefreshesAndAStoppedStoreNeverStopsIndexingOrReplication() throws Exception {
    ClusterHarness c = store.clusterWithPrimary(tmp.resolve("cluster"), 2);
    c.start(1);
    PrimaryBackups b0 = store.backups(c.node(0), BackupMode.EVERY_POINT, "B0");
    ClusterNode p = c.node(0);

    c.addDocs(p, 100);
    long v1 = p.refresh();
    assertThat(b0.lastBackup().get(WAIT.toSeconds(), TimeUnit.SECONDS).manifest().version()).isEqualTo(v1);

    store.server().stop();
    long v2 = v1;
    for (int i = 0; i < 5; i++) {
      c.addDocs(p, 20);
      v2 = p.refresh();
    }
    p.commit();
    c.awaitAllAt(v2);
    assertThat(ClusterHarness.count(c.node(1))).isEqualTo(200);
    await("a failed backup reported (seed " + store.seed() + ")").atMost(WAIT)
        .until(() -> b0.metrics().snapshot().backupsFailed() > 0 && b0.lastBackup().isDone());
    assertThat(b0.lastBackup()).isCompletedExceptionally();
    try {
      b0.lastBackup().get();
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOfAny(ObjectStoreUnavailableException.class, BackupAbandonedException.class);
    }

    store.server().restart();
    // The same version again (nothing new): retried, since its backup failed.
    p.commit();
    BackupResult r = b0.lastBackup().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(r.manifest().version()).as("seed %d", store.seed()).isEqualTo(v2);
    assertThat(store.manifests().latestId().orElseThrow().version()).isEqualTo(v2);
  }
}

package io.nrtcluster.objectstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.node.ClusterHarness;
import io.nrtcluster.node.ClusterNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.TermQuery;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Back up a real cluster while it writes (across a failover), lose the whole cluster, restore an older
 * backed-up version into empty directories of a new cluster (new ZooKeeper): it searches exactly that
 * version's documents, and its first primary leads above every generation and version in the store.
 */
@Timeout(240)
class ClusterRestoreTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  @RegisterExtension final StoreFixture store = StoreFixture.of(ClusterRestoreTest.class, "T", "");
  @TempDir Path tmp;

  /** Writes {@code rounds} batches on {@code p}, refreshing each and committing every third; records each version's document count. */
  private static int write(ClusterHarness c, ClusterNode p, int rounds, int total, Random random, Map<Long, Integer> docsAt)
      throws Exception {
    for (int i = 0; i < rounds; i++) {
      int n = 20 + random.nextInt(60);
      c.addDocs(p, n);
      total += n;
      docsAt.put(p.refresh(), total);
      if (i % 3 == 2) {
        p.commit();
      }
    }
    return total;
  }

  @Test
  void backUpWhileWritingLoseTheClusterRestoreAnOlderVersionIntoEmptyDirectoriesAndSearchExactlyItsDocuments() throws Exception {
    long seed = store.seed();
    Random random = store.random();
    Map<Long, Integer> docsAt = new TreeMap<>();
    ClusterHarness a = store.clusterWithPrimary(tmp.resolve("a"), 2);
    a.start(1);
    PrimaryBackups b0 = store.backups(a.node(0), BackupMode.EVERY_COMMIT, "A1");
    PrimaryBackups b1 = store.backups(a.node(1), BackupMode.EVERY_COMMIT, "A2");
    int total = write(a, a.node(0), 12, 0, random, docsAt);
    a.node(0).commit();
    b0.lastBackup().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    long g1 = a.node(0).primaryGen();
    a.awaitAllAt(a.node(0).searchingVersion());
    a.kill(0);
    assertThat(a.awaitPrimary()).isEqualTo(1);
    ClusterNode p = a.node(1);
    await("N2 writable (seed " + seed + ")").atMost(WAIT).until(p::isWritablePrimary);
    write(a, p, 9, total, random, docsAt);
    p.commit();
    await("N2's last backup (seed " + seed + ")").atMost(WAIT).until(() -> b1.lastBackup().isDone());
    b0.close();
    b1.close();
    a.close(); // the whole cluster and its ZooKeeper are gone

    ManifestStore manifests = store.manifests();
    List<ManifestId> ids = manifests.list();
    long highestGen = manifests.highestPrimaryGen();
    long highestVersion = manifests.latestId().orElseThrow().version();
    assertThat(highestGen).as("seed %d: both generations backed up", seed).isGreaterThan(g1);
    // An older version, of the first generation: the newer generation's points must not be reused.
    ManifestId target = ids.stream().filter(id -> id.primaryGen() == g1).reduce((x, y) -> y).orElseThrow();
    int expected = docsAt.get(target.version());

    ClusterHarness b = store.closeAfter(new ClusterHarness(tmp.resolve("b"), seed + 1, 2));
    Manifest restored = new NodeRestore(manifests, store.log())
        .restore(Optional.of(target.version()), b.hostConfig(0).dataDir().resolve(ClusterHarness.INDEX));
    assertThat(restored.version()).isEqualTo(target.version());
    b.start(0);
    assertThat(b.awaitPrimary()).isZero();
    ClusterNode q = b.node(0);
    await("restored N1 writable (seed " + seed + ")").atMost(WAIT).until(q::isWritablePrimary);
    assertThat(q.primaryGen()).as("seed %d: generation above %d", seed, highestGen).isGreaterThan(highestGen);
    assertThat(ClusterHarness.count(q)).as("seed %d: documents of version %d", seed, target.version()).isEqualTo(expected);
    IndexSearcher s = q.acquireSearcher();
    try {
      assertThat(s.count(new TermQuery(new Term("id", Integer.toString(expected - 1))))).isEqualTo(1);
      assertThat(s.count(new TermQuery(new Term("id", Integer.toString(expected))))).isZero();
    } finally {
      q.releaseSearcher(s);
    }

    // The new cluster goes on above every version in the store, and a new member catches up.
    PrimaryBackups nb = store.closeAfter(new PrimaryBackups(manifests, BackupMode.EVERY_COMMIT, "B1").attach(q));
    b.addDocs(q, 10);
    long v = q.refresh();
    assertThat(v).as("seed %d", seed).isGreaterThan(highestVersion);
    q.commit();
    assertThat(nb.lastBackup().get(WAIT.toSeconds(), TimeUnit.SECONDS).manifest().version()).isEqualTo(v);
    assertThat(manifests.latestId().orElseThrow().version()).isEqualTo(v);
    b.start(1);
    b.awaitAllAt(v);
    assertThat(ClusterHarness.count(b.node(1))).isEqualTo(expected + 10);
  }
}

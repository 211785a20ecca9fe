package io.nrtcluster.objectstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.node.ClusterHarness;
import io.nrtcluster.node.ClusterNode;
import io.nrtcluster.node.ClusterNodeInternals;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A new replica of a real cluster bootstraps from a real S3-compatible server while the primary
 * indexes, and copies only the difference from the primary; a damaged backup sends it to the primary.
 */
@Timeout(240)
class ReplicaBootstrapTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  @RegisterExtension final StoreFixture store = StoreFixture.of(ReplicaBootstrapTest.class, "R2", "");
  @TempDir Path tmp;

  /** A cluster of two nodes, the first up and primary with {@code docs} documents merged into one segment and backed up. */
  private ClusterHarness clusterWithBackup(int docs) throws Exception {
    ClusterHarness c = store.clusterWithPrimary(tmp.resolve("cluster"), 2);
    PrimaryBackups backups = store.backups(c.node(0), BackupMode.EVERY_COMMIT, "N1/docs");
    ClusterNode p = c.node(0);
    for (int added = 0; added < docs; added += 2000) {
      c.addDocs(p, 2000);
      p.refresh();
    }
    // One big segment: the small ones written from now on merge among themselves, not with it.
    ClusterNodeInternals.primaryOf(p).writer().forceMerge(1);
    p.refresh();
    p.commit();
    backups.lastBackup().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    return c;
  }

  @Test
  void aNewReplicaBootstrapsFromTheStoreWhileThePrimaryIndexesAndFetchesOnlyTheDifferenceFromThePrimary() throws Exception {
    ClusterHarness c = clusterWithBackup(30_000);
    ClusterNode p = c.node(0);
    ManifestStore manifests = store.manifests();
    Manifest backup = manifests.latest();

    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger batches = new AtomicInteger();
    CompletableFuture<Void> indexing = CompletableFuture.runAsync(() -> {
      try {
        while (!stop.get()) {
          synchronized (c) {
            c.addDocs(p, 20);
          }
          p.refresh();
          batches.incrementAndGet();
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20)); // pacing: about 1,000 docs/s at most
        }
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    });

    BootstrapResult r = new NodeRestore(manifests, store.log()).bootstrap(c.hostConfig(1).dataDir().resolve(ClusterHarness.INDEX));
    assertThat(r.outcome()).as("seed %d", store.seed()).isEqualTo(BootstrapResult.Outcome.RESTORED);
    assertThat(r.manifest().version()).isEqualTo(backup.version());
    c.start(1);
    int before = batches.get();
    await("N2 catching up while the primary indexes (seed " + store.seed() + ")").atMost(WAIT)
        .until(() -> batches.get() >= before + 10 && c.node(1).searchingVersion() > backup.version());
    stop.set(true);
    indexing.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    long last = p.refresh();
    c.awaitAllAt(last);
    assertThat(ClusterHarness.count(c.node(1))).isEqualTo(ClusterHarness.count(p));

    long fetched = c.node(1).replica().stats().bytesCopied();
    long restored = backup.totalBytes();
    System.out.printf("seed %d: restored %d bytes from the store, fetched %d from the primary (%d batches written meanwhile)%n",
        store.seed(), restored, fetched, batches.get());
    assertThat(fetched).as("seed %d: bytes from the primary", store.seed()).isPositive();
    // Only the difference: the big segment the backup holds never crosses the primary's link.
    long biggest = backup.files().values().stream().mapToLong(FileEntry::length).max().orElseThrow();
    assertThat(fetched).as("seed %d: bytes from the primary vs %d restored", store.seed(), restored).isLessThan(biggest);
  }

  @Test
  void aBackupWithAFlippedBitIsRefusedAndTheReplicaCopiesEverythingFromThePrimary() throws Exception {
    ClusterHarness c = clusterWithBackup(4_000);
    ManifestStore manifests = store.manifests();
    Manifest backup = manifests.latest();
    FileEntry victim = backup.files().values().stream().max(Comparator.comparingLong(FileEntry::length)).orElseThrow();
    String key = manifests.layout().fileKey(victim);
    byte[] bytes = store.server().read(key);
    Random random = store.random();
    bytes[random.nextInt(bytes.length)] ^= (byte) (1 << random.nextInt(8));
    store.server().write(key, bytes);

    BootstrapResult r = new NodeRestore(manifests, store.log()).bootstrap(c.hostConfig(1).dataDir().resolve(ClusterHarness.INDEX));
    assertThat(r.outcome()).as("seed %d", store.seed()).isEqualTo(BootstrapResult.Outcome.FELL_BACK);
    assertThat(r.error()).isInstanceOfSatisfying(CorruptBackupException.class, e -> assertThat(e.objectKey()).isEqualTo(key));

    c.start(1);
    long v = c.node(0).searchingVersion();
    c.awaitAllAt(v);
    assertThat(ClusterHarness.count(c.node(1))).isEqualTo(4_000);
    assertThat(c.node(1).replica().stats().bytesCopied()).as("seed %d", store.seed()).isGreaterThanOrEqualTo(victim.length());
  }
}

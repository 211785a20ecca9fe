package io.nrtcluster.objectstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.common.NodeLog;
import io.nrtcluster.node.ClusterHarness;
import io.nrtcluster.node.ClusterNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A new replica of a real cluster bootstraps from a real S3-compatible server while the primary
 * indexes, and copies only the difference from the primary; a damaged backup sends it to the primary.
 */
@Timeout(240)
class ReplicaBootstrapTest {
  private static final NodeLog LOG = new NodeLog(LoggerFactory.getLogger(ReplicaBootstrapTest.class), "R2", () -> -1);
  private static final Duration WAIT = Duration.ofSeconds(60);

  @TempDir Path tmp;
  private S3TestServer server;
  private long seed;
  private final List<AutoCloseable> closing = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    seed = Long.getLong("nrt.test.seed", new Random().nextLong());
    System.out.println("ReplicaBootstrapTest seed " + seed);
    server = S3TestServer.start();
  }

  @AfterEach
  void stop() throws Exception {
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close();
    }
    server.close();
  }

  private ManifestStore manifests() throws Exception {
    BlobStore store = BlobStore.open(server.config().build(), new ObjectStoreMetrics(), LOG);
    closing.add(store);
    return new ManifestStore(store, StoreLayout.of(store.config().prefix(), ClusterHarness.CLUSTER, ClusterHarness.INDEX));
  }

  /** A cluster of two nodes, the first up and primary with {@code docs} documents merged into one segment and backed up. */
  private ClusterHarness clusterWithBackup(int docs) throws Exception {
    ClusterHarness c = new ClusterHarness(tmp.resolve("cluster"), seed, 2);
    closing.add(c);
    c.start(0);
    assertThat(c.awaitPrimary()).isZero();
    PrimaryBackups backups = new PrimaryBackups(manifests(), BackupMode.EVERY_COMMIT, "N1/docs").attach(c.node(0));
    closing.add(backups);
    ClusterNode p = c.node(0);
    for (int added = 0; added < docs; added += 2000) {
      c.addDocs(p, 2000);
      p.refresh();
    }
    // One big segment: the small ones written from now on merge among themselves, not with it.
    p.primary().writer().forceMerge(1);
    p.refresh();
    p.commit();
    backups.lastBackup().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    return c;
  }

  @Test
  void aNewReplicaBootstrapsFromTheStoreWhileThePrimaryIndexesAndFetchesOnlyTheDifferenceFromThePrimary() throws Exception {
    ClusterHarness c = clusterWithBackup(30_000);
    ClusterNode p = c.node(0);
    ManifestStore manifests = manifests();
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

    BootstrapResult r = new NodeRestore(manifests, LOG).bootstrap(c.hostConfig(1).dataDir().resolve(ClusterHarness.INDEX));
    assertThat(r.outcome()).as("seed %d", seed).isEqualTo(BootstrapResult.Outcome.RESTORED);
    assertThat(r.manifest().version()).isEqualTo(backup.version());
    c.start(1);
    int before = batches.get();
    await("N2 catching up while the primary indexes (seed " + seed + ")").atMost(WAIT)
        .until(() -> batches.get() >= before + 10 && c.node(1).searchingVersion() > backup.version());
    stop.set(true);
    indexing.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    long last = p.refresh();
    c.awaitAllAt(last);
    assertThat(ClusterHarness.count(c.node(1))).isEqualTo(ClusterHarness.count(p));

    long fetched = c.node(1).replica().stats().bytesCopied();
    long restored = backup.totalBytes();
    System.out.printf("seed %d: restored %d bytes from the store, fetched %d from the primary (%d batches written meanwhile)%n",
        seed, restored, fetched, batches.get());
    assertThat(fetched).as("seed %d: bytes from the primary", seed).isPositive();
    // Only the difference: the big segment the backup holds never crosses the primary's link.
    long biggest = backup.files().values().stream().mapToLong(FileEntry::length).max().orElseThrow();
    assertThat(fetched).as("seed %d: bytes from the primary vs %d restored", seed, restored).isLessThan(biggest);
  }

  @Test
  void aBackupWithAFlippedBitIsRefusedAndTheReplicaCopiesEverythingFromThePrimary() throws Exception {
    ClusterHarness c = clusterWithBackup(4_000);
    ManifestStore manifests = manifests();
    Manifest backup = manifests.latest();
    FileEntry victim = backup.files().values().stream().max(Comparator.comparingLong(FileEntry::length)).orElseThrow();
    String key = manifests.layout().fileKey(victim);
    byte[] bytes = server.read(key);
    Random random = new Random(seed);
    bytes[random.nextInt(bytes.length)] ^= (byte) (1 << random.nextInt(8));
    server.write(key, bytes);

    BootstrapResult r = new NodeRestore(manifests, LOG).bootstrap(c.hostConfig(1).dataDir().resolve(ClusterHarness.INDEX));
    assertThat(r.outcome()).as("seed %d", seed).isEqualTo(BootstrapResult.Outcome.FELL_BACK);
    assertThat(r.error()).isInstanceOfSatisfying(CorruptBackupException.class, e -> assertThat(e.objectKey()).isEqualTo(key));

    c.start(1);
    long v = c.node(0).searchingVersion();
    c.awaitAllAt(v);
    assertThat(ClusterHarness.count(c.node(1))).isEqualTo(4_000);
    assertThat(c.node(1).replica().stats().bytesCopied()).as("seed %d", seed).isGreaterThanOrEqualTo(victim.length());
  }
}

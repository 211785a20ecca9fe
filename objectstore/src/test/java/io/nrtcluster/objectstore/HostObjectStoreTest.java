package io.nrtcluster.objectstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.common.NodeLog;
import io.nrtcluster.node.ClusterHarness;
import io.nrtcluster.node.ClusterNode;
import io.nrtcluster.node.IndexSettings;
import io.nrtcluster.node.NrtHost;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Hosts of a real cluster with a real S3-compatible store behind them ({@link HostObjectStore}): the
 * primary's host backs up each commit and sweeps old backups while it leads, a new host bootstraps from
 * the store and copies only the difference from the primary, a stopped store stops neither indexing nor
 * replication, and wrong credentials fail at open naming the bucket.
 */
@Timeout(180)
class HostObjectStoreTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final NodeLog LOG = new NodeLog(LoggerFactory.getLogger(HostObjectStoreTest.class), "test", () -> -1);

  @TempDir Path tmp;
  private S3TestServer server;
  private long seed;
  private ClusterHarness cluster;
  private final Map<Integer, HostObjectStore> stores = new ConcurrentHashMap<>();
  private final List<AutoCloseable> closing = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    seed = Long.getLong("nrt.test.seed", new Random().nextLong());
    System.out.println("HostObjectStoreTest seed " + seed);
    server = S3TestServer.start();
  }

  @AfterEach
  void stop() throws Exception {
    stores.values().forEach(HostObjectStore::close);
    if (cluster != null) {
      cluster.close();
    }
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close();
    }
    server.close();
  }

  private HostStoreConfig.Builder config() {
    return HostStoreConfig.builder().store(server.config().maxAttempts(2).backoff(Duration.ofMillis(50), Duration.ofMillis(200)).build());
  }

  /** Two nodes whose hosts open their indexes through a {@link HostObjectStore} with {@code config}. */
  private ClusterHarness cluster(HostStoreConfig config) throws Exception {
    cluster = new ClusterHarness(tmp.resolve("cluster"), seed, 2).indexOpener((i, host, names) -> {
      HostObjectStore previous = stores.remove(i);
      if (previous != null) {
        previous.close();
      }
      HostObjectStore s = HostObjectStore.open(host, config);
      stores.put(i, s);
      for (String name : names) {
        s.openIndex(IndexSettings.standard(name));
      }
    });
    return cluster;
  }

  private ManifestStore manifests() throws Exception {
    BlobStore store = BlobStore.open(server.config().build(), new ObjectStoreMetrics(), LOG);
    closing.add(store);
    return new ManifestStore(store, StoreLayout.of(store.config().prefix(), ClusterHarness.CLUSTER, ClusterHarness.INDEX));
  }

  @Test
  void thePrimarysHostBacksUpSweepsAndANewHostBootstrapsCopyingOnlyTheDifference() throws Exception {
    ClusterHarness c = cluster(config().retention(RetentionPolicy.keepLast(2)).retentionInterval(Duration.ofMillis(300)).build());
    c.start(0);
    assertThat(c.awaitPrimary()).isZero();
    ClusterNode p = c.node(0);
    ManifestStore manifests = manifests();
    long committed = -1;
    for (int round = 0; round < 4; round++) {
      c.addDocs(p, 3_000);
      committed = p.refresh();
      p.commit();
      long version = committed;
      await("backup of commit " + version + " (seed " + seed + ")").atMost(WAIT)
          .until(() -> manifests.latestId().map(ManifestId::version).orElse(-1L) >= version);
    }
    await("retention down to 2 backups (seed " + seed + ")").atMost(WAIT).until(() -> manifests.list().size() <= 2);
    assertThat(stores.get(0).bootstrapResult(ClusterHarness.INDEX)).get()
        .extracting(BootstrapResult::outcome).isEqualTo(BootstrapResult.Outcome.NO_BACKUP);
    ObjectStoreMetrics.Snapshot up = stores.get(0).metrics(ClusterHarness.INDEX).orElseThrow().snapshot();
    assertThat(up.backupsCompleted()).isGreaterThanOrEqualTo(1);
    assertThat(up.lastBackedUpVersion()).isEqualTo(committed);
    assertThat(up.bytesUploaded()).isPositive();

    Manifest newest = manifests.latest();
    c.start(1);
    c.awaitAllAt(p.searchingVersion());
    assertThat(stores.get(1).bootstrapResult(ClusterHarness.INDEX)).get()
        .extracting(BootstrapResult::outcome).isEqualTo(BootstrapResult.Outcome.RESTORED);
    assertThat(ClusterHarness.count(c.node(1))).isEqualTo(12_000);
    long fetched = c.node(1).replica().stats().bytesCopied();
    long downloaded = stores.get(1).metrics(ClusterHarness.INDEX).orElseThrow().snapshot().bytesDownloaded();
    System.out.printf("seed %d: N2 restored %d bytes from the store, fetched %d from the primary%n", seed, downloaded, fetched);
    assertThat(downloaded).isGreaterThanOrEqualTo(newest.totalBytes());
    assertThat(fetched).as("seed %d: bytes from the primary after a bootstrap at its newest commit", seed)
        .isLessThan(newest.totalBytes() / 10);
    // The replica's host backs nothing up while it does not lead.
    assertThat(stores.get(1).metrics(ClusterHarness.INDEX).orElseThrow().snapshot().backupsCompleted()).isZero();
  }

  @Test
  void aStoppedStoreStopsNeitherIndexingNorReplicationAndBackupsResumeWhenItIsBack() throws Exception {
    ClusterHarness c = cluster(config().build());
    c.start(0);
    assertThat(c.awaitPrimary()).isZero();
    c.start(1);
    ClusterNode p = c.node(0);
    ManifestStore manifests = manifests();
    server.stop();

    c.addDocs(p, 500);
    long during = p.refresh();
    p.commit();
    c.awaitAllAt(p.searchingVersion());
    assertThat(ClusterHarness.count(c.node(1))).isEqualTo(500);
    HostObjectStore primaryStore = stores.get(0);
    await("a failed backup counted (seed " + seed + ")").atMost(WAIT)
        .until(() -> primaryStore.metrics(ClusterHarness.INDEX).orElseThrow().snapshot().backupsFailed() >= 1);

    server.restart();
    c.addDocs(p, 500);
    long after = p.refresh();
    p.commit();
    assertThat(after).isGreaterThan(during);
    await("a backup after the store is back (seed " + seed + ")").atMost(WAIT)
        .until(() -> manifests.latestId().map(ManifestId::version).orElse(-1L) >= after);
    assertThat(manifests.list()).extracting(ManifestId::version).doesNotContain(during);
  }

  @Test
  void wrongCredentialsFailAtOpenNamingTheBucket() throws Exception {
    cluster = new ClusterHarness(tmp.resolve("cluster"), seed, 1);
    NrtHost host = cluster.start(0);
    HostStoreConfig wrong = HostStoreConfig.builder()
        .store(server.config().credentials(S3TestServer.ACCESS_KEY, "wrong").build()).build();
    assertThatThrownBy(() -> HostObjectStore.open(host, wrong))
        .isInstanceOfSatisfying(ObjectStoreAccessException.class,
            e -> assertThat(e.getMessage()).contains(S3TestServer.BUCKET));
  }

  @Test
  void theSettingsNameTheBadField() {
    assertThatThrownBy(() -> HostStoreConfig.builder().build()).hasMessageContaining("store");
    assertThatThrownBy(() -> config().retentionInterval(Duration.ZERO).build()).hasMessageContaining("retentionInterval");
    assertThatThrownBy(() -> config().backups(false).retention(RetentionPolicy.keepLast(1)).build())
        .hasMessageContaining("retention");
  }
}

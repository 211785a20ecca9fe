package io.nrtcluster.objectstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.node.ClusterHarness;
import io.nrtcluster.node.ClusterNode;
import io.nrtcluster.node.IndexSettings;
import io.nrtcluster.node.NrtHost;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hosts of a real cluster with a real S3-compatible store behind them ({@link HostObjectStore}): the
 * primary's host backs up each commit and sweeps old backups while it leads, a new host bootstraps from
 * the store and copies only the difference from the primary, a stopped store stops neither indexing nor
 * replication, and wrong credentials fail at open naming the bucket.
 */
@Timeout(180)
class HostObjectStoreTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  @RegisterExtension final StoreFixture fixture = StoreFixture.of(HostObjectStoreTest.class, "test", "");
  @TempDir Path tmp;
  private final Map<Integer, HostObjectStore> stores = new ConcurrentHashMap<>();

  private HostStoreConfig.Builder config() {
    return HostStoreConfig.builder().store(fixture.config(b -> b.maxAttempts(2).backoff(Duration.ofMillis(50), Duration.ofMillis(200))));
  }

  /** Two nodes whose hosts open their indexes through a {@link HostObjectStore} with {@code config}. */
  private ClusterHarness cluster(HostStoreConfig config) throws Exception {
    ClusterHarness c = fixture.cluster(tmp.resolve("cluster"), 2).indexOpener((i, host, names) -> {
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
    // Closed before the cluster (newest first): backups stop before the hosts.
    fixture.closeAfter(() -> stores.values().forEach(HostObjectStore::close));
    return c;
  }

  @Test
  void thePrimarysHostBacksUpSweepsAndANewHostBootstrapsCopyingOnlyTheDifference() throws Exception {
    ClusterHarness c = cluster(config().retention(RetentionPolicy.keepLast(2)).retentionInterval(Duration.ofMillis(300)).build());
    c.start(0);
    assertThat(c.awaitPrimary()).isZero();
    ClusterNode p = c.node(0);
    ManifestStore manifests = fixture.manifests();
    long committed = -1;
    for (int round = 0; round < 4; round++) {
      c.addDocs(p, 3_000);
      committed = p.refresh();
      p.commit();
      long version = committed;
      await("backup of commit " + version).atMost(WAIT)
          .until(() -> manifests.latestId().map(ManifestId::version).orElse(-1L) >= version);
    }
    await("retention down to 2 backups").atMost(WAIT).until(() -> manifests.list().size() <= 2);
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
    System.out.printf("N2 restored %d bytes from the store, fetched %d from the primary%n", downloaded, fetched);
    assertThat(downloaded).isGreaterThanOrEqualTo(newest.totalBytes());
    assertThat(fetched).as("bytes from the primary after a bootstrap at its newest commit")
        .isLessThan(newest.totalBytes() / 10);
    // The replica's host backs nothing up while it does not lead.
    assertThat(stores.get(1).metrics(ClusterHarness.INDEX).orElseThrow().snapshot().backupsCompleted()).isZero();
  }

  /**
   * Several indexes of one host: opening them builds no store client (they are views of the host's
   * one), and each index's counters hold what its own backups sent, not the others'.
   */
  @Test
  void theIndexesOfAHostShareOneStoreClientAndEachCountsWhatItSent() throws Exception {
    List<String> names = List.of("big", "small", "idle");
    HostStoreConfig config = config().build();
    AtomicInteger clientsBuiltByIndexes = new AtomicInteger(-1);
    ClusterHarness c = fixture.closeAfter(new ClusterHarness(tmp.resolve("cluster"), fixture.seed(), 1, names))
        .indexOpener((i, host, indexes) -> {
          HostObjectStore s = HostObjectStore.open(host, config);
          stores.put(i, s);
          int before = BlobStore.clientsBuilt();
          for (String name : indexes) {
            s.openIndex(IndexSettings.standard(name));
          }
          clientsBuiltByIndexes.set(BlobStore.clientsBuilt() - before);
        });
    fixture.closeAfter(() -> stores.values().forEach(HostObjectStore::close));
    c.start(0);
    assertThat(clientsBuiltByIndexes.get()).as("store clients built by opening %d indexes", names.size()).isZero();
    Map<String, Integer> docs = Map.of("big", 3_000, "small", 20);
    for (Map.Entry<String, Integer> e : docs.entrySet()) {
      c.awaitPrimary(e.getKey(), WAIT);
      ClusterNode p = c.node(0, e.getKey());
      c.addDocs(p, e.getValue());
      long version = p.refresh();
      p.commit();
      ManifestStore manifests = new ManifestStore(fixture.manifests().blobStore(),
          StoreLayout.of(config.store().prefix(), ClusterHarness.CLUSTER, e.getKey()));
      await("backup of " + e.getKey()).atMost(WAIT)
          .until(() -> manifests.latestId().map(ManifestId::version).orElse(-1L) >= version);
    }
    HostObjectStore host = stores.get(0);
    long bigStoredBytes = storedFileBytes(host.layout("big"));
    for (String name : names) {
      ObjectStoreMetrics.Snapshot s = host.metrics(name).orElseThrow().snapshot();
      List<String> files = fixture.server().keys(host.layout(name).filesPrefix());
      assertThat(s.requests()).as("%s's requests", name).isPositive();
      assertThat(s.filesUploaded()).as("%s's files uploaded: its own, each once", name).isEqualTo(files.size());
      assertThat(s.bytesUploaded()).as("%s's bytes uploaded", name).isGreaterThanOrEqualTo(storedFileBytes(host.layout(name)));
      if (!name.equals("big")) {
        assertThat(s.bytesUploaded()).as("%s counts none of big's bytes", name).isLessThan(bigStoredBytes);
      }
    }
  }

  private long storedFileBytes(StoreLayout layout) throws Exception {
    long bytes = 0;
    for (String key : fixture.server().keys(layout.filesPrefix())) {
      bytes += fixture.server().read(key).length;
    }
    return bytes;
  }

  @Test
  void aStoppedStoreStopsNeitherIndexingNorReplicationAndBackupsResumeWhenItIsBack() throws Exception {
    ClusterHarness c = cluster(config().build());
    c.start(0);
    assertThat(c.awaitPrimary()).isZero();
    c.start(1);
    ClusterNode p = c.node(0);
    ManifestStore manifests = fixture.manifests();
    fixture.server().stop();

    c.addDocs(p, 500);
    long during = p.refresh();
    p.commit();
    c.awaitAllAt(p.searchingVersion());
    assertThat(ClusterHarness.count(c.node(1))).isEqualTo(500);
    HostObjectStore primaryStore = stores.get(0);
    await("a failed backup counted").atMost(WAIT)
        .until(() -> primaryStore.metrics(ClusterHarness.INDEX).orElseThrow().snapshot().backupsFailed() >= 1);

    fixture.server().restart();
    c.addDocs(p, 500);
    long after = p.refresh();
    p.commit();
    assertThat(after).isGreaterThan(during);
    await("a backup after the store is back").atMost(WAIT)
        .until(() -> manifests.latestId().map(ManifestId::version).orElse(-1L) >= after);
    assertThat(manifests.list()).extracting(ManifestId::version).doesNotContain(during);
  }

  @Test
  void aGracefulCloseBacksUpWhatThePrimarySearchesLast() throws Exception {
    ClusterHarness c = cluster(config().build());
    c.start(0);
    assertThat(c.awaitPrimary()).isZero();
    ClusterNode p = c.node(0);
    ManifestStore manifests = fixture.manifests();
    c.addDocs(p, 700);
    long last = p.refresh(); // searched, never committed by the application
    assertThat(stores.remove(0).close(WAIT)).isTrue();
    assertThat(manifests.latestId()).get().extracting(ManifestId::version).isEqualTo(last);
    assertThat(manifests.latest().version()).isEqualTo(last);
  }

  /**
   * Retention belongs to the index, not to a node's time as primary: a new primary sweeps once the
   * last sweep, by whichever node made it, is an interval old, and not before (its record in the
   * store says when). Before, each host swept on its own fixed delay from when it opened the index,
   * so a cluster whose primaries moved more often than the interval might never sweep.
   */
  @Test
  void retentionRunsWhereverThePrimaryIsOnceTheLastSweepIsAnIntervalOld() throws Exception {
    Duration interval = Duration.ofSeconds(4);
    ClusterHarness c = cluster(config().retention(RetentionPolicy.keepLast(1)).retentionInterval(interval).build());
    c.start(0);
    assertThat(c.awaitPrimary()).isZero();
    c.start(1);
    ClusterNode p = c.node(0);
    ManifestStore manifests = fixture.manifests();
    for (int round = 0; round < 2; round++) {
      c.addDocs(p, 500);
      long version = p.refresh();
      p.commit();
      await("backup of commit " + version).atMost(WAIT)
          .until(() -> manifests.latestId().map(ManifestId::version).orElse(-1L) >= version);
    }
    int first = c.host(0).nodeId();
    RetentionRun byFirst = await("a sweep by N" + first).atMost(WAIT)
        .until(() -> RetentionRun.read(manifests.blobStore(), manifests.layout()).orElse(null),
            r -> r != null && r.node() == first);
    assertThat(stores.get(0).lastRetentionRun(ClusterHarness.INDEX)).contains(byFirst);

    c.stop(0); // the primary moves
    assertThat(c.awaitPrimary()).isEqualTo(1);
    int second = c.host(1).nodeId();
    RetentionRun bySecond = await("a sweep by N" + second).atMost(WAIT)
        .until(() -> RetentionRun.read(manifests.blobStore(), manifests.layout()).orElse(null),
            r -> r != null && r.node() == second);
    assertThat(bySecond.started()).as("the new primary waited for the interval since %s", byFirst)
        .isAfterOrEqualTo(byFirst.finished().plus(interval));
    assertThat(bySecond.primaryGen()).isGreaterThan(byFirst.primaryGen());
  }

  /** A record older than the interval (left by a node long gone) makes the primary sweep at once. */
  @Test
  void aStaleRetentionRecordMakesThePrimarySweepAtOnce() throws Exception {
    ManifestStore manifests = fixture.manifests();
    Instant longAgo = Instant.now().minus(Duration.ofHours(3));
    RetentionRun old = new RetentionRun(9, 1, longAgo, longAgo, 1, 0, 0, 0, true);
    manifests.blobStore().put(manifests.layout().retentionRecordKey(), old.encode());
    ClusterHarness c = cluster(config().retention(RetentionPolicy.keepLast(1)).retentionInterval(Duration.ofHours(1)).build());
    c.start(0);
    assertThat(c.awaitPrimary()).isZero();
    int id = c.host(0).nodeId();
    // A tick is 30 s at this interval: the first check, at most one tick after the primary leads, sweeps.
    RetentionRun run = await("a sweep by N" + id).atMost(WAIT)
        .until(() -> RetentionRun.read(manifests.blobStore(), manifests.layout()).orElse(null),
            r -> r != null && r.node() == id);
    assertThat(run.finished()).isAfter(longAgo.plus(Duration.ofHours(1)));
  }

  /**
   * The primary rereads its newest backup in the background: an object damaged in the store is found
   * and reported (the host's report, the metric), and the next backup uploads a fresh copy of it, after
   * which a verification finds the backup intact.
   */
  @Test
  void thePrimaryVerifiesItsNewestBackupAndTheNextBackupRepairsWhatItFound() throws Exception {
    ClusterHarness c = cluster(config().verifyInterval(Duration.ofMillis(500)).verifyBytesPerSecond(0).build());
    c.start(0);
    assertThat(c.awaitPrimary()).isZero();
    ClusterNode p = c.node(0);
    ManifestStore manifests = fixture.manifests();
    c.addDocs(p, 1_000);
    long first = p.refresh();
    p.commit();
    await("backup of " + first).atMost(WAIT).until(() -> manifests.latestId().map(ManifestId::version).orElse(-1L) >= first);
    Manifest m = manifests.latest();
    FileEntry victim = m.files().values().stream().max(java.util.Comparator.comparingLong(FileEntry::length)).orElseThrow();
    String key = manifests.layout().fileKey(victim);
    byte[] bytes = fixture.server().read(key);
    bytes[bytes.length / 2] ^= 0x10;
    fixture.server().write(key, bytes);

    HostObjectStore store = stores.get(0);
    VerifyReport damaged = await("a verification finds " + key).atMost(WAIT)
        .until(() -> store.verification(ClusterHarness.INDEX).orElse(null), r -> r != null && !r.intact());
    assertThat(damaged.damagedKeys()).containsExactly(key);
    assertThat(store.metrics(ClusterHarness.INDEX).orElseThrow().snapshot().lastVerifyDamaged()).isEqualTo(1);

    c.addDocs(p, 10);
    p.refresh();
    p.commit();
    long second = m.version() + 1;
    await("a verification of the next backup finds it intact").atMost(WAIT)
        .until(() -> store.verification(ClusterHarness.INDEX).orElse(null),
            r -> r != null && r.manifest().version() >= second && r.intact());
    assertThat(manifests.latest().files()).containsValue(victim);
    assertThat(store.metrics(ClusterHarness.INDEX).orElseThrow().snapshot().lastVerifyDamaged()).isZero();
  }

  @Test
  void wrongCredentialsFailAtOpenNamingTheBucket() throws Exception {
    NrtHost host = fixture.cluster(tmp.resolve("cluster"), 1).start(0);
    HostStoreConfig wrong = HostStoreConfig.builder()
        .store(fixture.config(b -> b.credentials(S3TestServer.ACCESS_KEY, "wrong"))).build();
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

package io.nrtcluster.objectstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.node.ClusterHarness;
import io.nrtcluster.node.IndexSettings;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node whose object store does not answer at start: the host's one bounded look at the store (the
 * start timeout) is all the store costs, whatever the number of indexes; each index serves from its
 * local index or copies from the primary, and the host attaches the store once it answers.
 */
class StoreAtStartTest {
  private static final int INDEXES = 24;

  @RegisterExtension final StoreFixture fixture = StoreFixture.of(StoreAtStartTest.class, "start", "");
  @TempDir Path tmp;

  /**
   * A port that takes connections and never answers (the worst store: nothing is refused, every
   * request waits for its timeout). Before, the host opened its indexes one after another, each with
   * the store's whole retry budget (5 attempts, 30 s socket timeouts): many minutes for 24 indexes.
   */
  @Test
  @Timeout(value = 150, unit = TimeUnit.SECONDS)
  void manyIndexesOpenWithinOneStartTimeoutOfAStoreThatNeverAnswers() throws Exception {
    try (ServerSocket silent = new ServerSocket(0, 500, InetAddress.getLoopbackAddress())) {
      URI endpoint = URI.create("http://127.0.0.1:" + silent.getLocalPort());
      HostStoreConfig config = HostStoreConfig.builder()
          .store(fixture.config(b -> b.endpoint(endpoint))).build();
      List<String> names = new ArrayList<>();
      for (int i = 0; i < INDEXES; i++) {
        names.add("idx" + i);
      }
      List<HostObjectStore> stores = new ArrayList<>();
      ClusterHarness c = cluster(1, names, config, stores, false);
      long start = System.nanoTime();
      c.start(0);
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      System.out.printf("%d indexes opened in %d ms against a store that never answers%n", INDEXES, took.toMillis());
      // One start timeout (5 s by default) for the host's look, plus the indexes' own local opening.
      assertThat(took).as("seed %d", fixture.seed()).isLessThan(Duration.ofSeconds(45));
      HostObjectStore store = stores.get(0);
      assertThat(store.storeAttached()).isFalse();
      for (String name : names) {
        assertThat(store.bootstrapResult(name)).get().extracting(BootstrapResult::outcome)
            .isEqualTo(BootstrapResult.Outcome.FELL_BACK);
        assertThat(store.metrics(name).orElseThrow().snapshot().requests())
            .as("%s looked at a store known not to answer", name).isZero();
      }
      await("every index leads and takes writes").atMost(Duration.ofSeconds(60))
          .until(() -> names.stream().allMatch(n -> c.node(0, n).isWritablePrimary()));
    }
  }

  /**
   * A store that is down when the node starts: the indexes open without it (in parallel), serve and
   * take writes; once the store answers the host attaches it, and the next commit is backed up.
   */
  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void aStoreDownAtStartIsAttachedOnceItAnswersAndTheNextCommitIsBackedUp() throws Exception {
    List<String> names = List.of("a", "b", "c");
    HostStoreConfig config = HostStoreConfig.builder().startTimeout(Duration.ofSeconds(1))
        .store(fixture.config(b -> b.maxAttempts(2).backoff(Duration.ofMillis(50), Duration.ofMillis(200)))).build();
    fixture.server().stop();
    List<HostObjectStore> stores = new ArrayList<>();
    ClusterHarness c = cluster(1, names, config, stores, true);
    c.start(0);
    HostObjectStore store = stores.get(0);
    assertThat(store.storeAttached()).isFalse();
    for (String name : names) {
      assertThat(store.bootstrapResult(name)).get().extracting(BootstrapResult::outcome)
          .isEqualTo(BootstrapResult.Outcome.FELL_BACK);
    }
    await("every index leads").atMost(Duration.ofSeconds(60))
        .until(() -> names.stream().allMatch(n -> c.node(0, n).isWritablePrimary()));
    c.addDocs(c.node(0, "b"), 100);
    c.node(0, "b").refresh();

    fixture.server().restart();
    await("the store attached again").atMost(Duration.ofSeconds(30)).until(store::storeAttached);
    c.addDocs(c.node(0, "b"), 100);
    long version = c.node(0, "b").refresh();
    c.node(0, "b").commit();
    ManifestStore manifests = new ManifestStore(fixture.manifests().blobStore(),
        StoreLayout.of("", ClusterHarness.CLUSTER, "b"));
    await("a backup of b").atMost(Duration.ofSeconds(60))
        .until(() -> manifests.latestId().map(ManifestId::version).orElse(-1L) >= version);
  }

  /** Indexes opened together bootstrap together: each restores its own newest backup. */
  @Test
  @Timeout(value = 150, unit = TimeUnit.SECONDS)
  void indexesOpenedTogetherEachBootstrapFromTheirNewestBackup() throws Exception {
    List<String> names = List.of("i0", "i1", "i2", "i3", "i4", "i5");
    HostStoreConfig config = HostStoreConfig.builder().openParallelism(3)
        .store(fixture.config(b -> b.maxAttempts(2).backoff(Duration.ofMillis(50), Duration.ofMillis(200)))).build();
    List<HostObjectStore> stores = new ArrayList<>();
    ClusterHarness c = cluster(2, names, config, stores, true);
    c.start(0);
    await("node 0 leads every index").atMost(Duration.ofSeconds(60))
        .until(() -> names.stream().allMatch(n -> c.node(0, n).isWritablePrimary()));
    BlobStore blobs = fixture.manifests().blobStore();
    for (String name : names) {
      c.addDocs(c.node(0, name), 200);
      long version = c.node(0, name).refresh();
      c.node(0, name).commit();
      ManifestStore manifests = new ManifestStore(blobs, StoreLayout.of("", ClusterHarness.CLUSTER, name));
      await("a backup of " + name).atMost(Duration.ofSeconds(60))
          .until(() -> manifests.latestId().map(ManifestId::version).orElse(-1L) >= version);
      // A commit moves the version: the next refresh publishes it, as a service's periodic refresh
      // does (a replica never searches a primary's commit no refresh published).
      c.node(0, name).refresh();
    }
    c.start(1);
    HostObjectStore second = stores.get(1);
    for (String name : names) {
      assertThat(second.bootstrapResult(name)).get().extracting(BootstrapResult::outcome)
          .as(name).isEqualTo(BootstrapResult.Outcome.RESTORED);
    }
    for (String name : names) {
      long v = c.node(0, name).searchingVersion();
      await(name + " on node 1").atMost(Duration.ofSeconds(60)).until(() -> c.node(1, name).searchingVersion() >= v);
      assertThat(ClusterHarness.count(c.node(1, name))).isEqualTo(200);
    }
  }

  /**
   * A cluster of {@code nodes} hosts whose indexes {@code names} open through a {@link HostObjectStore}
   * with {@code config} (added to {@code stores} as they start): {@link HostObjectStore#openIndexes}
   * when {@code together}, else one {@link HostObjectStore#openIndex} after another.
   */
  private ClusterHarness cluster(int nodes, List<String> names, HostStoreConfig config, List<HostObjectStore> stores,
      boolean together) throws Exception {
    ClusterHarness c = fixture.closeAfter(new ClusterHarness(tmp.resolve("cluster"), fixture.seed(), nodes, names));
    c.indexOpener((i, host, indexes) -> {
      HostObjectStore s = HostObjectStore.open(host, config);
      stores.add(s);
      if (together) {
        s.openIndexes(indexes.stream().map(IndexSettings::standard).toList());
      } else {
        for (String name : indexes) {
          s.openIndex(IndexSettings.standard(name));
        }
      }
    });
    fixture.closeAfter(() -> stores.forEach(HostObjectStore::close));
    return c;
  }
}

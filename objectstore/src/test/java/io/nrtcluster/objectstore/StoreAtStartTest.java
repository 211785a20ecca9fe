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
      ClusterHarness c = fixture.closeAfter(new ClusterHarness(tmp.resolve("cluster"), fixture.seed(), 1, names));
      c.indexOpener((i, host, indexes) -> {
        HostObjectStore s = HostObjectStore.open(host, config);
        stores.add(s);
        for (String name : indexes) {
          s.openIndex(IndexSettings.standard(name));
        }
      });
      fixture.closeAfter(() -> stores.forEach(HostObjectStore::close));
      long start = System.nanoTime();
      c.start(0);
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      System.out.printf("%d indexes opened in %d ms against a store that never answers%n", INDEXES, took.toMillis());
      // One start timeout (5 s by default) for the host's look, plus the indexes' own local opening.
      assertThat(took).as("seed %d", fixture.seed()).isLessThan(Duration.ofSeconds(45));
      HostObjectStore store = stores.get(0);
      for (String name : names) {
        assertThat(store.bootstrapResult(name)).get().extracting(BootstrapResult::outcome)
            .isEqualTo(BootstrapResult.Outcome.FELL_BACK);
      }
      await("every index leads and takes writes").atMost(Duration.ofSeconds(60))
          .until(() -> names.stream().allMatch(n -> c.node(0, n).isWritablePrimary()));
    }
  }
}

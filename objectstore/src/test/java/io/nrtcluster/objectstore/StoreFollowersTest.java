package io.nrtcluster.objectstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nrtcluster.node.ClusterHarness;
import io.nrtcluster.node.ClusterNode;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A follower host ({@link StoreFollowers}): no ZooKeeper, no transport, only the store; its followers
 * serve what the cluster's primary backed up, with meters for their lag and bytes, and a store down at
 * open does not stop it.
 */
@Timeout(120)
class StoreFollowersTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  @RegisterExtension final StoreFixture store = StoreFixture.of(StoreFollowersTest.class, "F3", "");
  @TempDir Path tmp;

  private HostStoreConfig config() {
    return HostStoreConfig.builder().startTimeout(Duration.ofSeconds(1))
        .store(store.config(b -> b.maxAttempts(2).backoff(Duration.ofMillis(50), Duration.ofMillis(200)))).build();
  }

  @Test
  void aFollowerHostServesEveryPointThePrimaryBacksUpAndCountsItsLag() throws Exception {
    ClusterHarness c = store.clusterWithPrimary(tmp.resolve("cluster"), 1);
    store.backups(c.node(0), BackupMode.EVERY_POINT, "B1");
    MeterRegistry registry = new SimpleMeterRegistry();
    StoreFollowers followers = store.closeAfter(StoreFollowers.open(3, ClusterHarness.CLUSTER, tmp.resolve("f3"), config(),
        StoreFollowerConfig.builder().pollInterval(Duration.ofMillis(50)).build(), registry));
    StoreFollower f = followers.follow(ClusterHarness.INDEX);
    assertThatThrownBy(() -> followers.follow(ClusterHarness.INDEX)).isInstanceOf(IllegalStateException.class);
    ClusterNode p = c.node(0);
    c.addDocs(p, 300);
    long v = p.refresh();
    await("the follower at " + v).atMost(WAIT).until(() -> f.status().version() >= v);
    assertThat(f.status().caughtUp()).isTrue();
    assertThat(tmp.resolve("f3").resolve(ClusterHarness.INDEX).resolve("index")).isDirectory();
    assertThat(registry.get(StoreFollowers.VERSION).gauge().value()).isEqualTo(v);
    assertThat(registry.get(StoreFollowers.LAG_VERSIONS).gauge().value()).isZero();
    assertThat(registry.get(ObjectStoreMeters.BYTES_DOWNLOADED).tag("node", "3").functionCounter().count()).isPositive();
    assertThat(followers.follower(ClusterHarness.INDEX)).contains(f);
  }

  @Test
  void aStoreDownAtOpenIsNotFatalAndTheFollowerCatchesUpOnceItAnswers() throws Exception {
    ClusterHarness c = store.clusterWithPrimary(tmp.resolve("cluster"), 1);
    store.backups(c.node(0), BackupMode.EVERY_POINT, "B1");
    ClusterNode p = c.node(0);
    store.server().stop();
    StoreFollowers followers = store.closeAfter(StoreFollowers.open(3, ClusterHarness.CLUSTER, tmp.resolve("f3"), config(),
        StoreFollowerConfig.builder().pollInterval(Duration.ofMillis(50)).build(), null));
    StoreFollower f = followers.follow(ClusterHarness.INDEX);
    assertThat(f.status().version()).isEqualTo(-1);
    store.server().restart();
    c.addDocs(p, 100);
    long v = p.refresh();
    await("the follower at " + v).atMost(WAIT).until(() -> f.status().version() >= v);
  }
}

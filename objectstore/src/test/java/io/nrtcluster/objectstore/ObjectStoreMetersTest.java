package io.nrtcluster.objectstore;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nrtcluster.common.NodeLog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/** The store's counters as Micrometer meters, read at scrape time. */
class ObjectStoreMetersTest {
  private static final NodeLog LOG = new NodeLog(LoggerFactory.getLogger(ObjectStoreMetersTest.class), "T", () -> -1);

  @Test
  @Timeout(60)
  void metersFollowTheCountersAndAreRemovedOnClose() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    ObjectStoreMetrics metrics = new ObjectStoreMetrics();
    try (S3TestServer server = S3TestServer.start();
        BlobStore store = BlobStore.open(server.config().build(), metrics, LOG)) {
      ObjectStoreMeters meters = ObjectStoreMeters.register(registry, metrics, Tags.of("index", "docs"));
      assertThat(registry.get(ObjectStoreMeters.BYTES_UPLOADED).tags("index", "docs").functionCounter().count()).isZero();
      store.put("k", new byte[1234]);
      store.get("k");
      assertThat(registry.get(ObjectStoreMeters.BYTES_UPLOADED).functionCounter().count()).isEqualTo(1234);
      assertThat(registry.get(ObjectStoreMeters.BYTES_DOWNLOADED).functionCounter().count()).isEqualTo(1234);
      assertThat(registry.get(ObjectStoreMeters.REQUESTS).tags("index", "docs").functionCounter().count())
          .as("the bucket check at open, the PUT and the GET").isEqualTo(3);
      assertThat(registry.get(ObjectStoreMeters.LAST_VERSION).gauge().value()).isEqualTo(-1);
      assertThat(registry.get(ObjectStoreMeters.LAG_VERSIONS).gauge().value()).isZero();
      assertThat(registry.get(ObjectStoreMeters.VERIFY_RUNS).functionCounter().count()).isZero();
      assertThat(registry.get(ObjectStoreMeters.VERIFY_DAMAGED).gauge().value()).isZero();
      assertThat(registry.get(ObjectStoreMeters.VERIFY_LAST_VERSION).gauge().value()).isEqualTo(-1);
      meters.close();
      assertThat(registry.getMeters()).isEmpty();
    }
  }
}

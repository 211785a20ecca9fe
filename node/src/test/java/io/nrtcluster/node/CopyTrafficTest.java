package io.nrtcluster.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nrtcluster.transport.Traffic;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the primary sends each replica, counted by its transport (never the kernel's counters): each
 * replica's copies (NRT points and a merge's pre-copy) cost the primary at least the bytes the
 * replica copied and little more, and what the primary sent a replica is what that replica received.
 */
@Timeout(120)
class CopyTrafficTest {
  @TempDir Path dir;

  @Test
  void thePrimarysTransportCountsWhatItSendsEachReplica() throws Exception {
    long seed = FailoverTest.seed();
    MeterRegistry registry = new SimpleMeterRegistry();
    try (ClusterHarness c = new ClusterHarness(dir, seed, 3, List.of(ClusterHarness.INDEX)).meters(0, registry)
        .startWithFirstAsPrimary()) {
      ClusterNode primary = c.node(0);
      for (int round = 0; round < 3; round++) {
        c.addDocs(primary, 500);
        c.awaitAllAt(primary.refresh());
      }
      primary.primary().writer().forceMerge(1);
      c.awaitAllAt(primary.refresh());
      int p = c.host(0).nodeId();
      for (int i = 1; i <= 2; i++) {
        ClusterNode replica = c.node(i);
        int r = c.host(i).nodeId();
        long copied = replica.replica().stats().bytesCopied();
        await("what N" + p + " sent N" + r + " is what N" + r + " received (seed " + seed + ")")
            .atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
              Traffic sent = primary.trafficByPeer().get(r);
              Traffic received = replica.trafficByPeer().get(p);
              assertThat(sent).isNotNull();
              assertThat(received).isNotNull();
              assertThat(received.bytesReceived()).isEqualTo(sent.bytesSent());
            });
        long sent = primary.trafficByPeer().get(r).bytesSent();
        System.out.printf("N%d sent N%d %d bytes for %d bytes copied%n", p, r, sent, copied);
        assertThat(copied).as("seed %d", seed).isPositive();
        assertThat(sent).as("seed %d: bytes sent to N%d against its %d copied", seed, r, copied)
            .isBetween(copied, copied + copied / 20 + (64 << 10));
      }
      Map<Integer, Traffic> byPeer = primary.trafficByPeer();
      double counted = registry.get(NrtMeters.TRANSPORT_BYTES_SENT).functionCounter().count();
      assertThat(counted).isGreaterThanOrEqualTo(byPeer.values().stream().mapToLong(Traffic::bytesSent).sum());
    }
  }
}

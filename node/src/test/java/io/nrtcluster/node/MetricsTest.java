package io.nrtcluster.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nrtcluster.transport.FaultInjection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The meters of {@link NrtMeters} on a real cluster, read from Micrometer's SimpleMeterRegistry. */
@Timeout(180)
class MetricsTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  static double counter(MeterRegistry r, String name) {
    return r.get(name).counter().count();
  }

  static double gauge(MeterRegistry r, String name) {
    return r.get(name).gauge().value();
  }

  static long timerCount(MeterRegistry r, String name) {
    return r.get(name).timer().count();
  }

  static List<String> nrtMeterNames(MeterRegistry r) {
    return r.getMeters().stream().map(Meter::getId).map(Meter.Id::getName).filter(n -> n.startsWith("nrt.")).toList();
  }

  @Test
  void metersFollowCopiesLagAndAFailover() throws Exception {
    long seed = FailoverTest.seed();
    MeterRegistry[] registries = {new SimpleMeterRegistry(), new SimpleMeterRegistry(), new SimpleMeterRegistry()};
    try (ClusterHarness c = new ClusterHarness(dir, seed, 3, List.of(ClusterHarness.INDEX))
        .meters(0, registries[0]).meters(1, registries[1]).meters(2, registries[2]).startWithFirstAsPrimary()) {
      ClusterNode primary = c.node(0);
      long version = -1;
      for (int round = 0; round < 3; round++) {
        c.addDocs(primary, 200);
        version = primary.refresh("r" + round);
        c.awaitAllAt(version);
      }
      assertThat(timerCount(registries[0], NrtMeters.REFRESH)).as("seed %d", seed).isEqualTo(3);
      // Three segments merge into one: the merged segment goes to both replicas before it is installed.
      primary.primary().writer().forceMerge(1);
      version = primary.refresh("merged");
      c.awaitAllAt(version);
      assertThat(timerCount(registries[0], NrtMeters.MERGE_PRECOPY)).as("seed %d merge pre-copies", seed).isPositive();
      assertThat(timerCount(registries[0], NrtMeters.REFRESH)).isEqualTo(4);
      for (String replica : new String[] {"2", "3"}) {
        await("the primary sees N" + replica + " caught up").atMost(WAIT).until(() -> {
          var lag = registries[0].find(NrtMeters.REPLICA_LAG_VERSIONS).tag(NrtMeters.TAG_REPLICA, replica).gauge();
          var time = registries[0].find(NrtMeters.REPLICA_LAG).tag(NrtMeters.TAG_REPLICA, replica).timeGauge();
          return lag != null && lag.value() == 0 && time != null && time.value(TimeUnit.MILLISECONDS) == 0;
        });
      }
      assertThat(gauge(registries[0], NrtMeters.PRIMARY)).isEqualTo(1.0);
      assertThat(counter(registries[0], NrtMeters.COPY_BYTES)).as("the primary copies nothing").isZero();
      assertThat(registries[0].get(NrtMeters.COPY_BYTES).tag(NrtMeters.TAG_INDEX, ClusterHarness.INDEX)
          .tag(NrtMeters.TAG_NODE, "1").counter()).isNotNull();
      for (int i = 1; i < 3; i++) {
        MeterRegistry r = registries[i];
        ClusterNode replica = c.node(i);
        assertThat(gauge(r, NrtMeters.PRIMARY)).isZero();
        assertThat(timerCount(r, NrtMeters.REFRESH)).as("replicas do not refresh").isZero();
        await("N" + (i + 1) + " copy meters match its replica's counters").atMost(WAIT).until(
            () -> counter(r, NrtMeters.COPY_BYTES) == replica.replica().stats().bytesCopied()
                && counter(r, NrtMeters.COPY_FILES) == replica.replica().stats().filesCopied());
        assertThat(counter(r, NrtMeters.COPY_FILES)).as("seed %d N%d files", seed, i + 1).isPositive();
        // Every verified file carries at least Lucene's header and footer.
        assertThat(counter(r, NrtMeters.COPY_BYTES)).as("seed %d N%d bytes", seed, i + 1)
            .isGreaterThan(counter(r, NrtMeters.COPY_FILES) * 16);
        assertThat(counter(r, NrtMeters.CHECKSUM_MISMATCHES)).isZero();
        assertThat(counter(r, NrtMeters.COPY_FAILURES)).isZero();
        assertThat(counter(r, NrtMeters.STORAGE_FAILURES)).isZero();
        assertThat(counter(r, NrtMeters.SCRUB_FAILURES)).isZero();
        assertThat(r.get(NrtMeters.COPY_FAILURES_BY_REASON).counters()).as("one counter per reason").hasSize(4)
            .allSatisfy(f -> assertThat(f.count()).isZero());
        assertThat(r.get(NrtMeters.FILE_VERDICTS).counters()).hasSize(2).allSatisfy(f -> assertThat(f.count()).isZero());
        assertThat(gauge(r, NrtMeters.CONSECUTIVE_COPY_FAILURES)).isZero();
        assertThat(timerCount(r, NrtMeters.REPLICATION_DELAY)).as("installs of announced versions").isPositive();
        await("N" + (i + 1) + " lag settles").atMost(WAIT).until(
            () -> gauge(r, NrtMeters.LAG_VERSIONS) == 0 && r.get(NrtMeters.LAG).timeGauge().value(TimeUnit.MILLISECONDS) == 0);
      }
      for (int i = 0; i < 3; i++) {
        assertThat(gauge(registries[i], NrtMeters.PRIMARY_GENERATION)).as("N%d", i + 1)
            .isEqualTo((double) c.node(i).primaryGen()).isPositive();
        assertThat(counter(registries[i], NrtMeters.FAILOVERS)).isZero();
      }
      long oldGen = primary.primaryGen();
      c.awaitInSync();

      c.kill(0);
      assertThat(nrtMeterNames(registries[0])).as("a stopped index leaves the registry").isEmpty();
      int p = c.awaitPrimary();
      ClusterNode next = c.node(p);
      int other = p == 1 ? 2 : 1;
      for (int i : new int[] {p, other}) {
        MeterRegistry r = registries[i];
        ClusterNode n = c.node(i);
        await("N" + (i + 1) + " saw the failover").atMost(WAIT).until(
            () -> counter(r, NrtMeters.FAILOVERS) == 1 && n.primaryGen() > oldGen
                && gauge(r, NrtMeters.PRIMARY_GENERATION) == n.primaryGen());
      }
      assertThat(gauge(registries[p], NrtMeters.PRIMARY)).isEqualTo(1.0);
      assertThat(gauge(registries[other], NrtMeters.PRIMARY)).isZero();
      assertThat(registries[other].find(NrtMeters.REPLICA_LAG_VERSIONS).gauges()).as("a replica has no per-replica meters").isEmpty();

      c.addDocs(next, 200);
      long v2 = next.refresh("after-failover");
      c.awaitAllAt(v2);
      assertThat(timerCount(registries[p], NrtMeters.REFRESH)).as("the new primary's refreshes").isEqualTo(1);
      assertThat(gauge(registries[p], NrtMeters.LAG_VERSIONS)).as("a primary lags nothing").isZero();
      await("N" + (other + 1) + " lag settles after the failover").atMost(WAIT)
          .until(() -> gauge(registries[other], NrtMeters.LAG_VERSIONS) == 0);
      double copiedBefore = counter(registries[other], NrtMeters.COPY_FILES);
      assertThat(copiedBefore).isPositive();

      await("the new primary sees N" + (other + 1) + " caught up").atMost(WAIT).until(() -> {
        var lag = registries[p].find(NrtMeters.REPLICA_LAG_VERSIONS).tag(NrtMeters.TAG_REPLICA, Integer.toString(other + 1)).gauge();
        return lag != null && lag.value() == 0;
      });
      assertThat(registries[p].find(NrtMeters.REPLICA_LAG_VERSIONS).gauges()).as("the killed node is no member").hasSize(1);

      c.stop(other);
      assertThat(nrtMeterNames(registries[other])).isEmpty();
      await("a replica that left loses its meters on the primary").atMost(WAIT)
          .until(() -> registries[p].find(NrtMeters.REPLICA_LAG_VERSIONS).gauges().isEmpty());
    }
  }

  @Test
  void bitFlipsCountAsChecksumMismatchesAndAHostWithoutRegistryRegistersNothing() throws Exception {
    long seed = FailoverTest.seed();
    MeterRegistry registry = new SimpleMeterRegistry();
    try (ClusterHarness c = new ClusterHarness(dir, seed, 2, List.of(ClusterHarness.INDEX))
        .transport(1, ClusterHarness.transport().toBuilder().chunkBytes(16 * 1024)
            .faults(FaultInjection.builder().bitFlipProbability(0.3).seed(seed).build()).build())
        .meters(1, registry).startWithFirstAsPrimary()) {
      ClusterNode primary = c.node(0);
      ClusterNode replica = c.node(1);
      for (int round = 0; round < 20 && counter(registry, NrtMeters.CHECKSUM_MISMATCHES) == 0; round++) {
        c.addDocs(primary, 400);
        c.awaitAllAt(primary.refresh());
      }
      long injected = c.host(1).transport().faultStats().bitFlipsInjected();
      assertThat(counter(registry, NrtMeters.CHECKSUM_MISMATCHES)).as("seed %d: of %d flips injected", seed, injected)
          .isPositive().isLessThanOrEqualTo(injected)
          .isEqualTo((double) replica.replica().stats().checksumMismatches());
      assertThat(ClusterHarness.count(replica)).isEqualTo(ClusterHarness.count(primary));

      assertThat(c.host(0).metricsFor(primary)).as("no registry, no meters").isSameAs(IndexMetrics.NONE);
      assertThat(nrtMeterNames(Metrics.globalRegistry)).isEmpty();
    }
  }
}

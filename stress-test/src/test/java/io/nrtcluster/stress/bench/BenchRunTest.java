package io.nrtcluster.stress.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tiny benchmark run end to end (real node JVMs), checking what it produces, not how fast anything
 * was: timings belong to {@code bin/nrt bench}, not to tests. The scale and bootstrap figures, which
 * start node processes of their own, have their own tests ({@link ScaleFigureTest}, {@link
 * BootstrapFigureTest}). About four minutes here, a minute and a half of it figure 12 (ten node
 * processes, six cells).
 */
class BenchRunTest {
  @TempDir Path dir;

  @Test
  @Timeout(value = 8, unit = TimeUnit.MINUTES)
  void everyFigureComesWithItsBaselineInBenchJson() throws Exception {
    Path out = dir.resolve("bench");
    BenchConfig tiny = new BenchConfig(out, List.of(500), List.of(250), 3, 1, 3, false, 16L << 20, 1, 4_000, 384, false,
        EnumSet.complementOf(EnumSet.of(BenchFigure.SCALE, BenchFigure.BOOTSTRAP)));
    BenchRun.run(tiny, System.out::println);

    JsonNode json = new ObjectMapper().readTree(out.resolve("bench.json").toFile());
    assertThat(json.path("provenance").path("commit").asText()).as("the commit measured (run inside the repository)")
        .matches("[0-9a-f]{40}");
    assertThat(json.path("provenance").path("startedAt").asText()).isNotBlank();
    assertThat(json.path("machine").path("cores").asInt()).isPositive();
    assertThat(json.path("machine").path("memoryBytes").asLong()).isPositive();
    assertThat(json.path("machine").path("jdk").asText()).isNotBlank();
    JsonNode f = json.path("figures");
    assertThat(f.path("visibilityLag").path("p50Ratio").asDouble()).isPositive();
    assertThat(f.path("visibilityLag").path("p99Ratio").asDouble()).isPositive();
    JsonNode cell = f.path("visibilityLag").path("cells").get(0);
    assertThat(cell.path("localRefreshMs").path("n").asInt()).isPositive();
    assertThat(cell.path("replicaLagMs").path("n").asInt()).isPositive();
    assertThat(cell.has("localRefreshMergeWait500Ms")).isTrue();
    assertThat(f.path("commitBased").path("p50Ratio").asDouble()).isPositive();
    assertThat(f.path("commitBased").path("p99Ratio").asDouble()).isPositive();
    assertThat(f.path("copyThroughput").path("ratio").asDouble()).isPositive();
    assertThat(f.path("copyThroughput").path("oneReplica").path("bytes").asLong()).isGreaterThanOrEqualTo(16L << 20);
    assertThat(f.path("copyThroughput").path("twoReplicas").path("bytes").asLong()).isGreaterThanOrEqualTo(16L << 20);
    // Each round has its baselines right before and right after its pre-copy, as many transfers at once as
    // replicas copied; each replica's and each raw receiver process's CPU is reported per GiB.
    for (String round : List.of("twoReplicas", "oneReplica")) {
      JsonNode r = f.path("copyThroughput").path(round);
      for (String when : List.of("Before", "After")) {
        assertThat(r.path("bytes" + when).asLong()).as(round + " bytes" + when).isPositive();
        assertThat(r.path("diskWriteMiBPerSec" + when).asDouble()).as(round + " disk " + when).isPositive();
        assertThat(r.path("loopbackMiBPerSec" + when).asDouble()).as(round + " loopback " + when).isPositive();
        assertThat(r.path("rawReceiverCpuSecPerGiB" + when).asDouble()).as(round + " receiver CPU " + when).isPositive();
        // Reported (not -1, unknown). /proc counts in 10 ms ticks, too coarse to compare parts of a 16 MiB copy.
        assertThat(r.path("rawReceiverUserCpuSecPerGiB" + when).asDouble()).as(round + " receiver user CPU " + when)
            .isGreaterThanOrEqualTo(0.0);
      }
      assertThat(r.path("replicaCpuSecPerGiB").asDouble()).as(round).isPositive();
      assertThat(r.path("replicaUserCpuSecPerGiB").asDouble()).as(round + " replica user CPU").isGreaterThanOrEqualTo(0.0);
      assertThat(r.path("ratio").asDouble()).as(round).isEqualTo(Math.min(r.path("ratioBefore").asDouble(),
          r.path("ratioAfter").asDouble()));
      assertThat(r.path("processCpuRatio").asDouble()).as(round).isPositive();
    }
    assertThat(f.path("replicaCpu").path("ratio").asDouble()).isPositive();
    assertThat(f.path("replicaCpu").has("docReplicationRatio")).isTrue();
    assertThat(f.path("searchWhileCopying").path("ratio").asDouble()).isPositive();
    assertThat(f.path("failover").path("p50Ms").asDouble()).isPositive();
    assertThat(f.path("failover").path("maxMs").asDouble()).isPositive();
    assertThat(f.path("failover").path("sessionTimeoutMs").asInt()).isEqualTo(4_000);
    assertThat(f.path("failover").path("pause").path("p50Ms").asDouble()).isPositive();
    assertThat(f.path("failover").path("pause").path("wakeToReplicaP50Ms").asDouble()).isPositive();
    // Figure 6's acknowledged loss: one kill per level; a replicated acknowledgement is never lost.
    assertThat(f.path("failover").path("acknowledgedLoss").get(0).path("durability").asText()).isEqualTo("LOCAL");
    JsonNode replicatedLoss = f.path("failover").path("acknowledgedLoss").get(1);
    assertThat(replicatedLoss.path("durability").asText()).isEqualTo("REPLICATED");
    assertThat(replicatedLoss.path("acknowledgedDocs").asLong()).isPositive();
    assertThat(replicatedLoss.path("lostDocs").asLong()).isZero();
    // Figure 13: a follower's lag, with the store direct and through the delaying relay.
    assertThat(f.path("followers").path("lag").path("n").asInt()).isPositive();
    assertThat(f.path("followers").path("delayedLag").path("n").asInt()).isPositive();
    assertThat(f.path("followers").path("delayMs").asInt()).isEqualTo(BenchConfig.DEFAULT_LINK_DELAY_MS);
    // Figure 12: 1, 2 and 4 replicas, the copy tree off then on, each cell with its bytes, lag per level and pre-copy.
    JsonNode fanout = f.path("fanout").path("cells");
    assertThat(fanout).hasSize(6);
    int i = 0;
    for (int replicas : new int[] {1, 2, 4}) {
      for (boolean tree : new boolean[] {false, true}) {
        JsonNode c = fanout.get(i++);
        assertThat(c.path("replicas").asInt()).isEqualTo(replicas);
        assertThat(c.path("tree").asBoolean()).isEqualTo(tree);
        assertThat(c.path("newDataBytes").asLong()).isGreaterThanOrEqualTo(16L << 20);
        assertThat(c.path("sentPerNewByte").asDouble()).isPositive();
        // Levels: one with the tree off; with it on, one per level of a tree of fan-out 2 below one direct replica.
        assertThat(c.path("levels")).hasSize(tree ? (replicas == 4 ? 3 : replicas) : 1);
        assertThat(c.path("levels").get(0).path("lagMs").path("n").asInt()).isPositive();
        assertThat(c.path("preCopy").path("succeeded").asInt()).isEqualTo(replicas);
        assertThat(c.path("preCopy").path("slowestMiBPerSec").asDouble()).isPositive();
        assertThat(c.path("preCopy").path("wallSec").asDouble()).isPositive();
        assertThat(c.path("replicaDetail")).hasSize(replicas);
      }
    }
    // With the tree, the primary sends 4 replicas each new byte about once (every one of them, without it).
    assertThat(fanout.get(5).path("sentPerNewByte").asDouble()).isLessThan(fanout.get(4).path("sentPerNewByte").asDouble());
    // Figure 11: both levels measured without and with the link delay, with the bound's parts.
    JsonNode ack = f.path("ackLatency").path("cells");
    assertThat(ack).hasSize(2);
    assertThat(ack.get(0).path("oneWayDelayMs").asInt()).isZero();
    assertThat(ack.get(1).path("oneWayDelayMs").asInt()).isEqualTo(BenchConfig.DEFAULT_LINK_DELAY_MS);
    for (JsonNode c : ack) {
      assertThat(c.path("localWriteToAckMs").path("n").asInt()).isPositive();
      assertThat(c.path("replicatedWriteToAckMs").path("n").asInt()).isPositive();
      assertThat(c.path("replicatedWriteToAckMs").path("p50").asDouble())
          .isGreaterThan(c.path("replicatedRefreshCallMs").path("p50").asDouble());
      assertThat(c.path("bound").path("installMs").asDouble()).isPositive();
      assertThat(c.path("bound").path("boundMs").asDouble()).isGreaterThan(c.path("bound").path("localP50Ms").asDouble());
    }
    assertThat(ack.get(1).path("bound").path("roundTripMs").asDouble()).isGreaterThanOrEqualTo(50);
    try (var plots = Files.list(out)) {
      assertThat(plots.filter(p -> p.getFileName().toString().startsWith("lag-")).toList()).hasSize(1)
          .allSatisfy(p -> assertThat(Files.size(p)).isGreaterThan(5_000));
    }
  }
}

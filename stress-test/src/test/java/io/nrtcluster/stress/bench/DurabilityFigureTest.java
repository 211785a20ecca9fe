package io.nrtcluster.stress.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Figure 11 without running it: the bound's arithmetic, its console rows and its bench.json shape,
 * and figure 6's acknowledged loss in bench.json.
 */
class DurabilityFigureTest {
  private static final Provenance PROVENANCE =
      new Provenance("0123456789abcdef0123456789abcdef01234567", false, "2026-11-27T00:00:00Z", "2026-11-27T00:10:00Z");

  @TempDir Path dir;

  private static Dist d(double p50) {
    return new Dist(p50, p50 * 2, p50 * 3, 10);
  }

  /** Steps with copy-state 0.5, files 3.0, searcher 2.0 ms at p50 (the rest must not count). */
  private static final BenchReport.PhaseBreakdown STEPS = new BenchReport.PhaseBreakdown(1000, 100, d(16), d(25), d(0.5),
      d(3.0), d(2.0), d(1.2));

  @Test
  void theBoundIsLocalPlusOneRoundTripPlusTheInstallSteps() {
    BenchReport.AckBound none = BenchReport.AckBound.of(120.0, 0, 0.05, STEPS);
    assertThat(none.roundTripMs()).isEqualTo(0.05);
    assertThat(none.installMs()).isEqualTo(5.5);
    assertThat(none.boundMs()).isEqualTo(125.55);
    assertThat(none.met(125.55)).isTrue();
    assertThat(none.met(125.56)).isFalse();
    assertThat(none.met(-1)).as("no replicated acknowledgement measured").isFalse();

    BenchReport.AckBound delayed = BenchReport.AckBound.of(130.0, 25, 0.05, STEPS);
    assertThat(delayed.roundTripMs()).isEqualTo(50.05);
    assertThat(delayed.boundMs()).isEqualTo(185.55);
    assertThat(delayed.localP50Ms()).isEqualTo(130.0);
    assertThat(delayed.loopbackRttMs()).isEqualTo(0.05);
  }

  @Test
  void rowsShowTheRatiosAndTheBoundWithItsParts() {
    BenchTable table = new BenchTable();
    DurabilityFigure.rows(table, cell(25, 130.0, 170.0));
    String text = table.render();
    assertThat(text).contains("write-to-ack p50 REPLICATED / LOCAL (1000 docs/s, 100 ms, 25 ms each way)")
        .contains("170.0 ms").contains("130.0 ms").contains("1.308")
        .contains("130.0 + 50.1 RTT + 5.5 install = 185.6 ms").contains("0.916").contains("<= 1 met");
    BenchTable missed = new BenchTable();
    DurabilityFigure.rows(missed, cell(0, 120.0, 140.0));
    assertThat(missed.render()).contains("(1000 docs/s, 100 ms, no link delay)").contains("<= 1 missed");
  }

  @Test
  void benchJsonCarriesFigure11AndTheAcknowledgedLoss() throws Exception {
    BenchReport.Failover failover = new BenchReport.Failover(1, 2, 3, 4, 5, 6, 7, "n", 8, 9, 10, null, List.of(
        new BenchReport.AckLoss("LOCAL", 2, 5, 20, 200, 40, List.of(20L, 20L), "n"),
        new BenchReport.AckLoss("REPLICATED", 2, 5, 20, 200, 0, List.of(0L, 0L), "n")));
    BenchReport.AckLatency latency = new BenchReport.AckLatency(1000, 100, DurabilityFigure.WINDOWS,
        List.of(cell(0, 120.0, 124.0), cell(25, 130.0, 170.0)), "n");
    BenchReport report = new BenchReport(PROVENANCE, new BenchReport.Machine(2, 1L << 30, "jdk", "os"), config(),
        new BenchReport.Figures(null, null, null, null, null, failover, null, null, null, null, latency, null));
    Path file = dir.resolve("bench.json");
    report.writeTo(file);
    JsonNode json = new ObjectMapper().readTree(file.toFile());

    assertThat(names(json.path("figures"))).containsExactly("failover", "ackLatency");
    assertThat(names(json.at("/figures/ackLatency"))).containsExactly("docsPerSec", "refreshMs", "windows", "cells", "note");
    assertThat(names(json.at("/figures/ackLatency/cells/1"))).containsExactly("oneWayDelayMs", "windowsPerLevel",
        "windowSec", "localWriteToAckMs", "replicatedWriteToAckMs", "localRefreshCallMs", "replicatedRefreshCallMs",
        "p50Ratio", "p99Ratio", "replicatedRefused", "localSlowestInstallAfterReturnMs", "bound", "targetMet", "localSteps", "replicatedSteps");
    assertThat(names(json.at("/figures/ackLatency/cells/1/bound"))).containsExactly("localP50Ms", "loopbackRttMs",
        "roundTripMs", "installMs", "boundMs");
    assertThat(json.at("/figures/ackLatency/cells/1/bound/boundMs").asDouble()).isEqualTo(185.55);
    assertThat(json.at("/figures/ackLatency/cells/1/targetMet").asBoolean()).isTrue();
    assertThat(json.at("/figures/ackLatency/cells/0/replicatedWriteToAckMs/p50").asDouble()).isEqualTo(124.0);
    assertThat(names(json.at("/figures/failover/acknowledgedLoss/0"))).containsExactly("durability", "failovers",
        "batchesPerFailover", "docsPerBatch", "acknowledgedDocs", "lostDocs", "lostPerFailover", "note");
    assertThat(json.at("/figures/failover/acknowledgedLoss/1/durability").asText()).isEqualTo("REPLICATED");
    assertThat(json.at("/figures/failover/acknowledgedLoss/0/lostDocs").asLong()).isEqualTo(40);
  }

  @Test
  void aFailoverWithoutTheLossLeavesItOut() throws Exception {
    BenchReport report = new BenchReport(PROVENANCE, new BenchReport.Machine(2, 1L << 30, "jdk", "os"), config(),
        new BenchReport.Figures(null, null, null, null, null, new BenchReport.Failover(1, 2, 3, 4, 5, 6, 7, "n", 8, 9, 10,
            null)));
    Path file = dir.resolve("bench.json");
    report.writeTo(file);
    assertThat(names(new ObjectMapper().readTree(file.toFile()).at("/figures/failover"))).doesNotContain("acknowledgedLoss");
  }

  @Test
  void theSlowerReplicasSwitchCountsFromTheRefreshsReturn() {
    List<BenchApi.Refresh> refreshes = List.of(
        new BenchApi.Refresh(10, 0, 100),
        new BenchApi.Refresh(11, 200, 300),
        new BenchApi.Refresh(12, 400, 500));
    List<BenchApi.CopySteps> a = List.of(
        new BenchApi.CopySteps(10, 101, 101, 103, 104, 105),
        new BenchApi.CopySteps(12, 501, 501, 510, 520, 521));
    List<BenchApi.CopySteps> b = List.of(
        new BenchApi.CopySteps(10, 102, 102, 140, 150, 151),
        new BenchApi.CopySteps(11, 301, 301, 305, 306, 307));
    // 10: slower switch 150 -> 50; 11: a skipped it, its next is 12 (520) -> 220; 12: b never had it -> left out.
    assertThat(DurabilityFigure.slowestInstallAfterReturn(refreshes, List.of(a, b))).containsExactly(50L, 220L);
    assertThat(DurabilityFigure.slowestInstallAfterReturn(refreshes, List.of())).isEmpty();
  }

  private static BenchReport.AckCell cell(int delay, double localP50, double replicatedP50) {
    BenchReport.AckBound bound = BenchReport.AckBound.of(localP50, delay, 0.05, STEPS);
    return new BenchReport.AckCell(delay, 4, 8, d(localP50), d(replicatedP50), d(10), d(20),
        Dist.ratio(replicatedP50, localP50), Dist.ratio(replicatedP50 * 2, localP50 * 2), 0, d(9), bound,
        bound.met(replicatedP50), STEPS, STEPS);
  }

  private static BenchConfig config() {
    return new BenchConfig(Path.of("out"), List.of(500), List.of(250), 3, 1, 3, false, 16L << 20, 1, 4_000, 384, false,
        EnumSet.allOf(BenchFigure.class));
  }

  private static List<String> names(JsonNode node) {
    List<String> out = new ArrayList<>();
    node.fieldNames().forEachRemaining(out::add);
    return out;
  }
}

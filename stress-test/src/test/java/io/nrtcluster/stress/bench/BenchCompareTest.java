package io.nrtcluster.stress.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.offset;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** --compare: each figure's ratios against a base run, worse beyond the tolerance flagged in the figure's bad direction. */
@Timeout(30)
class BenchCompareTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode run(String commit, double lagP50, double searchRatio, String extra) throws Exception {
    return JSON.readTree("""
        {"provenance": {"commit": "%s", "startedAt": "2026-11-27T00:00:00Z"},
         "figures": {
           "visibilityLag": {"p50Ratio": %s, "targetP50Ratio": 1.2, "cells": [{"p50Ratio": %s, "replicaLagMs": {"p50": 40}}]},
           "searchWhileCopying": {"ratio": %s}%s
         }}""".formatted(commit, lagP50, lagP50, searchRatio, extra));
  }

  @Test
  void flagsWhatGotWorseBeyondTheToleranceInEachFiguresBadDirection() throws Exception {
    JsonNode base = run("aaaa", 1.40, 0.50, ", \"failover\": {\"p50Ratio\": 0.3}");
    JsonNode now = run("bbbb", 1.90, 0.80, ", \"fanout\": {\"ratio\": 1.0}");

    List<BenchCompare.Line> lines = BenchCompare.compare(base, now, 0.25);
    assertThat(lines).extracting(BenchCompare.Line::path).containsExactly("/visibilityLag/p50Ratio",
        "/visibilityLag/cells/0/p50Ratio", "/searchWhileCopying/ratio", "/fanout/ratio", "/failover/p50Ratio");
    assertThat(lines).extracting(BenchCompare.Line::verdict).containsExactly(BenchCompare.Verdict.WORSE,
        BenchCompare.Verdict.WORSE, BenchCompare.Verdict.BETTER, BenchCompare.Verdict.NEW, BenchCompare.Verdict.GONE);
    assertThat(lines.get(0).change()).isCloseTo(1.90 / 1.40, offset(1e-9));
    assertThat(BenchCompare.regressed(lines)).isTrue();
    String text = BenchCompare.render(base, now, lines, 0.25);
    assertThat(text).contains("commit aaaa").contains("REGRESSION").contains("2 ratio(s) got worse");

    // Within the tolerance, and a lower search throughput beyond it.
    List<BenchCompare.Line> small = BenchCompare.compare(base, run("cccc", 1.50, 0.30, ""), 0.25);
    assertThat(small.get(0).verdict()).isEqualTo(BenchCompare.Verdict.SAME);
    assertThat(small.get(2).verdict()).as("throughput: lower is worse").isEqualTo(BenchCompare.Verdict.WORSE);
  }

  @Test
  void aCpuRatioOfAThroughputFigureIsBetterLower() {
    assertThat(BenchCompare.higherIsBetter("/copyThroughput/ratio")).isTrue();
    assertThat(BenchCompare.higherIsBetter("/copyThroughput/oneReplica/processCpuRatio")).isFalse();
    assertThat(BenchCompare.higherIsBetter("/searchWhileCopying/ratio")).isTrue();
    assertThat(BenchCompare.higherIsBetter("/visibilityLag/p50Ratio")).isFalse();
  }

  @Test
  void aBaseOfSeveralRunsIsWorseOnlyBeyondItsWorstRun() throws Exception {
    JsonNode base = BenchRuns.combine(List.of(run("aaaa", 1.2, 0.7, ""), run("aaaa", 1.6, 0.9, ""),
        run("aaaa", 1.4, 0.8, "")), List.of("run-1", "run-2", "run-3"));
    assertThat(BenchCompare.defaultTolerance(base)).isEqualTo(BenchCompare.TOLERANCE_BEYOND_SPREAD);
    assertThat(BenchCompare.defaultTolerance(run("aaaa", 1, 1, ""))).isEqualTo(BenchCompare.TOLERANCE_SINGLE_RUN);

    // 1.7 is 21 % above the median 1.4 but within 10 % of the worst run (1.6): the same.
    List<BenchCompare.Line> within = BenchCompare.compare(base, run("bbbb", 1.7, 0.64, ""), 0.10);
    assertThat(within.get(0).verdict()).isEqualTo(BenchCompare.Verdict.SAME);
    assertThat(within.get(0).baseMin()).isEqualTo(1.2);
    assertThat(within.get(0).baseMax()).isEqualTo(1.6);
    assertThat(within.get(2).verdict()).as("0.64 within 10 %% of the lowest run 0.7").isEqualTo(BenchCompare.Verdict.SAME);

    List<BenchCompare.Line> beyond = BenchCompare.compare(base, run("bbbb", 1.77, 0.62, ""), 0.10);
    assertThat(beyond).extracting(BenchCompare.Line::verdict).containsExactly(BenchCompare.Verdict.WORSE,
        BenchCompare.Verdict.WORSE, BenchCompare.Verdict.WORSE);
    assertThat(BenchCompare.compare(base, run("bbbb", 1.07, 1.0, ""), 0.10).get(0).verdict())
        .as("below the best run by more than the tolerance").isEqualTo(BenchCompare.Verdict.BETTER);
    assertThat(BenchCompare.render(base, run("bbbb", 1.77, 0.62, ""), beyond, 0.10)).contains("median of 3 runs")
        .contains("1.200-1.600");
  }

  @Test
  void theCommittedRunComparedWithItselfHasNoRegressionAndABadToleranceIsRefused() throws Exception {
    JsonNode committed = JSON.readTree(Path.of("..", "docs", "bench", "bench.json").toFile());
    List<BenchCompare.Line> lines = BenchCompare.compare(committed, committed, 0.0);
    assertThat(lines).isNotEmpty().allMatch(l -> l.verdict() == BenchCompare.Verdict.SAME);
    assertThat(BenchCompare.regressed(lines)).isFalse();
    assertThatThrownBy(() -> BenchCompare.compare(committed, committed, -0.1)).hasMessageContaining("tolerance");
  }
}

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
  void theCommittedRunComparedWithItselfHasNoRegressionAndABadToleranceIsRefused() throws Exception {
    JsonNode committed = JSON.readTree(Path.of("..", "docs", "bench", "bench.json").toFile());
    List<BenchCompare.Line> lines = BenchCompare.compare(committed, committed, 0.0);
    assertThat(lines).isNotEmpty().allMatch(l -> l.verdict() == BenchCompare.Verdict.SAME);
    assertThat(BenchCompare.regressed(lines)).isFalse();
    assertThatThrownBy(() -> BenchCompare.compare(committed, committed, -0.1)).hasMessageContaining("tolerance");
  }
}

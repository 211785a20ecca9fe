package io.nrtcluster.stress.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Several runs combined: each number the median of the runs that have it, each run's value kept as the spread. */
@Timeout(30)
class BenchRunsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode run(String commit, boolean dirty, String finished, double lagRatio, double p50, String cell2)
      throws Exception {
    return JSON.readTree("""
        {"provenance": {"commit": "%s", "dirty": %s, "startedAt": "s-%s", "finishedAt": "%s"},
         "machine": {"cores": 2}, "config": {"cellSec": 15},
         "figures": {
           "visibilityLag": {"p50Ratio": %s, "targetP50Ratio": 1.2, "note": "worst cell",
             "cells": [{"docsPerSec": 1000, "p50Ratio": %s, "replicaLagMs": {"p50": %s, "n": 150}}, %s]}}}"""
        .formatted(commit, dirty, finished, finished, lagRatio, lagRatio, p50, cell2));
  }

  private static final String OK_CELL = "{\"docsPerSec\": 10000, \"p50Ratio\": 2.0}";
  private static final String FAILED_CELL = "{\"docsPerSec\": 10000, \"error\": \"session lost\"}";

  @Test
  void everyNumberIsTheMedianOfTheRunsAndEachRunsValueIsKept() throws Exception {
    ObjectNode c = BenchRuns.combine(List.of(run("abc", false, "t1", 1.5, 30.0, OK_CELL),
        run("abc", true, "t2", 1.1, 20.0, FAILED_CELL), run("abc", false, "t3", 1.3, 50.0, OK_CELL)),
        List.of("run-1", "run-2", "run-3"));

    JsonNode lag = c.path("figures").path("visibilityLag");
    assertThat(lag.path("p50Ratio").asDouble()).isEqualTo(1.3);
    assertThat(lag.path("targetP50Ratio").asDouble()).isEqualTo(1.2);
    assertThat(lag.path("note").asText()).isEqualTo("worst cell");
    assertThat(lag.path("cells").get(0).path("replicaLagMs").path("p50").asDouble()).isEqualTo(30.0);
    assertThat(lag.path("cells").get(0).path("replicaLagMs").path("n").isIntegralNumber()).isTrue();
    assertThat(c.path("spread").path("/visibilityLag/p50Ratio").toString()).isEqualTo("[1.5,1.1,1.3]");
    assertThat(c.path("spread").path("/visibilityLag/cells/0/replicaLagMs/p50").toString()).isEqualTo("[30.0,20.0,50.0]");
    // The cell run 2 failed: the median of the two runs that measured it, and only their values.
    assertThat(lag.path("cells").get(1).path("p50Ratio").asDouble()).isEqualTo(2.0);
    assertThat(c.path("spread").path("/visibilityLag/cells/1/p50Ratio").toString()).isEqualTo("[2.0,2.0]");
    assertThat(c.path("spread").has("/visibilityLag/cells/0/docsPerSec")).as("integers the runs share").isFalse();

    assertThat(c.path("provenance").path("commit").asText()).isEqualTo("abc");
    assertThat(c.path("provenance").path("dirty").asBoolean()).as("one run's tree was dirty").isTrue();
    assertThat(c.path("provenance").path("startedAt").asText()).isEqualTo("s-t1");
    assertThat(c.path("provenance").path("finishedAt").asText()).isEqualTo("t3");
    assertThat(c.path("runs")).hasSize(3);
    assertThat(c.path("runs").get(2).path("dir").asText()).isEqualTo("run-3");

    assertThat(BenchMarkdown.render(c)).contains("the median of 3 runs").contains("| p50Ratio | 1.300 (1.100-1.500) |")
        .contains("30.000 (20.000-50.000)");
    assertThat(BenchMarkdown.spreadTable(c)).contains("/visibilityLag/p50Ratio").contains("1.300").contains("1.100")
        .contains("1.500").doesNotContain("target");
  }

  @Test
  void theMedianOfAnEvenNumberIsTheMeanOfTheMiddleTwoAndRunsOfDifferentCommitsAreRefused() throws Exception {
    assertThat(BenchRuns.median(new double[] {4, 1, 3, 2})).isEqualTo(2.5);
    assertThat(BenchRuns.median(new double[] {7})).isEqualTo(7);
    assertThatThrownBy(() -> BenchRuns.combine(List.of(run("abc", false, "t1", 1, 1, OK_CELL),
        run("def", false, "t2", 1, 1, OK_CELL)), List.of("a", "b"))).hasMessageContaining("different commits");
  }
}

package io.nrtcluster.stress.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** docs/benchmarks.md's generated block is exactly what {@code bin/nrt bench --markdown} makes of the committed bench.json. */
@Timeout(30)
class BenchMarkdownTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void thePageShowsTheCommittedRunAsItsDataSays() throws Exception {
    JsonNode committed = JSON.readTree(Path.of("..", "docs", "bench", "bench.json").toFile());
    String page = Files.readString(Path.of("..", "docs", "benchmarks.md"));
    assertThat(BenchMarkdown.block(page))
        .as("docs/benchmarks.md's generated block; regenerate it with bin/nrt bench --markdown docs/bench/bench.json")
        .isEqualTo(BenchMarkdown.render(committed).strip());
  }

  @Test
  void namesTheCommitAndRendersCellsAndDistributions() throws Exception {
    JsonNode run = JSON.readTree("""
        {"provenance": {"commit": "0123456789abcdef0123456789abcdef01234567", "dirty": true,
                        "startedAt": "2026-11-27T10:00:00Z", "finishedAt": "2026-11-27T10:20:00Z"},
         "machine": {"cores": 2, "memoryBytes": 25769803776, "jdk": "25", "os": "Linux"},
         "figures": {"fanout": {"ratio": 1.0, "note": "a|b",
                                "cells": [{"replicas": 4, "lagMs": {"p50": 90.6, "p99": 145.0, "n": 10}}]}}}""");
    String md = BenchMarkdown.render(run);
    assertThat(md).startsWith("Run: commit `0123456789abcdef0123456789abcdef01234567` with uncommitted changes, "
        + "2026-11-27T10:00:00Z to 2026-11-27T10:20:00Z; 2 cores, 24 GiB")
        .contains("#### fanout").contains("| ratio | 1.000 |").contains("| note | a\\|b |")
        .contains("| replicas | lagMs |").contains("| 4 | 90.600 / 145.000 |");
    assertThat(BenchMarkdown.block("x\n" + BenchMarkdown.BEGIN + "\n" + md + "\n" + BenchMarkdown.END + "\ny")).isEqualTo(md.strip());
    assertThat(BenchMarkdown.block("no block here")).isNull();
  }
}

package io.nrtcluster.stress.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * bench.json's format, without running a benchmark: every object's field names in the order a run
 * wrote them when the figures were maps (scripts and the docs' tables read these names), the
 * optional fields left out when absent, and the figures a run skipped missing.
 */
@Timeout(30)
class BenchReportTest {
  private static final Provenance PROVENANCE =
      new Provenance("0123456789abcdef0123456789abcdef01234567", false, "2026-11-27T00:00:00Z", "2026-11-27T00:10:00Z");

  @TempDir Path dir;

  private static final Dist D = new Dist(1.5, 2.5, 3.5, 4);

  private static final BenchReport.CopyRound ROUND = new BenchReport.CopyRound(new BenchReport.PreCopyRun(1, 2, 3, 4, 5, 0.5),
      new BenchReport.RawSpeeds(10, 20, 30, 40, 50, 5), new BenchReport.RawSpeeds(11, 21, 31, 41, 51, 6), 0.8, 0.9, 0.8, 1.1,
      1.3, 1.3);

  @Test
  void everyObjectKeepsItsFieldNamesAndOrder() throws Exception {
    BenchReport report = new BenchReport(PROVENANCE, new BenchReport.Machine(2, 1L << 30, "jdk", "os"), config(),
        new BenchReport.Figures(
            new BenchReport.VisibilityLag(1.1, 1.2, 1.2, 1.5, "n", List.of(
                new BenchReport.LagCell(500, 250, 10, 11, 3, D, D, D, 1.1, 1.2),
                new BenchReport.LagCell(500, 1000, 10, 11, 3, D, null, D, 1.1, 1.2),
                new BenchReport.FailedCell(2000, 250, "session lost"))),
            new BenchReport.CommitBased(1.3, 1.4, "n", List.of(new BenchReport.CommitCell(500, 250, D, D, 1.3, 1.4))),
            new BenchReport.ReplicaCpu(0.1, 0.2, 0.15, "500 docs/s, 250 ms", "n",
                List.of(new BenchReport.CpuCell(500, 250, 2.0, 0.2, 2.1, 0.1, 0.2))),
            new BenchReport.SearchWhileCopying(0.9, 0.8, 0.7, 64L << 20, 3, List.of(new BenchReport.SearchRound(0, 1 << 20,
                0.1, 10, 200, 140, 0.7, 0.1)), "n"),
            new BenchReport.CopyThroughput(ROUND, ROUND, 0.8, 0.9, 1.3, 1.2, "n"),
            new BenchReport.Failover(4000, 5000, 4500, 5500, 4000, 1, 1.0, "n", 1500, 2500, 2000,
                new BenchReport.Pause(900, 1000, 1100, 1200, 300, 400, 1, "n"))));

    JsonNode json = write(report);
    Map<String, List<String>> shape = shape(json);
    Map<String, List<String>> expected = new LinkedHashMap<>();
    expected.put("/", List.of("provenance", "machine", "config", "figures"));
    expected.put("/provenance", List.of("commit", "dirty", "startedAt", "finishedAt"));
    expected.put("/machine", List.of("cores", "memoryBytes", "jdk", "os"));
    expected.put("/figures", List.of("visibilityLag", "commitBased", "replicaCpu", "searchWhileCopying", "copyThroughput",
        "failover"));
    expected.put("/figures/visibilityLag", List.of("p50Ratio", "p99Ratio", "targetP50Ratio", "targetP99Ratio", "note", "cells"));
    expected.put("/figures/visibilityLag/cells/0", List.of("docsPerSec", "refreshMs", "docsIndexedLocal", "docsIndexedPrimary",
        "measuredSec", "localRefreshMs", "localRefreshMergeWait500Ms", "replicaLagMs", "p50Ratio", "p99Ratio"));
    expected.put("/figures/visibilityLag/cells/1", List.of("docsPerSec", "refreshMs", "docsIndexedLocal", "docsIndexedPrimary",
        "measuredSec", "localRefreshMs", "replicaLagMs", "p50Ratio", "p99Ratio"));
    expected.put("/figures/visibilityLag/cells/2", List.of("docsPerSec", "refreshMs", "error"));
    expected.put("/figures/commitBased", List.of("p50Ratio", "p99Ratio", "note", "cells"));
    expected.put("/figures/commitBased/cells/0", List.of("docsPerSec", "refreshMs", "commitLagMs", "nrtLagMs", "p50Ratio",
        "p99Ratio"));
    expected.put("/figures/replicaCpu", List.of("ratio", "docReplicationRatio", "target", "worstCell", "note", "cells"));
    expected.put("/figures/replicaCpu/cells/0", List.of("docsPerSec", "refreshMs", "primaryCpuSec", "replicaCpuSec",
        "docReplicationNodeCpuSec", "ratio", "docReplicationRatio"));
    expected.put("/figures/searchWhileCopying", List.of("ratio", "target", "unpacedRatio", "pacedBytesPerSecond", "replica",
        "rounds", "note"));
    expected.put("/figures/searchWhileCopying/rounds/0", List.of("preCopyBytesPerSecond", "preCopyBytes", "preCopySeconds",
        "preCopyMiBPerSec", "idleQps", "copyingQps", "ratio", "copyingWindowSec"));
    expected.put("/figures/copyThroughput", List.of("twoReplicas", "oneReplica", "ratio", "target", "processCpuRatio",
        "cpuTarget", "note"));
    List<String> round = List.of("bytes", "seconds", "mibPerSecPerReplica", "mergeSeconds", "replicaCpuSecPerGiB",
        "replicaUserCpuSecPerGiB", "bytesBefore", "loopbackMiBPerSecBefore", "diskWriteMiBPerSecBefore",
        "rawReceiverMiBPerSecBefore", "rawReceiverCpuSecPerGiBBefore", "rawReceiverUserCpuSecPerGiBBefore", "bytesAfter",
        "loopbackMiBPerSecAfter", "diskWriteMiBPerSecAfter", "rawReceiverMiBPerSecAfter", "rawReceiverCpuSecPerGiBAfter",
        "rawReceiverUserCpuSecPerGiBAfter", "ratioBefore", "ratioAfter", "ratio",
        "processCpuRatioBefore", "processCpuRatioAfter", "processCpuRatio");
    expected.put("/figures/copyThroughput/twoReplicas", round);
    expected.put("/figures/copyThroughput/oneReplica", round);
    expected.put("/figures/failover", List.of("p50Ms", "maxMs", "allReplicasP50Ms", "allReplicasMaxMs", "sessionTimeoutMs",
        "failovers", "p50OverSessionTimeout", "note", "targetP50Ms", "targetMaxMs", "targetAllReplicasP50Ms", "pause",
        "p99Ms", "targetP99Ms"));
    expected.put("/figures/failover/pause", List.of("p50Ms", "maxMs", "allReplicasP50Ms", "allReplicasMaxMs",
        "wakeToReplicaP50Ms", "wakeToReplicaMaxMs", "pauses", "note"));
    List<String> dist = List.of("p50", "p99", "max", "n");
    shape.keySet().removeIf(path -> path.startsWith("/config"));
    shape.forEach((path, fields) -> {
      if (path.endsWith("Ms") && !expected.containsKey(path)) {
        assertThat(fields).as(path).isEqualTo(dist);
      }
    });
    shape.keySet().removeIf(path -> path.endsWith("Ms") && !expected.containsKey(path));
    assertThat(shape).isEqualTo(expected);

    assertThat(json.at("/figures/copyThroughput/oneReplica/diskWriteMiBPerSecBefore").asDouble()).isEqualTo(30);
    assertThat(json.at("/figures/copyThroughput/oneReplica/diskWriteMiBPerSecAfter").asDouble()).isEqualTo(31);
    assertThat(json.at("/figures/copyThroughput/oneReplica/rawReceiverCpuSecPerGiBBefore").asDouble()).isEqualTo(50);
    assertThat(json.at("/figures/copyThroughput/oneReplica/rawReceiverCpuSecPerGiBAfter").asDouble()).isEqualTo(51);
    assertThat(json.at("/figures/copyThroughput/oneReplica/bytesBefore").isIntegralNumber()).isTrue();
    assertThat(json.at("/figures/copyThroughput/oneReplica/bytes").asLong()).isEqualTo(1);
    assertThat(json.at("/figures/visibilityLag/cells/0/docsIndexedLocal").isIntegralNumber()).isTrue();
    assertThat(json.at("/figures/failover/sessionTimeoutMs").isInt()).isTrue();
    assertThat(json.at("/config/docsPerSec/0").asInt()).isEqualTo(500);
  }

  @Test
  void figuresARunSkippedAreAbsent() throws Exception {
    BenchReport report = new BenchReport(PROVENANCE, new BenchReport.Machine(2, 1L << 30, "jdk", "os"), config(),
        new BenchReport.Figures(null, null, null, null, null, new BenchReport.Failover(1, 2, 3, 4, 5, 6, 7, "n", 8, 9, 10, null)));
    assertThat(names(write(report).path("figures"))).containsExactly("failover");
  }

  private static BenchConfig config() {
    return new BenchConfig(Path.of("out"), List.of(500), List.of(250), 3, 1, 3, false, 16L << 20, 1, 4_000, 384, false,
        EnumSet.allOf(BenchFigure.class));
  }

  private JsonNode write(BenchReport report) throws Exception {
    Path file = dir.resolve("bench.json");
    report.writeTo(file);
    return new ObjectMapper().readTree(file.toFile());
  }

  /** Every object's path and field names, in order; arrays by index. */
  private static Map<String, List<String>> shape(JsonNode root) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    walk(root, "", out);
    return out;
  }

  private static void walk(JsonNode node, String path, Map<String, List<String>> out) {
    if (node.isObject()) {
      out.put(path.isEmpty() ? "/" : path, names(node));
      node.properties().forEach(e -> walk(e.getValue(), path + "/" + e.getKey(), out));
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        walk(node.get(i), path + "/" + i, out);
      }
    }
  }

  private static List<String> names(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }
}

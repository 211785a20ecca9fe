package io.nrtcluster.stress;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The short seeded chaos run of the build: three real node JVMs, a real three-server ZooKeeper
 * ensemble, every fault kind at least once, and a verdict that must be valid. Longer runs are a
 * command ({@code bin/nrt chaos}), not a test.
 */
class ChaosRunTest {
  @TempDir Path dir;

  @Test
  @Timeout(value = 8, unit = java.util.concurrent.TimeUnit.MINUTES)
  void aShortSeededRunWithEveryFaultKindLosesNothing() throws Exception {
    long seed = Long.getLong("nrt.chaos.seed", 42);
    Path reports = dir.resolve("chaos");
    ChaosConfig config = ChaosConfig.builder().nodes(3).duration(Duration.ofSeconds(75)).seed(seed)
        .reportDir(reports).faults(FaultKind.available(NetworkMode.LOOPBACK)).writesPerSecond(300).build();
    ChaosReport report = ChaosRun.run(config, System.out::println);

    String context = "seed=" + seed + " (rerun with -Dnrt.chaos.seed=" + seed + "); report: " + ChaosRun.summary(report);
    assertThat(report.valid()).as(context).isTrue();
    assertThat(report.ops().lost()).as(context).isZero();
    assertThat(report.ops().acknowledged()).as(context).isPositive();
    assertThat(report.versionMismatches()).as(context).isZero();
    assertThat(report.versionChecks()).as(context).isPositive();
    assertThat(report.checkIndexFailures()).as(context).isZero();
    ChaosReport.Faults f = report.faults();
    assertThat(f.skipped()).as(context).isZero();
    assertThat(java.util.List.of(f.primaryKill(), f.replicaKill(), f.jvmCrash(), f.pause(), f.wire(), f.zkServerRestart(),
        f.fullClusterRestart(), f.promotion() + f.promotionsRefused(), f.primaryPause())).as("every kind injected; " + context)
        .allSatisfy(n -> assertThat(n).isPositive());
    assertThat(f.bitFlipsDetected()).as(context).isLessThanOrEqualTo(f.bitFlipsInjected());
    assertThat(f.bitFlipsInjected()).as("every flip placed; " + context)
        .isEqualTo(f.bitFlipsDetected() + f.bitFlipsDiscarded() + f.bitFlipsUndetected() + f.bitFlipsUnaccounted());
    assertThat(List.of(f.bitFlipsUndetected(), f.bitFlipsUnaccounted())).as(context).containsOnly(0L);
    assertThat(report.failovers()).as(context).isPositive();
    ChaosReport.Safety safety = report.safety();
    assertThat(safety.publications()).as("publications found in ZooKeeper's logs; " + context).isPositive();
    assertThat(safety.refreshAcks()).as(context).isPositive();
    assertThat(safety.searchesJudged()).as(context).isPositive();
    assertThat(safety.statusAnswers()).as(context).isPositive();
    assertThat(List.of(safety.ackedUnpublished(), safety.epochOverlaps(), safety.versionsReused(),
        safety.searchesBackInTime(), safety.statusOverBound())).as(context).containsOnly(0L);

    JsonNode json = new ObjectMapper().readTree(reports.resolve("chaos-report.json").toFile());
    assertThat(json.path("seed").asLong()).isEqualTo(seed);
    assertThat(json.path("valid").asBoolean()).isTrue();
    for (String key : new String[] {"durationSec", "nodes", "failovers", "versionMismatches", "checkIndexFailures"}) {
      assertThat(json.has(key)).as(key).isTrue();
    }
    for (String key : new String[] {"attempted", "acknowledged", "lost"}) {
      assertThat(json.path("ops").has(key)).as("ops." + key).isTrue();
    }
    for (String key : new String[] {"ackedUnpublished", "epochOverlaps", "versionsReused", "searchesBackInTime",
        "statusOverBound", "notConvergedAfterHeal"}) {
      assertThat(json.path("safety").has(key)).as("safety." + key).isTrue();
    }
    for (FaultKind k : FaultKind.values()) {
      if (k != FaultKind.WIRE) {
        assertThat(json.path("faults").has(k.key())).as("faults." + k.key()).isTrue();
      }
    }
    assertThat(json.path("faults").has("bitFlipsInjected")).isTrue();
    assertThat(json.path("faults").has("bitFlipsDetected")).isTrue();
    for (String key : new String[] {"bitFlipsDiscarded", "bitFlipsUndetected", "bitFlipsUnaccounted", "checksumMismatches"}) {
      assertThat(json.path("faults").has(key)).as("faults." + key).isTrue();
    }
    assertThat(json.path("failoverMs").has("p50")).isTrue();
    assertThat(json.path("failoverMs").has("max")).isTrue();
    assertThat(json.path("writeGapMs").path("maxMs").asLong()).as(context).isPositive();
    assertThat(json.path("replicationLagMs").has("p50")).isTrue();
    assertThat(json.path("replicationLagMs").has("p99")).isTrue();
    assertThat(Files.size(reports.resolve("chaos-report.png"))).isGreaterThan(10_000);
    assertThat(Files.readString(reports.resolve("chaos-report.html"))).contains("VALID", "data:image/png;base64,");
  }

  /** The verdict can fail: nodes that acknowledge writes they drop must end in lost documents and INVALID. */
  @Test
  @Timeout(value = 4, unit = java.util.concurrent.TimeUnit.MINUTES)
  void writesAcknowledgedButDroppedMakeTheVerdictInvalid() throws Exception {
    Path reports = dir.resolve("sabotage");
    ChaosConfig config = ChaosConfig.builder().nodes(3).duration(Duration.ofSeconds(12)).seed(7).reportDir(reports)
        .faults(EnumSet.noneOf(FaultKind.class)).writesPerSecond(200).dropEveryNthWrite(97).build();
    ChaosReport report = ChaosRun.run(config, System.out::println);
    assertThat(report.valid()).as(ChaosRun.summary(report)).isFalse();
    assertThat(report.ops().lost()).as(ChaosRun.summary(report)).isPositive();
    assertThat(report.problems()).anySatisfy(p -> assertThat(p).startsWith("lost documents"));
    assertThat(Files.readString(reports.resolve("chaos-report.html"))).contains("INVALID");
  }

  /**
   * The verdict can fail on an acknowledgement alone: nodes that answer some refreshes with a
   * version they never published (nothing is lost: the documents are all there) make it INVALID.
   */
  @Test
  @Timeout(value = 4, unit = java.util.concurrent.TimeUnit.MINUTES)
  void aNodeAcknowledgingAnUnpublishedVersionMakesTheVerdictInvalid() throws Exception {
    Path reports = dir.resolve("unpublished");
    ChaosConfig config = ChaosConfig.builder().nodes(3).duration(Duration.ofSeconds(12)).seed(11).reportDir(reports)
        .faults(EnumSet.noneOf(FaultKind.class)).writesPerSecond(200).ackUnpublishedEvery(5).build();
    ChaosReport report = ChaosRun.run(config, System.out::println);
    assertThat(report.valid()).as(ChaosRun.summary(report)).isFalse();
    assertThat(report.ops().lost()).as(ChaosRun.summary(report)).isZero();
    assertThat(report.safety().ackedUnpublished()).as(ChaosRun.summary(report)).isPositive();
    assertThat(report.problems()).anySatisfy(p -> assertThat(p).contains("but ZooKeeper has no such publication"));
  }
}

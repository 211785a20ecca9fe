package io.nrtcluster.stress;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nrtcluster.node.Durability;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Short seeded chaos runs with replicated durability: the harness never replays its log, so no
 * acknowledged write may be lost by the library itself across primary kills and pauses; and the
 * verdict can fail: nodes that drop writes they accepted lose acknowledged ones.
 */
class ReplicatedChaosRunTest {
  @TempDir Path dir;

  @Test
  @Timeout(value = 6, unit = TimeUnit.MINUTES)
  void primaryKillsAndPausesLoseNoAcknowledgedWriteWithoutReplay() throws Exception {
    long seed = Long.getLong("nrt.chaos.seed", 5);
    Path reports = dir.resolve("chaos");
    ChaosConfig config = ChaosConfig.builder().nodes(3).duration(Duration.ofSeconds(45)).seed(seed).reportDir(reports)
        .faults(EnumSet.of(FaultKind.PRIMARY_KILL, FaultKind.PRIMARY_PAUSE, FaultKind.REPLICA_KILL))
        .writesPerSecond(200).faultRate(720).durability(Durability.REPLICATED).build();
    ChaosReport report = ChaosRun.run(config, System.out::println);

    String context = "seed=" + seed + " (rerun with -Dnrt.chaos.seed=" + seed + "); report: " + ChaosRun.summary(report);
    assertThat(report.valid()).as(context).isTrue();
    assertThat(report.durability()).isEqualTo(Durability.REPLICATED);
    assertThat(report.ops().replayed()).as("nothing replayed; " + context).isZero();
    assertThat(report.ops().lost()).as(context).isZero();
    assertThat(report.ops().acknowledged()).as(context).isPositive();
    assertThat(report.failovers()).as(context).isPositive();
    ChaosReport.Replication r = report.replication();
    assertThat(r).as(context).isNotNull();
    assertThat(r.acknowledgedLost()).as(context).isZero();
    assertThat(r.batchesAcknowledged()).as(context).isPositive().isLessThanOrEqualTo(r.batchesAccepted());
    assertThat(r.indeterminateKept() + r.indeterminateLost() + r.indeterminateSuperseded()).as(context)
        .isEqualTo(r.indeterminate());
    assertThat(ChaosRun.summary(report)).contains("durability replicated (no replay)", "acknowledged lost 0");

    JsonNode json = new ObjectMapper().readTree(reports.resolve("chaos-report.json").toFile());
    assertThat(json.path("durability").asText()).isEqualTo("REPLICATED");
    for (String key : new String[] {"batchesAcknowledged", "indeterminateLost", "indeterminateKept", "acknowledgedLost"}) {
      assertThat(json.path("replication").has(key)).as("replication." + key).isTrue();
    }
    for (String key : new String[] {"notEnoughReplicas", "notPrimary", "notPublished", "timeouts"}) {
      assertThat(json.path("replication").path("refused").has(key)).as("replication.refused." + key).isTrue();
    }
  }

  /** Nodes that accept writes and drop some: replicated refreshes acknowledge them, so they are acknowledged and lost. */
  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void acknowledgedWritesDroppedMakeTheVerdictInvalid() throws Exception {
    Path reports = dir.resolve("sabotage");
    ChaosConfig config = ChaosConfig.builder().nodes(3).duration(Duration.ofSeconds(12)).seed(7).reportDir(reports)
        .faults(EnumSet.noneOf(FaultKind.class)).writesPerSecond(200).dropEveryNthWrite(97)
        .durability(Durability.REPLICATED).build();
    ChaosReport report = ChaosRun.run(config, System.out::println);
    String context = ChaosRun.summary(report);
    assertThat(report.valid()).as(context).isFalse();
    assertThat(report.replication().acknowledgedLost()).as(context).isPositive();
    assertThat(report.ops().lost()).as(context).isEqualTo(report.replication().acknowledgedLost());
    assertThat(report.problems()).as(context).anySatisfy(p -> assertThat(p).startsWith("lost documents"))
        .anySatisfy(p -> assertThat(p).contains("was acknowledged"));
    assertThat(List.of(report.safety().ackedUnpublished(), report.safety().epochOverlaps())).containsOnly(0L);
  }
}

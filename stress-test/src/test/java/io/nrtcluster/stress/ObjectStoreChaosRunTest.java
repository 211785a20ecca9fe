package io.nrtcluster.stress;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A short seeded chaos run with the object store on: three real node JVMs open their index through
 * {@code HostObjectStore} against a real S3-compatible server in the harness's JVM, while the schedule
 * wipes and rebuilds replicas (which must bootstrap from the store and catch up from the primary) and
 * stops and restarts the store (indexing and replication must go on, backups must resume). The final
 * check must pass, including the restore of the newest backup, verified and compared with the log.
 */
class ObjectStoreChaosRunTest {
  @TempDir Path dir;

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void replicasRebuiltFromTheStoreAndAStoreOutageLoseNothing() throws Exception {
    long seed = Long.getLong("nrt.chaos.seed", 19);
    Path reports = dir.resolve("chaos");
    // 40 s: three faults (each kind at least once); commits every second, so backups exist early and often.
    ChaosConfig config = ChaosConfig.builder().nodes(3).duration(Duration.ofSeconds(40)).seed(seed).reportDir(reports)
        .objectStore(true).faults(EnumSet.of(FaultKind.REPLICA_REBUILD, FaultKind.STORE_RESTART))
        .commitInterval(Duration.ofSeconds(1)).writesPerSecond(200).followers(1).build();
    ChaosReport report = ChaosRun.run(config, System.out::println);

    String context = "seed=" + seed + " (rerun with -Dnrt.chaos.seed=" + seed + "); report: " + ChaosRun.summary(report);
    assertThat(report.valid()).as(context).isTrue();
    assertThat(report.ops().lost()).as(context).isZero();
    assertThat(report.ops().acknowledged()).as(context).isPositive();
    ChaosReport.Faults f = report.faults();
    assertThat(f.skipped()).as(context).isZero();
    assertThat(f.replicaRebuild()).as(context).isPositive();
    assertThat(f.rebuildsRestored()).as("a rebuilt replica restored from the store; " + context).isPositive();
    assertThat(f.rebuildsRestored() + f.rebuildsFellBack()).as(context).isEqualTo(f.replicaRebuild());
    assertThat(report.rebuilds()).as(context).allSatisfy(r -> assertThat(r.catchUpMillis()).isNotNegative());
    assertThat(f.storeRestart()).as(context).isPositive();
    assertThat(report.storeOutages()).as(context).hasSize(f.storeRestart()).allSatisfy(o -> {
      assertThat(o.convergedWhileDownMillis()).as("replication went on while the store was down").isNotNegative();
      assertThat(o.backupsResumedAfterMillis()).as("backups resumed").isNotNegative();
      assertThat(o.backupAfter()).isGreaterThan(o.backupAtRestart());
    });
    ChaosReport.StoreCheck store = report.store();
    assertThat(store).as(context).isNotNull();
    assertThat(store.problems()).as(context).isEmpty();
    assertThat(store.restored()).as(context).isTrue();
    assertThat(store.backups()).as(context).isPositive();
    assertThat(store.version()).as(context).isBetween(0L, report.finalVersion());
    assertThat(store.numDocs()).as(context).isPositive();
    assertThat(store.replayPosition()).as(context).isPositive();
    assertThat(store.inconsistencies()).as(context).isZero();
    // A store follower followed through the rebuilds and the outage, searched only published versions.
    ChaosReport.Followers followers = report.followers();
    assertThat(followers).as(context).isNotNull();
    assertThat(followers.searches()).as(context).isPositive();
    assertThat(followers.pointsInstalled()).as(context).isPositive();
    assertThat(followers.unpublishedSearches()).as(context).isZero();

    JsonNode json = new ObjectMapper().readTree(reports.resolve("chaos-report.json").toFile());
    for (String key : new String[] {"replicaRebuild", "rebuildsRestored", "rebuildsFellBack", "storeRestart"}) {
      assertThat(json.path("faults").has(key)).as("faults." + key).isTrue();
    }
    assertThat(json.path("store").path("restored").asBoolean()).isTrue();
    assertThat(json.path("rebuilds").isArray()).isTrue();
    assertThat(json.path("rebuilds").get(0).has("bootstrap")).isTrue();
  }
}

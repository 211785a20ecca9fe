package io.nrtcluster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Usage errors of {@code nrt chaos}; the run itself is tested in the stress-test module. */
class ChaosCommandTest {
  @TempDir Path dir;

  @Test
  void badSettingsAreUsageErrorsNamingTheField() throws Exception {
    String report = dir.resolve("r").toString();
    NrtRun r = NrtRun.nrt("chaos", "--nodes", "2", "--report", report);
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("nodes").doesNotContain("Exception");

    r = NrtRun.nrt("chaos", "--faults", "pause,meteor", "--report", report);
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("meteor", "primaryKill");

    r = NrtRun.nrt("chaos", "--duration", "3s", "--report", report);
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("duration");

    Path used = Files.createDirectories(dir.resolve("used"));
    Files.writeString(used.resolve("old.txt"), "x");
    r = NrtRun.nrt("chaos", "--report", used.toString());
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("not empty");

    r = NrtRun.nrt("chaos", "--faults", "replicaRebuild", "--report", report);
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("replicaRebuild", "--object-store").doesNotContain("Exception");

    r = NrtRun.nrt("chaos", "--nodes", "3", "--faults", "copyParentKill", "--report", report);
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("copyParentKill", "4 nodes").doesNotContain("Exception");

    r = NrtRun.nrt("chaos", "--object-store", "--store-backups", "sometimes", "--report", report);
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("--store-backups", "commit or point");

    r = NrtRun.nrt("chaos", "--fault-rate", "5000", "--report", report);
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("faultRate").doesNotContain("Exception");

    r = NrtRun.nrt("chaos", "--wire-flip-probability", "0.9", "--report", report);
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("wireFlipProbability").doesNotContain("Exception");

    r = NrtRun.nrt("chaos", "--help");
    assertThat(r.exit()).isZero();
    assertThat(r.out()).contains("--seed", "--faults", "chaos-report.json", "--object-store", "replicaRebuild", "storeRestart",
        "copyParentKill", "--fault-rate", "--wire-flip-probability");
  }
}

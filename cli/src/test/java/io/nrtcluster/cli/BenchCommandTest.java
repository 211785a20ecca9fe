package io.nrtcluster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code nrt bench --compare}: a base run that cannot be used is a usage error before anything runs. */
@Timeout(60)
class BenchCommandTest {
  @TempDir Path dir;

  @Test
  void aBaseRunThatCannotBeReadOrAToleranceOutOfRangeIsRefusedBeforeTheRun() throws Exception {
    NrtRun missing = NrtRun.nrt("bench", "--out", dir.resolve("a").toString(), "--compare", dir.resolve("nope.json").toString());
    assertThat(missing.exit()).isEqualTo(2);
    assertThat(missing.err()).contains("--compare: cannot read");
    assertThat(dir.resolve("a")).as("nothing ran").doesNotExist();

    Path notBench = Files.writeString(dir.resolve("other.json"), "{\"machine\": {}}");
    NrtRun wrong = NrtRun.nrt("bench", "--out", dir.resolve("b").toString(), "--compare", notBench.toString());
    assertThat(wrong.exit()).isEqualTo(2);
    assertThat(wrong.err()).contains("is not a bench.json");

    NrtRun tolerance = NrtRun.nrt("bench", "--out", dir.resolve("c").toString(), "--compare", notBench.toString(),
        "--compare-tolerance", "-1");
    assertThat(tolerance.exit()).isEqualTo(2);
    assertThat(tolerance.err()).contains("--compare-tolerance must be in [0, 10)");
  }
}

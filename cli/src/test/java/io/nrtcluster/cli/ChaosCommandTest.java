package io.nrtcluster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Usage errors of {@code nrt chaos}; the run itself is tested in the stress-test module. */
class ChaosCommandTest {
  @TempDir Path dir;

  private static String[] run(String... args) {
    CommandLine cmd = Main.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cmd.setOut(new PrintWriter(out, true));
    cmd.setErr(new PrintWriter(err, true));
    int exit = cmd.execute(args);
    return new String[] {Integer.toString(exit), out.toString(), err.toString()};
  }

  @Test
  void badSettingsAreUsageErrorsNamingTheField() throws Exception {
    String report = dir.resolve("r").toString();
    String[] r = run("chaos", "--nodes", "2", "--report", report);
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2]).contains("nodes").doesNotContain("Exception");

    r = run("chaos", "--faults", "pause,meteor", "--report", report);
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2]).contains("meteor", "primaryKill");

    r = run("chaos", "--duration", "3s", "--report", report);
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2]).contains("duration");

    Path used = Files.createDirectories(dir.resolve("used"));
    Files.writeString(used.resolve("old.txt"), "x");
    r = run("chaos", "--report", used.toString());
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2]).contains("not empty");

    r = run("chaos", "--help");
    assertThat(r[0]).isEqualTo("0");
    assertThat(r[1]).contains("--seed", "--faults", "chaos-report.json");
  }
}

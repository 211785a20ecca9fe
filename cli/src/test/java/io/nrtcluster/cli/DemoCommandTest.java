package io.nrtcluster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class DemoCommandTest {

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void shortDemoFailsOverReplaysAndConverges(@TempDir Path dir) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cmd = Main.commandLine();
    cmd.setOut(new PrintWriter(out, true));
    cmd.setErr(new PrintWriter(err, true));

    int exit = cmd.execute("demo", "--duration", "5s", "--dir", dir.toString());

    assertThat(exit).as("exit code; stdout:%n%s%nstderr:%n%s", out, err).isZero();
    assertThat(out.toString()).contains("demo: OK final version=").contains("all 3 nodes agree")
        .containsPattern("election: N[23] is primary of generation \\d+")
        .containsPattern("N[23] restarting: NrtHost.close\\(\\)").containsPattern("N[23] open again at version")
        .contains("failover: halting primary").containsPattern("N\\d is primary \\d+ ms after the halt")
        .containsPattern("replayed \\d+ source docs").containsPattern("N[23] back as REPLICA of generation")
        .containsPattern("demo: OK .* failover=\\d+ms gen \\d+->\\d+ replayed=\\d+");
  }

  @Test
  void usageErrorsAreOneLineWithoutStackTrace() {
    StringWriter err = new StringWriter();
    CommandLine cmd = Main.commandLine();
    cmd.setOut(new PrintWriter(new StringWriter(), true));
    cmd.setErr(new PrintWriter(err, true));

    int exit = cmd.execute("demo", "--duration", "soon");

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString().strip()).doesNotContain("\n").contains("--duration").contains("'soon' is not a duration");
  }

  @Test
  void durationsReadTheWayPeopleWriteThem() {
    assertThat(DurationConverter.parse("20s")).hasSeconds(20);
    assertThat(DurationConverter.parse("500ms")).hasMillis(500);
    assertThat(DurationConverter.parse("1m30s")).hasSeconds(90);
    assertThat(DurationConverter.parse("7")).hasSeconds(7);
    assertThat(DurationConverter.parse("PT2M")).hasMinutes(2);
  }
}

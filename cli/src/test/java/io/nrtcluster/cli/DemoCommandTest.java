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
  void shortDemoConvergesAndPrintsTheSummary(@TempDir Path dir) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cmd = Main.commandLine();
    cmd.setOut(new PrintWriter(out, true));
    cmd.setErr(new PrintWriter(err, true));

    int exit = cmd.execute("demo", "--duration", "5s", "--dir", dir.toString());

    assertThat(exit).as("exit code; stdout:%n%s%nstderr:%n%s", out, err).isZero();
    assertThat(out.toString()).contains("demo: OK final version=").contains("replicas agree");
    assertThat(out.toString()).contains("R2 restarting").contains("R2 open again");
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

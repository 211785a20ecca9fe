package io.nrtcluster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/** A command that does not exist is a usage error naming it, whatever options come with it. */
class UsageErrorsTest {
  @Test
  void anUnknownCommandWithHelpIsAnErrorNamingIt() {
    NrtRun r = NrtRun.nrt("frobnicate", "--help");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.out()).isEmpty();
    assertThat(r.err()).contains("unknown command 'frobnicate'").doesNotContain("Usage:");
  }

  @Test
  void anUnknownCommandAloneIsAnErrorNamingIt() {
    NrtRun r = NrtRun.nrt("frobnicate");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("unknown command 'frobnicate'");
  }

  @Test
  void anExtraArgumentAfterAKnownCommandWithHelpIsAnError() {
    NrtRun r = NrtRun.nrt("status", "extra", "--help");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("extra");
  }

  @Test
  void helpStillWorks() {
    NrtRun top = NrtRun.nrt("--help");
    assertThat(top.exit()).isZero();
    assertThat(top.out()).contains("Usage: nrt");
    NrtRun sub = NrtRun.nrt("promote", "--help");
    assertThat(sub.exit()).isZero();
    assertThat(sub.out()).contains("Usage: nrt promote");
    assertThat(sub.out().replaceAll("\\s+", " ")).as("--force says what it costs")
        .contains("Acknowledged writes, even replicated ones, may be lost");
    NrtRun viaHelp = NrtRun.nrt("help", "status");
    assertThat(viaHelp.exit()).isZero();
    assertThat(viaHelp.out()).contains("Usage: nrt status");
  }

  @Test
  @Timeout(60)
  void everyCommandsHelpExitsZeroWhateverItRequires() {
    List<String> failed = new ArrayList<>();
    helpOfEach(Main.commandLine(), new ArrayList<>(), failed);
    assertThat(failed).isEmpty();
  }

  private static void helpOfEach(CommandLine c, List<String> path, List<String> failed) {
    for (Map.Entry<String, CommandLine> sub : c.getSubcommands().entrySet()) {
      if (sub.getKey().equals("help")) {
        continue;
      }
      List<String> args = new ArrayList<>(path);
      args.add(sub.getKey());
      List<String> withHelp = new ArrayList<>(args);
      withHelp.add("--help");
      NrtRun r = NrtRun.nrt(withHelp.toArray(String[]::new));
      if (r.exit() != 0 || !r.out().contains("Usage: nrt " + String.join(" ", args))) {
        failed.add(String.join(" ", withHelp) + " -> " + r.exit() + ": " + r.err().strip());
      }
      helpOfEach(sub.getValue(), args, failed);
    }
  }
}

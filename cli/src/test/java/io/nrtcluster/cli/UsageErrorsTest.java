package io.nrtcluster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

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
}

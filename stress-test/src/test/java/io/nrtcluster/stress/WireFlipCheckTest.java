package io.nrtcluster.stress;

import static org.assertj.core.api.Assertions.assertThat;

import io.nrtcluster.stress.WireFlipCheck.Sample;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The bit-flip verdict rule on hand-made samples: it holds when every flip is placed, and fails otherwise. */
@Timeout(30)
class WireFlipCheckTest {
  @Test
  void flipsPendingInAnEndedProcessWereDiscardedWithIt() {
    WireFlipCheck.Result r = WireFlipCheck.check(List.of(
        // Killed while copying: 3 flips in its partly copied file and transport buffers at its last sample.
        new Sample("2/1", 40, 30, 7, 0, 3, true),
        // Its next process, live and idle after the final check.
        new Sample("2/2", 25, 20, 5, 0, 0, false),
        new Sample("3/1", 0, 0, 0, 0, 0, false)));
    assertThat(r.clean()).as(r.problems().toString()).isTrue();
    assertThat(r.problems()).isEmpty();
    assertThat(r.injected()).isEqualTo(65);
    assertThat(r.detected()).isEqualTo(50);
    assertThat(r.discarded()).as("7 + 3 died with process 1, + 5").isEqualTo(15);
    assertThat(r.undetected()).isZero();
    assertThat(r.unaccounted()).isZero();
    assertThat(r.injected()).isEqualTo(r.detected() + r.discarded() + r.undetected() + r.unaccounted());
  }

  @Test
  void aFlipStillPendingInALiveProcessAfterTheFinalCheckIsUnaccounted() {
    WireFlipCheck.Result r = WireFlipCheck.check(List.of(
        new Sample("1/1", 40, 30, 7, 0, 3, true),
        new Sample("2/3", 12, 9, 2, 0, 1, false)));
    assertThat(r.clean()).isFalse();
    assertThat(r.unaccounted()).isEqualTo(1);
    assertThat(r.discarded()).isEqualTo(7 + 3 + 2);
    assertThat(r.problems()).containsExactly(
        "N2 (process 3): 1 of 12 injected bit flips unaccounted (detected 9, discarded 2, undetected 0, pending 1 after the final check)");
  }

  @Test
  void countsThatDoNotAddUpAreUnaccountedEitherWay() {
    WireFlipCheck.Result r = WireFlipCheck.check(List.of(
        // A shortfall: a flip neither detected, discarded nor pending (a sample the ledger could not explain).
        new Sample("1/2", 10, 6, 3, 0, 0, true),
        // An excess: more placed than injected.
        new Sample("3/1", 10, 8, 3, 0, 0, false)));
    assertThat(r.clean()).isFalse();
    assertThat(r.unaccounted()).isEqualTo(2);
    assertThat(r.problems()).hasSize(2);
    assertThat(r.problems().get(0)).startsWith("N1 (process 2): 1 of 10 injected bit flips unaccounted")
        .endsWith("pending 0 when it ended)");
    assertThat(r.problems().get(1)).startsWith("N3 (process 1): -1 of 10 injected bit flips unaccounted");
  }

  @Test
  void aFlipInAFileThatPassedItsChecksumMakesTheVerdictFail() {
    WireFlipCheck.Result r = WireFlipCheck.check(List.of(new Sample("1/1", 10, 8, 1, 1, 0, false)));
    assertThat(r.clean()).isFalse();
    assertThat(r.unaccounted()).isZero();
    assertThat(r.undetected()).isEqualTo(1);
    assertThat(r.problems()).containsExactly(
        "N1 (process 1): 1 bit flips read into files that passed their checksum (corrupt bytes accepted)");
  }
}

package io.nrtcluster.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The failure detector's silence discounts this node's own stalls, and nothing else. */
@Timeout(10)
class SilenceWindowTest {
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

  @Test
  void withoutStallsTheSilenceCountsFromTheLastContact() {
    SilenceWindow w = new SilenceWindow(300 * MS);
    long heard = 1_000 * MS;
    for (long now = 1_000 * MS; now <= 2_000 * MS; now += 100 * MS) {
      assertThat(w.countFrom(now, heard)).isEqualTo(heard);
    }
  }

  @Test
  void aStallOfThisNodeRestartsTheSilenceAtItsEnd() {
    SilenceWindow w = new SilenceWindow(300 * MS);
    long heard = 1_000 * MS;
    assertThat(w.countFrom(1_100 * MS, heard)).isEqualTo(heard);
    // The next look comes 600 ms later: this node was paused; 700 ms of "silence" is not the primary's.
    assertThat(w.countFrom(1_700 * MS, heard)).isEqualTo(1_700 * MS);
    assertThat(w.countFrom(1_800 * MS, heard)).isEqualTo(1_700 * MS);
    // Real silence after the stall still accrues from its end, and a later contact counts as usual.
    for (long now = 1_900 * MS; now <= 2_300 * MS; now += 100 * MS) {
      assertThat(w.countFrom(now, heard)).isEqualTo(1_700 * MS);
    }
    assertThat(w.countFrom(2_400 * MS, 2_350 * MS)).isEqualTo(2_350 * MS);
  }

  @Test
  void aLookJustWithinTheBoundIsNoStall() {
    SilenceWindow w = new SilenceWindow(300 * MS);
    assertThat(w.countFrom(0, 0)).isZero();
    assertThat(w.countFrom(300 * MS, 0)).isZero();
    assertThat(w.countFrom(601 * MS, 0)).isEqualTo(601 * MS);
  }

  @Test
  void theBoundMustBePositive() {
    assertThatThrownBy(() -> new SilenceWindow(0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aRefusedConnectionSinceTheLastContactIsNotExcusedByAStall() {
    SilenceWindow w = new SilenceWindow(300 * MS);
    long heard = 1_000 * MS;
    long refused = 1_050 * MS;
    assertThat(w.countFrom(1_100 * MS, heard, refused)).isEqualTo(heard);
    // A stall of this node: without the refusal the silence would restart at 1,700 ms.
    assertThat(w.countFrom(1_700 * MS, heard, refused)).isEqualTo(heard);
    assertThat(w.countFrom(1_800 * MS, heard, refused)).isEqualTo(heard);
  }

  @Test
  void aRefusalBeforeTheLastContactChangesNothing() {
    SilenceWindow w = new SilenceWindow(300 * MS);
    long heard = 1_000 * MS;
    long refused = 900 * MS;
    assertThat(w.countFrom(1_100 * MS, heard, refused)).isEqualTo(heard);
    assertThat(w.countFrom(1_700 * MS, heard, refused)).as("the stall still restarts the silence").isEqualTo(1_700 * MS);
    assertThat(w.countFrom(1_800 * MS, heard, Long.MIN_VALUE)).isEqualTo(1_700 * MS);
  }
}

package io.nrtcluster.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nrtcluster.common.IllegalTransitionException;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class EpochHoldTest {
  /** Written out independently of {@link EpochHold#TABLE}: what the election may do from each value. */
  private static final Map<EpochHold, Set<EpochHold>> EXPECTED = Map.of(
      EpochHold.NONE, EnumSet.of(EpochHold.NONE, EpochHold.HELD, EpochHold.LEFT),
      EpochHold.HELD, EnumSet.of(EpochHold.SUSPENDED, EpochHold.NONE, EpochHold.LEFT),
      EpochHold.SUSPENDED, EnumSet.of(EpochHold.HELD, EpochHold.NONE, EpochHold.LEFT),
      EpochHold.LEFT, EnumSet.noneOf(EpochHold.class));

  @Test
  void everyChangeIsAppliedOrRefusedAsWrittenOut() {
    for (EpochHold from : EpochHold.values()) {
      for (EpochHold to : EpochHold.values()) {
        if (EXPECTED.get(from).contains(to)) {
          assertThat(from.moveTo(to)).as("%s -> %s", from, to).isEqualTo(to);
        } else {
          assertThatThrownBy(() -> from.moveTo(to)).as("%s -> %s", from, to).isInstanceOf(IllegalStateException.class)
              .hasCauseInstanceOf(IllegalTransitionException.class);
        }
      }
    }
  }

  @Test
  void onlyAHeldOrSuspendedEpochIsClaimed() {
    assertThat(EnumSet.allOf(EpochHold.class)).filteredOn(EpochHold::claimed)
        .containsExactlyInAnyOrder(EpochHold.HELD, EpochHold.SUSPENDED);
  }
}

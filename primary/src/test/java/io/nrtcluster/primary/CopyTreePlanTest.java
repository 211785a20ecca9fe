package io.nrtcluster.primary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The copy tree's plan: who copies from the primary, who from which parent, level by level. */
@Timeout(10)
class CopyTreePlanTest {
  private static final CopyTreeConfig ONE_DIRECT_TWO_EACH = new CopyTreeConfig(1, 2, Duration.ofSeconds(2));

  @Test
  void withNoMoreReplicasThanDirectPlacesEveryoneCopiesFromThePrimary() {
    CopyTree t = CopyTree.plan(List.of(2, 3), Set.of(), Set.of(2, 3), CopyTreeConfig.defaults());
    assertThat(t.parents()).isEqualTo(Map.of(2, -1, 3, -1));
    assertThat(t.levels()).isEqualTo(Map.of(2, 1, 3, 1));
  }

  @Test
  void theOthersFillParentsBreadthFirstUpToTheFanOut() {
    CopyTree t = CopyTree.plan(List.of(2, 3, 4, 5, 6, 7, 8), Set.of(), Set.of(2, 3, 4, 5, 6, 7, 8), ONE_DIRECT_TWO_EACH);
    assertThat(t.parents()).isEqualTo(Map.of(2, -1, 3, 2, 4, 2, 5, 3, 6, 3, 7, 4, 8, 4));
    assertThat(t.levels()).isEqualTo(Map.of(2, 1, 3, 2, 4, 2, 5, 3, 6, 3, 7, 3, 8, 3));
    assertThat(t.childrenOf(3)).containsExactly(5, 6);
    assertThat(t.direct(2)).isTrue();
    assertThat(t.direct(5)).isFalse();
    assertThat(t.direct(99)).as("an unknown replica copies from the primary").isTrue();
  }

  @Test
  void inSyncMembersAlwaysCopyFromThePrimaryEvenBeyondTheDirectPlaces() {
    CopyTree t = CopyTree.plan(List.of(2, 3, 4, 5), Set.of(4, 5), Set.of(2, 3, 4, 5), ONE_DIRECT_TWO_EACH);
    assertThat(t.parents()).containsEntry(4, -1).containsEntry(5, -1);
    assertThat(t.parentOf(2)).isEqualTo(4);
    assertThat(t.parentOf(3)).isEqualTo(4);
  }

  @Test
  void aReplicaThatCannotServeIsNeverAParentAndOneNoParentCanTakeCopiesFromThePrimary() {
    // 2 cannot serve (an older release, or no published address): it is no parent; 3 is.
    CopyTree t = CopyTree.plan(List.of(2, 3, 4, 5, 6), Set.of(), Set.of(3, 4), new CopyTreeConfig(1, 1, Duration.ofSeconds(1)));
    assertThat(t.parentOf(3)).as("the direct place goes to one that can serve").isEqualTo(-1);
    assertThat(t.parentOf(4)).isEqualTo(3);
    assertThat(t.parentOf(2)).isEqualTo(4);
    // 2 took 4's only place and cannot serve: nobody is left to take 5 and 6.
    assertThat(t.parentOf(5)).isEqualTo(-1);
    assertThat(t.parentOf(6)).isEqualTo(-1);
  }

  @Test
  void turnedOffEveryoneCopiesFromThePrimary() {
    CopyTree t = CopyTree.plan(List.of(2, 3, 4, 5, 6), Set.of(), Set.of(2, 3, 4, 5, 6), CopyTreeConfig.OFF);
    assertThat(t.parents().values()).containsOnly(-1);
    assertThat(CopyTreeConfig.OFF.enabled()).isFalse();
  }

  @Test
  void badSettingsNameTheField() {
    assertThatThrownBy(() -> new CopyTreeConfig(0, 2, Duration.ofSeconds(1))).hasMessageContaining("copyTree.directReplicas");
    assertThatThrownBy(() -> new CopyTreeConfig(1, 65, Duration.ofSeconds(1))).hasMessageContaining("copyTree.fanOut");
    assertThatThrownBy(() -> new CopyTreeConfig(1, 2, Duration.ZERO)).hasMessageContaining("copyTree.parentWait");
  }
}

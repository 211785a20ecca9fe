package io.nrtcluster.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class TransitionTableTest {
  enum Light { RED, GREEN, YELLOW }

  @Test
  void listedTransitionsPassAndOthersAreRefusedNamingTheMachine() throws Exception {
    TransitionTable<Light> t = TransitionTable.builder("light", Light.class)
        .from(Light.RED, Light.GREEN).from(Light.GREEN, Light.YELLOW).from(Light.YELLOW, Light.RED).build();
    t.check(Light.RED, Light.GREEN);
    assertThat(t.allows(Light.RED, Light.YELLOW)).isFalse();
    assertThatThrownBy(() -> t.check(Light.RED, Light.YELLOW))
        .isInstanceOfSatisfying(IllegalTransitionException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.ILLEGAL_TRANSITION);
          assertThat(e.from()).isEqualTo("RED");
          assertThat(e.to()).isEqualTo("YELLOW");
        }).hasMessage("light: illegal transition RED -> YELLOW");
    assertThat(t.next(Light.GREEN)).containsExactly(Light.YELLOW);
  }

  @Test
  void everyStateNeedsExactlyOneRow() {
    assertThatThrownBy(() -> TransitionTable.builder("light", Light.class).from(Light.RED, Light.GREEN).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("GREEN has no row");
    assertThatThrownBy(() -> TransitionTable.builder("light", Light.class).from(Light.RED).from(Light.RED))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("listed twice");
  }
}

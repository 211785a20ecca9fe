package io.nrtcluster.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SeenRequestsTest {
  @Test
  void anIdIsNewOnceUntilForgotten() {
    SeenRequests seen = new SeenRequests(10);
    assertThat(seen.firstTime("cmd-1")).isTrue();
    assertThat(seen.firstTime("cmd-1")).isFalse();
    seen.forget("cmd-1");
    assertThat(seen.size()).isZero();
    assertThat(seen.firstTime("cmd-1")).as("a new command may reuse a withdrawn one's name").isTrue();
    seen.forget("never-seen");
    assertThat(seen.size()).isEqualTo(1);
  }

  @Test
  void beyondItsCapacityTheOldestIdIsForgotten() {
    SeenRequests seen = new SeenRequests(3);
    for (int i = 0; i < 1000; i++) {
      assertThat(seen.firstTime("cmd-" + i)).isTrue();
      assertThat(seen.size()).isLessThanOrEqualTo(3);
    }
    assertThat(seen.firstTime("cmd-999")).isFalse();
    assertThat(seen.firstTime("cmd-997")).isFalse();
    assertThat(seen.firstTime("cmd-996")).as("evicted").isTrue();
    assertThatThrownBy(() -> new SeenRequests(0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("capacity");
  }
}

package io.nrtcluster.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.nrtcluster.replica.Replica.State;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The replica's lifecycle table, every pair: forward only, RESYNCING back to RUNNING, nothing after CLOSED. */
@Timeout(10)
class ReplicaStateTest {
  private static final Map<State, Set<State>> EXPECTED = Map.of(
      State.STARTING, EnumSet.of(State.RUNNING, State.CLOSED),
      State.RUNNING, EnumSet.of(State.RESYNCING, State.CLOSED),
      State.RESYNCING, EnumSet.of(State.RUNNING, State.CLOSED),
      State.CLOSED, EnumSet.noneOf(State.class));

  @Test
  void everyPairIsAllowedOrRefusedAsDesigned() {
    for (State from : State.values()) {
      for (State to : State.values()) {
        assertThat(State.TRANSITIONS.allows(from, to)).as("%s -> %s", from, to).isEqualTo(EXPECTED.get(from).contains(to));
      }
    }
  }
}

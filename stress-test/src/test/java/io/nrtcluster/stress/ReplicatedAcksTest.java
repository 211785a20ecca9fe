package io.nrtcluster.stress;

import static org.assertj.core.api.Assertions.assertThat;

import io.nrtcluster.stress.agent.AgentApi.Kind;
import io.nrtcluster.stress.agent.AgentApi.Op;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReplicatedAcksTest {
  @Test
  void aBatchIsAcknowledgedOnlyByAReplicatedRefreshOfTheSamePrimaryCoveringIt() {
    TxLog log = new TxLog(3);
    ReplicatedAcks acks = new ReplicatedAcks();
    List<Op> first = List.of(log.append(Kind.UPSERT, 1), log.append(Kind.UPSERT, 2)); // 1, 2
    acks.accepted(1, 5, first);
    List<Op> second = List.of(log.append(Kind.DELETE, 1)); // 3
    acks.accepted(1, 5, second);

    assertThat(acks.refreshed(2, 5, 10)).as("another node").isZero();
    assertThat(acks.refreshed(1, 6, 10)).as("another generation of the same node").isZero();
    assertThat(acks.refreshed(1, 5, 2)).as("covers the first batch only").isEqualTo(2);
    assertThat(acks.isAcknowledged(2)).isTrue();
    assertThat(acks.isAcknowledged(3)).isFalse();
    assertThat(acks.refreshed(1, 5, 3)).isEqualTo(1);
    assertThat(acks.refreshed(1, 5, 3)).as("nothing twice").isZero();
    assertThat(acks.writesAcknowledged()).isEqualTo(3);
    assertThat(acks.batchesAccepted()).isEqualTo(2);
    assertThat(acks.batchesAcknowledged()).isEqualTo(2);
    assertThat(acks.refreshesAcknowledged()).isEqualTo(5);

    // Never accepted (the write failed): indeterminate, whatever refresh covers its position.
    log.append(Kind.UPSERT, 4); // 4
    assertThat(acks.refreshed(1, 5, 4)).isZero();
    assertThat(acks.isAcknowledged(4)).isFalse();

    acks.refused(RefreshRefusal.NOT_ENOUGH_REPLICAS);
    acks.refused(RefreshRefusal.NOT_ENOUGH_REPLICAS);
    acks.refused(RefreshRefusal.GIVEN_UP);
    ChaosReport.Refusals r = acks.refusals();
    assertThat(r.notEnoughReplicas()).isEqualTo(2);
    assertThat(r.givenUp()).isEqualTo(1);
    assertThat(r.notPrimary() + r.notPublished() + r.timeouts() + r.unreachable() + r.other()).isZero();
  }

  @Test
  void refusalsAreTypedFromTheEndpointsErrorCodes() {
    assertThat(RefreshRefusal.of(new AgentException("NOT_ENOUGH_REPLICAS", "x"))).isEqualTo(RefreshRefusal.NOT_ENOUGH_REPLICAS);
    assertThat(RefreshRefusal.of(new AgentException("NOT_PRIMARY", "x"))).isEqualTo(RefreshRefusal.NOT_PRIMARY);
    assertThat(RefreshRefusal.of(new AgentException("NOT_PUBLISHED", "x"))).isEqualTo(RefreshRefusal.NOT_PUBLISHED);
    assertThat(RefreshRefusal.of(new AgentException("TIMEOUT", "x"))).isEqualTo(RefreshRefusal.TIMEOUT);
    assertThat(RefreshRefusal.of(new AgentException("GIVEN_UP", "x"))).isEqualTo(RefreshRefusal.GIVEN_UP);
    assertThat(RefreshRefusal.of(new AgentException("x", new java.net.http.HttpTimeoutException("late"))))
        .isEqualTo(RefreshRefusal.TIMEOUT);
    assertThat(RefreshRefusal.of(new AgentException("x", new java.net.ConnectException("refused"))))
        .isEqualTo(RefreshRefusal.UNREACHABLE);
    assertThat(RefreshRefusal.of(new AgentException("STORAGE", "x"))).isEqualTo(RefreshRefusal.OTHER);
  }
}

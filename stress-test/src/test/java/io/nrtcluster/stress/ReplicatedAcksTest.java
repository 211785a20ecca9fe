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

    assertThat(acks.refreshed(2, 5, 10, 0)).as("another node").isZero();
    assertThat(acks.refreshed(1, 6, 10, 0)).as("another generation of the same node").isZero();
    assertThat(acks.refreshed(1, 5, 2, 0)).as("covers the first batch only").isEqualTo(2);
    assertThat(acks.isAcknowledged(2)).isTrue();
    assertThat(acks.isAcknowledged(3)).isFalse();
    assertThat(acks.refreshed(1, 5, 3, 0)).isEqualTo(1);
    assertThat(acks.refreshed(1, 5, 3, 0)).as("nothing twice").isZero();
    assertThat(acks.writesAcknowledged()).isEqualTo(3);
    assertThat(acks.batchesAccepted()).isEqualTo(2);
    assertThat(acks.batchesAcknowledged()).isEqualTo(2);
    assertThat(acks.refreshesAcknowledged()).isEqualTo(5);

    // Never accepted (the write failed): indeterminate, whatever refresh covers its position.
    log.append(Kind.UPSERT, 4); // 4
    assertThat(acks.refreshed(1, 5, 4, 0)).isZero();
    assertThat(acks.isAcknowledged(4)).isFalse();

    acks.refused(RefreshRefusal.NOT_ENOUGH_REPLICAS);
    acks.refused(RefreshRefusal.NOT_ENOUGH_REPLICAS);
    acks.refused(RefreshRefusal.GIVEN_UP);
    ChaosReport.Refusals r = acks.refusals();
    assertThat(r.notEnoughReplicas()).isEqualTo(2);
    assertThat(r.givenUp()).isEqualTo(1);
    assertThat(r.notPrimary() + r.notPublished() + r.timeouts() + r.unreachable() + r.other()).isZero();
  }

  /**
   * A full-cluster crash keeps only what a node had committed: an acknowledgement before it that no
   * commit of the primary (answered before it) covered is voided; later ones, and covered ones, stand.
   */
  @Test
  void aFullClusterCrashVoidsTheAcknowledgementsNoCommitCovered() {
    TxLog log = new TxLog(3);
    ReplicatedAcks acks = new ReplicatedAcks();
    acks.accepted(1, 2, List.of(log.append(Kind.UPSERT, 1), log.append(Kind.UPSERT, 2))); // 1, 2
    acks.refreshed(1, 2, 2, 100);
    acks.committed(acks.acknowledgedPosition(2), 150); // holds 1 and 2
    acks.accepted(1, 2, List.of(log.append(Kind.UPSERT, 3))); // 3
    acks.refreshed(1, 2, 3, 200);
    acks.committed(acks.acknowledgedPosition(1), 210); // an older generation's commit: holds nothing of gen 2
    // The crash at 300 ms; then a new primary (gen 3) acknowledges 4 at 400 ms.
    acks.accepted(2, 3, List.of(log.append(Kind.UPSERT, 4))); // 4
    acks.refreshed(2, 3, 4, 400);

    ReplicatedAcks.Surviving none = acks.surviving(List.of());
    assertThat(none.voided()).isZero();
    assertThat(List.of(none.test(1), none.test(2), none.test(3), none.test(4))).containsOnly(true);

    ReplicatedAcks.Surviving crashed = acks.surviving(List.of(300L));
    assertThat(crashed.voided()).isEqualTo(1);
    assertThat(List.of(crashed.test(1), crashed.test(2), crashed.test(3), crashed.test(4)))
        .containsExactly(true, true, false, true);
    assertThat(acks.surviving(List.of(120L)).voided()).as("a crash before the commit answered voids 1 and 2").isEqualTo(2);
    assertThat(acks.isAcknowledged(3)).as("still counted as acknowledged; only the verdict's rule changes").isTrue();
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

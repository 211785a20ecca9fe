package io.nrtcluster.stress;

import static org.assertj.core.api.Assertions.assertThat;

import io.nrtcluster.stress.agent.AgentApi.Kind;
import io.nrtcluster.stress.agent.AgentApi.Op;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TxLogTest {
  @Test
  void theExpectedStateIsTheLogAppliedInOrder() {
    TxLog log = new TxLog(1);
    Op a1 = log.append(Kind.UPSERT, 1);
    log.append(Kind.UPSERT, 2);
    log.append(Kind.DELETE, 1);
    Op b2 = log.append(Kind.UPSERT, 2);
    Op a3 = log.append(Kind.UPSERT, 1);
    assertThat(log.expectedDocuments()).isEqualTo(Map.of("d1", a3.seq(), "d2", b2.seq()));
    assertThat(a1.body()).isNotBlank().isEqualTo(new TxLog(1).append(Kind.UPSERT, 1).body());
    assertThat(log.after(3)).extracting(Op::seq).containsExactly(4L, 5L);
    assertThat(log.after(0)).hasSize(5);

    assertThat(log.acknowledged()).isZero();
    log.acknowledge(List.of(a1, b2));
    assertThat(log.acknowledged()).isEqualTo(2);
    assertThat(log.isAcknowledged(a1.seq())).isTrue();
    assertThat(log.isAcknowledged(a3.seq())).isFalse();
  }

  @Test
  void theLedgerFlagsDisagreementAtTheSameVersionOnly() {
    Ledger ledger = new Ledger();
    ledger.hits(1, 10, "alpha", 5);
    ledger.hits(2, 10, "alpha", 5);
    ledger.hits(2, 11, "alpha", 6);
    ledger.contents(1, 10, 100, 0xabc);
    ledger.contents(3, 10, 100, 0xabc);
    assertThat(ledger.mismatches()).isZero();
    ledger.hits(3, 10, "alpha", 4);
    ledger.contents(2, 10, 100, 0xabd);
    assertThat(ledger.mismatches()).isEqualTo(2);
    assertThat(ledger.examples()).hasSize(2).first().asString().contains("version 10", "N1", "N3");
  }
}

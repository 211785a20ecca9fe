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

  /** A backed-up point must hold every write up to its replay position, and only revisions the log wrote. */
  @Test
  void aPointDisagreesWithTheLogWhenAWriteItCoversIsMissingOlderOrInvented() {
    TxLog log = new TxLog(1);
    log.append(Kind.UPSERT, 1); // 1
    log.append(Kind.UPSERT, 2); // 2
    log.append(Kind.UPSERT, 1); // 3
    log.append(Kind.DELETE, 2); // 4
    log.append(Kind.UPSERT, 3); // 5: after the position below
    log.append(Kind.DELETE, 1); // 6: after it too
    // At position 4: d1 at 3, d2 deleted; d3 may or may not be there; d1 may already be deleted (6).
    assertThat(log.inconsistencies(Map.of("d1", 3L), 4, 10).count()).isZero();
    assertThat(log.inconsistencies(Map.of("d1", 3L, "d3", 5L), 4, 10).count()).isZero();
    assertThat(log.inconsistencies(Map.of(), 4, 10).count()).isZero();
    assertThat(log.inconsistencies(Map.of(), 0, 10).count()).isZero();
    // d1 at an older revision than the position covers; d2 still there after its covered delete.
    TxLog.Disagreement older = log.inconsistencies(Map.of("d1", 1L, "d2", 2L), 4, 10);
    assertThat(older.count()).isEqualTo(2);
    assertThat(older.examples()).anySatisfy(e -> assertThat(e).contains("d1", "older than write 3"));
    // A revision the log never wrote for that document (5 is d3's), or a delete's sequence number.
    assertThat(log.inconsistencies(Map.of("d1", 5L), 4, 10).examples()).singleElement()
        .satisfies(e -> assertThat(e).contains("never wrote"));
    assertThat(log.inconsistencies(Map.of("d2", 4L), 4, 10).count()).isEqualTo(1);
    assertThat(log.inconsistencies(Map.of("d1", 99L), 4, 10).count()).isEqualTo(1);
    // At position 3, d2's delete (4) comes after: d2 may be gone already.
    assertThat(log.inconsistencies(Map.of("d1", 3L), 3, 10).count()).isZero();
    // With no later delete, a covered upsert must be there.
    TxLog fresh = new TxLog(1);
    fresh.append(Kind.UPSERT, 1);
    fresh.append(Kind.UPSERT, 2);
    TxLog.Disagreement missing = fresh.inconsistencies(Map.of("d1", 1L), 2, 10);
    assertThat(missing.count()).isEqualTo(1);
    assertThat(missing.examples()).singleElement().satisfies(e -> assertThat(e).contains("d2 missing"));
    assertThat(fresh.inconsistencies(Map.of("d1", 1L, "d2", 2L), 2, 1).count()).isZero();
  }

  /**
   * With replicated durability a point must hold only the acknowledged writes up to its position:
   * an unacknowledged one may be missing, but an acknowledged one never, nor an older revision.
   */
  @Test
  void aPointMustHoldOnlyTheRequiredWritesUpToItsPosition() {
    TxLog log = new TxLog(1);
    log.append(Kind.UPSERT, 1); // 1, acknowledged
    log.append(Kind.UPSERT, 1); // 2, not
    log.append(Kind.UPSERT, 2); // 3, not
    log.append(Kind.DELETE, 1); // 4, not
    java.util.function.LongPredicate required = seq -> seq == 1;
    assertThat(log.inconsistencies(Map.of("d1", 1L), 4, 10, required).count()).isZero();
    assertThat(log.inconsistencies(Map.of("d1", 2L, "d2", 3L), 4, 10, required).count()).isZero();
    assertThat(log.inconsistencies(Map.of(), 4, 10, required).count()).as("d1 deleted by the later delete").isZero();
    assertThat(log.inconsistencies(Map.of("d1", 1L), 4, 10).count()).as("every write required: 2 and 4").isEqualTo(2);
    log.append(Kind.UPSERT, 1); // 5, acknowledged
    java.util.function.LongPredicate both = seq -> seq == 1 || seq == 5;
    TxLog.Disagreement d = log.inconsistencies(Map.of("d1", 2L), 5, 10, both);
    assertThat(d.examples()).singleElement().satisfies(e -> assertThat(e).contains("older than write 5"));
    assertThat(log.inconsistencies(Map.of(), 5, 10, both).examples()).singleElement()
        .satisfies(e -> assertThat(e).contains("d1 missing"));
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
    assertThat(ledger.judge(java.util.List.of()).examples()).hasSize(2).first().asString().contains("version 10", "N1", "N3");
  }
}

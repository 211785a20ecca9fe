package io.nrtcluster.stress;

import static org.assertj.core.api.Assertions.assertThat;

import io.nrtcluster.stress.agent.AgentApi.Kind;
import io.nrtcluster.stress.agent.AgentApi.Op;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.LongPredicate;
import org.junit.jupiter.api.Test;

/** The replicated verdict: acknowledged writes must survive, unacknowledged ones may or may not. */
class ReplicatedVerdictTest {
  private final TxLog log = new TxLog(1);
  private final Set<Long> acked = new HashSet<>();
  private final LongPredicate isAcked = acked::contains;

  private long write(Kind kind, int id, boolean acknowledged) {
    Op op = log.append(kind, id);
    if (acknowledged) {
      acked.add(op.seq());
    }
    return op.seq();
  }

  private ReplicatedVerdict.Result judge(Map<String, Long> docs) {
    return ReplicatedVerdict.judge(log.history(), isAcked, Map.of(1, docs));
  }

  @Test
  void anAcknowledgedUpsertMustBeThereAndIndeterminateLaterOnesMayBe() {
    long u1 = write(Kind.UPSERT, 1, true);
    long u2 = write(Kind.UPSERT, 1, false);
    long d3 = write(Kind.DELETE, 1, false);
    long u4 = write(Kind.UPSERT, 1, false);
    // The acknowledged state, or the state after any later (indeterminate) write.
    assertThat(judge(Map.of("d1", u1)).acknowledgedLost()).isEmpty();
    assertThat(judge(Map.of("d1", u2)).acknowledgedLost()).isEmpty();
    assertThat(judge(Map.of()).acknowledgedLost()).as("the indeterminate delete happened").isEmpty();
    assertThat(judge(Map.of("d1", u4)).acknowledgedLost()).isEmpty();

    ReplicatedVerdict.Result atAck = judge(Map.of("d1", u1));
    assertThat(List.of(atAck.indeterminate(), atAck.kept(), atAck.superseded(), atAck.lost())).containsExactly(3L, 0L, 0L, 3L);
    ReplicatedVerdict.Result deleted = judge(Map.of());
    assertThat(List.of(deleted.kept(), deleted.superseded(), deleted.lost())).as("u2 superseded, d3 kept, u4 lost")
        .containsExactly(1L, 1L, 1L);
    ReplicatedVerdict.Result last = judge(Map.of("d1", u4));
    assertThat(List.of(last.kept(), last.superseded(), last.lost())).containsExactly(1L, 2L, 0L);
    assertThat(d3).isGreaterThan(u2);
  }

  @Test
  void anOlderRevisionThanTheAcknowledgedOneIsALoss() {
    long u1 = write(Kind.UPSERT, 1, false);
    long u2 = write(Kind.UPSERT, 1, true);
    write(Kind.UPSERT, 1, false);
    ReplicatedVerdict.Result r = judge(Map.of("d1", u1));
    assertThat(r.acknowledgedLost()).containsExactly("d1");
    assertThat(r.examples()).singleElement().satisfies(e -> assertThat(e).contains("N1", "d1 at revision " + u1,
        "write " + u2 + " (upsert) was acknowledged"));
    assertThat(judge(Map.of()).acknowledgedLost()).as("gone, and no write after it deleted it").containsExactly("d1");
  }

  @Test
  void anAcknowledgedDeleteMustStayDeletedUnlessALaterUpsertMayHaveHappened() {
    long u1 = write(Kind.UPSERT, 2, true);
    write(Kind.DELETE, 2, true);
    assertThat(judge(Map.of()).acknowledgedLost()).isEmpty();
    assertThat(judge(Map.of("d2", u1)).acknowledgedLost()).as("the acknowledged delete undone").containsExactly("d2");
    long u3 = write(Kind.UPSERT, 2, false);
    assertThat(judge(Map.of("d2", u3)).acknowledgedLost()).as("a later indeterminate upsert").isEmpty();
    assertThat(judge(Map.of("d2", u1)).acknowledgedLost()).as("still the revision before the delete").containsExactly("d2");
  }

  @Test
  void withNoAcknowledgedWriteAnyWrittenStateIsAllowedButNotAnInventedRevision() {
    long u1 = write(Kind.UPSERT, 3, false);
    write(Kind.DELETE, 3, false);
    long other = write(Kind.UPSERT, 4, false);
    assertThat(judge(Map.of()).unexpected()).isEmpty();
    assertThat(judge(Map.of("d3", u1)).unexpected()).isEmpty();
    ReplicatedVerdict.Result invented = judge(Map.of("d3", other, "d9", 1L));
    assertThat(invented.unexpected()).containsExactly("d3", "d9");
    assertThat(invented.acknowledgedLost()).isEmpty();
  }

  @Test
  void everyNodeIsJudgedAndOneNodeMissingAnAcknowledgedWriteIsALoss() {
    long u1 = write(Kind.UPSERT, 5, true);
    Map<Integer, Map<String, Long>> finals = new LinkedHashMap<>();
    finals.put(1, Map.of("d5", u1));
    finals.put(2, Map.of());
    ReplicatedVerdict.Result r = ReplicatedVerdict.judge(log.history(), isAcked, finals);
    assertThat(r.acknowledgedLost()).containsExactly("d5");
    assertThat(r.examples()).singleElement().satisfies(e -> assertThat(e).startsWith("N2 ends with d5 absent"));
  }

  /**
   * A seeded history judged against a simulated cluster that applies every acknowledged write and a
   * random subset of the others: never a loss. Then one acknowledged write's effect undone: a loss,
   * on exactly that document.
   */
  @Test
  void aSeededRandomHistoryIsJudgedExactly() {
    long seed = 20260427L;
    SplittableRandom random = new SplittableRandom(seed);
    Map<String, Long> state = new HashMap<>();
    for (int i = 0; i < 5_000; i++) {
      int id = random.nextInt(200);
      Kind kind = random.nextInt(4) == 0 ? Kind.DELETE : Kind.UPSERT;
      boolean acknowledged = random.nextInt(3) > 0;
      long seq = write(kind, id, acknowledged);
      if (acknowledged || random.nextBoolean()) {
        if (kind == Kind.DELETE) {
          state.remove(TxLog.docId(id));
        } else {
          state.put(TxLog.docId(id), seq);
        }
      }
    }
    ReplicatedVerdict.Result r = judge(state);
    assertThat(r.acknowledgedLost()).as("seed " + seed).isEmpty();
    assertThat(r.unexpected()).as("seed " + seed).isEmpty();
    assertThat(r.kept() + r.lost() + r.superseded()).isEqualTo(r.indeterminate()).isPositive();

    // Find a document whose final state is its last write, acknowledged, an upsert; put it back one revision.
    Map<String, List<TxLog.Write>> history = log.history();
    String victim = null;
    for (Map.Entry<String, List<TxLog.Write>> e : history.entrySet()) {
      List<TxLog.Write> w = e.getValue();
      TxLog.Write lastWrite = w.get(w.size() - 1);
      if (w.size() >= 2 && !lastWrite.delete() && acked.contains(lastWrite.seq())) {
        victim = e.getKey();
        Map<String, Long> sabotaged = new HashMap<>(state);
        TxLog.Write before = w.get(w.size() - 2);
        if (before.delete()) {
          sabotaged.remove(victim);
        } else {
          sabotaged.put(victim, before.seq());
        }
        assertThat(judge(sabotaged).acknowledgedLost()).as("seed " + seed).containsExactly(victim);
        break;
      }
    }
    assertThat(victim).as("a victim found for seed " + seed).isNotNull();
  }
}

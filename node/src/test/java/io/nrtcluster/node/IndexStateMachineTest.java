package io.nrtcluster.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.common.IllegalTransitionException;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.election.Role;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/** The index state machine alone: no ZooKeeper, no sockets, no index. */
@Timeout(30)
class IndexStateMachineTest {
  private static final IndexState S = IndexState.STARTING;
  private static final IndexState R = IndexState.REPLICATING;
  private static final IndexState P = IndexState.PROMOTING;
  private static final IndexState L = IndexState.LEADING;
  private static final IndexState H = IndexState.HANDING_OFF;
  private static final IndexState F = IndexState.FENCED;
  private static final IndexState D = IndexState.DEMOTING;
  private static final IndexState C = IndexState.CLOSING;
  private static final IndexState X = IndexState.CLOSED;

  /** The table as the design says it, written out independently of the code's. */
  private static final Map<IndexState, Set<IndexState>> EXPECTED = Map.of(
      S, EnumSet.of(R, C),
      R, EnumSet.of(R, P, C),
      P, EnumSet.of(L, F, R, C),
      L, EnumSet.of(H, F, D, C),
      H, EnumSet.of(L, F, D, C),
      F, EnumSet.of(L, D, C),
      D, EnumSet.of(R, C),
      C, EnumSet.of(X),
      X, EnumSet.noneOf(IndexState.class));

  private final IndexStateMachine machine = new IndexStateMachine("nrt-index-test",
      new NodeLog(LoggerFactory.getLogger(IndexStateMachineTest.class), "T1/test", () -> -1));

  @AfterEach
  void shutdown() {
    machine.shutdown(1000);
  }

  @Test
  void everyTransitionIsAllowedOrRefusedExactlyAsTheTableSays() throws Exception {
    for (IndexState from : IndexState.values()) {
      for (IndexState to : IndexState.values()) {
        boolean allowed = EXPECTED.get(from).contains(to);
        assertThat(IndexState.TABLE.allows(from, to)).as("%s -> %s", from, to).isEqualTo(allowed);
        if (allowed) {
          IndexState.TABLE.check(from, to);
        } else {
          assertThatThrownBy(() -> IndexState.TABLE.check(from, to)).isInstanceOf(IllegalTransitionException.class)
              .hasMessageContaining(from + " -> " + to);
        }
      }
    }
  }

  @Test
  void onlyLeadingAdmitsWritesAndEachStateShowsOneRole() {
    for (IndexState s : IndexState.values()) {
      assertThat(s.admitsWrites()).as("%s", s).isEqualTo(s == L);
    }
    assertThat(EnumSet.of(L, H, F)).allMatch(IndexState::holdsPrimary);
    assertThat(EnumSet.complementOf(EnumSet.of(L, H, F))).noneMatch(IndexState::holdsPrimary);
    assertThat(H.role()).isEqualTo(Role.PRIMARY);
    assertThat(F.role()).isEqualTo(Role.FENCED);
    assertThat(D.role()).isEqualTo(Role.REPLICA);
    assertThat(X.role()).isEqualTo(Role.CLOSED);
    assertThat(IndexSnapshot.INITIAL.replicating(null, null).role()).as("a replica following nobody yet").isEqualTo(Role.JOINING);
  }

  /**
   * While promoting, a node shows the role and generation it is winning: the followed generation
   * there made status, member record and logs say "primary, gen 5" for a node winning epoch 6.
   */
  @Test
  void aPromotingSnapshotShowsTheGenerationBeingWon() {
    io.nrtcluster.election.PrimaryInfo followed = new io.nrtcluster.election.PrimaryInfo(2, "127.0.0.1:9", 5);
    IndexSnapshot replicating = IndexSnapshot.INITIAL.replicating(null, followed);
    assertThat(replicating.generation()).isEqualTo(5);
    IndexSnapshot promoting = replicating.promoting(6);
    assertThat(promoting.state()).isEqualTo(IndexState.PROMOTING);
    assertThat(promoting.role()).isEqualTo(Role.PRIMARY);
    assertThat(promoting.generation()).isEqualTo(6);
    assertThat(promoting.primary()).isNull();
    assertThat(promoting.replica()).isNull();
  }

  @Test
  void anIllegalTransitionChangesNothingAndRaisesATypedError() throws Exception {
    machine.call("start", () -> machine.moveTo(R, "test"));
    assertThatThrownBy(() -> machine.call("bad", () -> machine.moveTo(L, "skipping the promotion")))
        .isInstanceOf(IllegalTransitionException.class);
    assertThat(machine.state()).isEqualTo(R);
  }

  @Test
  void transitionsHappenOnlyOnTheEventThread() {
    assertThatThrownBy(() -> {
      machine.call("warm up", () -> null);
      machine.moveTo(R, "from the test thread");
    }).isInstanceOf(IllegalStateException.class).hasMessageContaining("event thread");
    assertThat(machine.state()).isEqualTo(S);
  }

  @Test
  void eventsRunOneAtATimeInSubmissionOrder() throws Exception {
    StringBuilder order = new StringBuilder();
    CountDownLatch release = new CountDownLatch(1);
    machine.submit("slow", () -> {
      release.await();
      order.append('a');
      return null;
    });
    Future<?> second = machine.submit("second", () -> order.append('b'));
    assertThat(second.isDone()).isFalse();
    release.countDown();
    second.get(5, TimeUnit.SECONDS);
    assertThat(order).hasToString("ab");
  }

  @Test
  void leavingLeadingWaitsForTheWriteInFlightAndAdmitsNoneAfter() throws Exception {
    machine.call("to leading", () -> {
      machine.moveTo(R, "t");
      machine.moveTo(P, "t");
      return machine.moveTo(L, "t");
    });
    CountDownLatch writing = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    AtomicReference<IndexState> seenByWrite = new AtomicReference<>();
    Thread write = new Thread(() -> {
      machine.admission().lock();
      try {
        seenByWrite.set(machine.state());
        writing.countDown();
        finish.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        machine.admission().unlock();
      }
    });
    write.start();
    writing.await();
    Future<?> handoff = machine.submit("hand-off", () -> machine.moveTo(H, "t"));
    await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(2)).until(() -> !handoff.isDone());
    assertThat(machine.state()).as("not while a write is admitted").isEqualTo(L);
    finish.countDown();
    handoff.get(5, TimeUnit.SECONDS);
    write.join();
    assertThat(seenByWrite.get()).isEqualTo(L);
    assertThat(machine.state()).isEqualTo(H);
    assertThat(machine.state().admitsWrites()).isFalse();
  }

  @Test
  void readersSeeTheNewSnapshotAndWaitersWakeUp() throws Exception {
    IndexSnapshot before = machine.snapshot();
    Future<?> later = machine.submit("start", () -> machine.moveTo(R, "t"));
    IndexSnapshot after = machine.awaitChange(before, 5000);
    later.get(5, TimeUnit.SECONDS);
    assertThat(after.state()).isEqualTo(R);
    assertThat(machine.awaitChange(after, 50)).as("no change: returns the same after the bound").isSameAs(after);
  }
}

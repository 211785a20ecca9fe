package io.nrtcluster.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.common.IllegalTransitionException;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.election.PrimaryInfo;
import io.nrtcluster.election.Role;
import io.nrtcluster.election.Standing;
import io.nrtcluster.election.StepDown;
import io.nrtcluster.election.StepDownReason;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
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

  /** Candidacy's own table, and the index states in which each change of it may happen. */
  private static final Map<Candidacy, Set<Candidacy>> CANDIDACY = Map.of(
      Candidacy.CANDIDATE, EnumSet.of(Candidacy.GAVE_UP),
      Candidacy.GAVE_UP, EnumSet.of(Candidacy.GAVE_UP, Candidacy.CANDIDATE));
  private static final Map<Candidacy, Set<IndexState>> ENTERED_IN = Map.of(
      Candidacy.GAVE_UP, EnumSet.of(L, H, F),
      Candidacy.CANDIDATE, EnumSet.of(R));

  /** One state of the combined table: where the index is, and whether the node may be elected. */
  private record Combined(IndexState state, Candidacy candidacy) {}

  /**
   * Every transition of the combined table (index state and candidacy), on the real state machine:
   * each reachable pair is reached through allowed transitions only, then every move of the index
   * state and every change of candidacy from it is tried on a machine in that pair and is applied,
   * or refused with nothing changed, exactly as the tables written out above say.
   */
  @Test
  void everyTransitionOfTheCombinedTableIsAppliedOrRefusedAsWrittenOut() throws Exception {
    Map<Combined, List<UnaryOperator<IndexSnapshot>>> paths = reachable();
    assertThat(paths.keySet()).as("every pair but a node that gave up before it started")
        .hasSize(IndexState.values().length * 2 - 1);
    int applied = 0;
    int refused = 0;
    for (Map.Entry<Combined, List<UnaryOperator<IndexSnapshot>>> from : paths.entrySet()) {
      Combined at = from.getKey();
      List<UnaryOperator<IndexSnapshot>> moves = new ArrayList<>();
      List<Combined> targets = new ArrayList<>();
      List<Boolean> allowed = new ArrayList<>();
      for (IndexState to : IndexState.values()) {
        moves.add(s -> s.to(to));
        targets.add(new Combined(to, at.candidacy()));
        allowed.add(EXPECTED.get(at.state()).contains(to));
      }
      for (Candidacy to : Candidacy.values()) {
        if (to == Candidacy.CANDIDATE && at.candidacy() == Candidacy.CANDIDATE) {
          continue; // no change: nothing to check
        }
        moves.add(candidacyMove(to));
        targets.add(new Combined(at.state(), to));
        allowed.add(CANDIDACY.get(at.candidacy()).contains(to) && ENTERED_IN.get(to).contains(at.state()));
      }
      for (int i = 0; i < moves.size(); i++) {
        IndexStateMachine m = new IndexStateMachine("nrt-index-walk",
            new NodeLog(LoggerFactory.getLogger(IndexStateMachineTest.class), "T1/walk", () -> -1));
        try {
          for (UnaryOperator<IndexSnapshot> step : from.getValue()) {
            m.call("reach", () -> m.transition(step, "reach"));
          }
          IndexSnapshot before = m.snapshot();
          assertThat(new Combined(before.state(), before.candidacy())).isEqualTo(at);
          UnaryOperator<IndexSnapshot> move = moves.get(i);
          String name = at + " -> " + targets.get(i);
          if (allowed.get(i)) {
            IndexSnapshot after = m.call("move", () -> m.transition(move, "walk"));
            assertThat(new Combined(after.state(), after.candidacy())).as(name).isEqualTo(targets.get(i));
            assertThat(m.snapshot()).as(name).isSameAs(after);
            applied++;
          } else {
            assertThatThrownBy(() -> m.call("move", () -> m.transition(move, "walk"))).as(name)
                .isInstanceOf(IllegalTransitionException.class);
            assertThat(m.snapshot()).as(name + ": nothing changed").isSameAs(before);
            refused++;
          }
        } finally {
          m.shutdown(1000);
        }
      }
    }
    // Per pair: every index state, and every candidacy but staying a candidate.
    assertThat(applied + refused).isEqualTo(paths.size() * IndexState.values().length + paths.size() * 2 - IndexState.values().length);
    assertThat(applied).as("allowed transitions walked").isPositive();
    assertThat(refused).as("refused transitions walked").isPositive();
  }

  /** A path of allowed transitions from the initial snapshot to each reachable pair (breadth first). */
  private static Map<Combined, List<UnaryOperator<IndexSnapshot>>> reachable() {
    Map<Combined, List<UnaryOperator<IndexSnapshot>>> paths = new LinkedHashMap<>();
    ArrayDeque<Combined> queue = new ArrayDeque<>();
    Combined start = new Combined(S, Candidacy.CANDIDATE);
    paths.put(start, List.of());
    queue.add(start);
    while (!queue.isEmpty()) {
      Combined at = queue.poll();
      Map<Combined, UnaryOperator<IndexSnapshot>> next = new LinkedHashMap<>();
      for (IndexState to : EXPECTED.get(at.state())) {
        next.put(new Combined(to, at.candidacy()), s -> s.to(to));
      }
      for (Candidacy to : CANDIDACY.get(at.candidacy())) {
        if (ENTERED_IN.get(to).contains(at.state())) {
          next.put(new Combined(at.state(), to), candidacyMove(to));
        }
      }
      for (Map.Entry<Combined, UnaryOperator<IndexSnapshot>> n : next.entrySet()) {
        if (!paths.containsKey(n.getKey())) {
          List<UnaryOperator<IndexSnapshot>> path = new ArrayList<>(paths.get(at));
          path.add(n.getValue());
          paths.put(n.getKey(), path);
          queue.add(n.getKey());
        }
      }
    }
    return paths;
  }

  private static final IndexSnapshot.WriterLoss LOSS = new IndexSnapshot.WriterLoss(3, 7,
      new StepDown(StepDownReason.DISK_FULL, "no space left", 0), new IOException("no space left"), 0);

  /** Giving up (for a loss of its own: a later primary losing its writer too), or a candidate again. */
  private static UnaryOperator<IndexSnapshot> candidacyMove(Candidacy to) {
    if (to == Candidacy.CANDIDATE) {
      return IndexSnapshot::candidateAgain;
    }
    IndexSnapshot.WriterLoss loss = new IndexSnapshot.WriterLoss(4, 7,
        new StepDown(StepDownReason.IO_ERROR, "read failed", 0), new IOException("read failed"), 0);
    return s -> s.gaveUp(loss, s.state());
  }

  @Test
  void aNodeGivesUpAndWritesStopInOneTransitionAndTheElectionSeesItsStanding() throws Exception {
    IndexSnapshot leading = machine.call("to leading", () -> {
      machine.moveTo(R, "t");
      machine.moveTo(P, "t");
      return machine.moveTo(L, "t");
    });
    assertThat(leading.standing()).isEqualTo(Standing.CANDIDATE);
    IndexSnapshot gaveUp = machine.call("lost", () -> machine.transition(s -> s.gaveUp(LOSS, F), "writer lost"));
    assertThat(gaveUp.state()).isEqualTo(F);
    assertThat(gaveUp.standing()).isEqualTo(new Standing(false, LOSS.why()));
    assertThatThrownBy(() -> machine.call("too early", () -> machine.transition(IndexSnapshot::candidateAgain, "t")))
        .as("a candidate again only as a replica").isInstanceOf(IllegalTransitionException.class);
    IndexSnapshot replica = machine.call("step down", () -> {
      machine.moveTo(D, "t");
      return machine.transition(s -> s.replicating(null, null), "t");
    });
    assertThat(replica.candidacy()).as("the step-down keeps the node out").isEqualTo(Candidacy.GAVE_UP);
    IndexSnapshot again = machine.call("caught up", () -> machine.transition(IndexSnapshot::candidateAgain, "t"));
    assertThat(again.standing()).as("the step-down stays on record").isEqualTo(new Standing(true, LOSS.why()));
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
    PrimaryInfo followed = new PrimaryInfo(2, "127.0.0.1:9", 5);
    IndexSnapshot replicating = IndexSnapshot.INITIAL.replicating(null, followed);
    assertThat(replicating.generation()).isEqualTo(5);
    IndexSnapshot promoting = replicating.promoting(6);
    assertThat(promoting.state()).isEqualTo(IndexState.PROMOTING);
    assertThat(promoting.role()).isEqualTo(Role.PRIMARY);
    assertThat(promoting.generation()).isEqualTo(6);
    assertThat(promoting.primary()).isNull();
    assertThat(promoting.replica()).isNull();
  }

  /**
   * The role is derived from the index state alone (the member record, the status and the metrics
   * show it): every allowed move of the state, with and without a followed primary where the state
   * has one, shows as no change of role or as a move {@link Role#next()} lists.
   */
  @Test
  void everyMoveOfTheIndexStateIsARoleMoveTheRoleTableLists() {
    PrimaryInfo followed = new PrimaryInfo(2, "127.0.0.1:9", 5);
    for (IndexState from : IndexState.values()) {
      for (IndexState to : IndexState.TABLE.next(from)) {
        for (Role a : rolesOf(from, followed)) {
          for (Role b : rolesOf(to, followed)) {
            if (a != b) {
              assertThat(a.next()).as("%s (%s) -> %s (%s)", from, a, to, b).contains(b);
            }
          }
        }
      }
    }
  }

  /** The roles a snapshot in {@code state} shows: with and without a followed primary. */
  private static Set<Role> rolesOf(IndexState state, PrimaryInfo followed) {
    Set<Role> roles = EnumSet.noneOf(Role.class);
    for (PrimaryInfo f : Arrays.asList(followed, null)) {
      roles.add(new IndexSnapshot(state, null, null, f, 5, null, Candidacy.CANDIDATE, null).role());
    }
    return roles;
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

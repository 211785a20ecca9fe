package io.nrtcluster.election;

import static org.assertj.core.api.Assertions.assertThat;

import io.nrtcluster.election.ElectionDecision.Action;
import io.nrtcluster.election.ElectionDecision.Decision;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The election's decisions without ZooKeeper: ranking, settling, successors, manual failover, stale znodes. */
@Timeout(30)
class ElectionDecisionTest {
  private static final int ME = 2;
  private static final long SETTLE = 3_000;
  private static final long RETRY = 500;
  private static final PrimaryInfo OTHER = new PrimaryInfo(5, "h5:1", 9);
  private static final PrimaryInfo MINE = new PrimaryInfo(ME, "h2:1", 9);

  private static MemberInfo member(int id, Role role, long gen, long searching, long commit) {
    return new MemberInfo(id, "h" + id + ":1", role, gen, searching, commit, false, 0);
  }

  private static Decision elect(Integer successor, List<MemberInfo> members, boolean automatic, long noPrimaryMillis) {
    return ElectionDecision.withoutPrimary(ME, successor, members, automatic, noPrimaryMillis, SETTLE, RETRY);
  }

  // ---------------------------------------------------------------- stage one: the primary znode

  @ParameterizedTest
  @EnumSource(value = EpochHold.class, names = {"HELD", "SUSPENDED"})
  void aLeaderWhoseZnodeIsGoneStepsDownAndElects(EpochHold hold) {
    assertThat(ElectionDecision.onPrimaryZnode(ME, hold, null, false, null))
        .isEqualTo(new Decision(Action.ELECT, true, 0, false));
  }

  @Test
  void aNonLeaderWithoutAPrimaryElectsWithoutSteppingDown() {
    assertThat(ElectionDecision.onPrimaryZnode(ME, EpochHold.NONE, null, false, OTHER))
        .isEqualTo(new Decision(Action.ELECT, false, 0, false));
    assertThat(ElectionDecision.onPrimaryZnode(ME, EpochHold.NONE, null, false, null))
        .as("joining").isEqualTo(new Decision(Action.ELECT, false, 0, false));
  }

  @ParameterizedTest
  @EnumSource(value = EpochHold.class, names = {"HELD", "SUSPENDED"})
  void aLeaderSeeingAnotherNodesZnodeStepsDownAndFollowsIt(EpochHold hold) {
    assertThat(ElectionDecision.onPrimaryZnode(ME, hold, OTHER, false, null))
        .isEqualTo(new Decision(Action.FOLLOW, true, 0, false));
  }

  @Test
  void aReplicaFollowsANewPrimaryAndKeepsFollowingTheSameOne() {
    assertThat(ElectionDecision.onPrimaryZnode(ME, EpochHold.NONE, OTHER, false, null).action()).isEqualTo(Action.FOLLOW);
    assertThat(ElectionDecision.onPrimaryZnode(ME, EpochHold.NONE, OTHER, false, new PrimaryInfo(4, "h4:1", 8)))
        .as("a new epoch is followed").isEqualTo(new Decision(Action.FOLLOW, false, 0, false));
    assertThat(ElectionDecision.onPrimaryZnode(ME, EpochHold.NONE, OTHER, false, new PrimaryInfo(5, "h5:1", 9)))
        .as("the same primary again changes nothing").isEqualTo(new Decision(Action.NOTHING, false, 0, false));
  }

  @Test
  void theOwnZnodeOfThisSessionKeepsALeaderAndUnfencesAFencedOne() {
    assertThat(ElectionDecision.onPrimaryZnode(ME, EpochHold.HELD, MINE, true, null)).isEqualTo(Decision.of(Action.NOTHING));
    assertThat(ElectionDecision.onPrimaryZnode(ME, EpochHold.SUSPENDED, MINE, true, null)).isEqualTo(Decision.of(Action.UNFENCE));
  }

  @ParameterizedTest
  @EnumSource(EpochHold.class)
  void theOwnZnodeOfAnEarlierSessionIsRemovedNeverAdoptedOrFollowed(EpochHold hold) {
    Decision d = ElectionDecision.onPrimaryZnode(ME, hold, MINE, false, null);
    assertThat(d).isEqualTo(Decision.of(Action.REMOVE_STALE_OWN_ZNODE));
  }

  // ---------------------------------------------------------------- stage two: no primary

  @Test
  void aMemberHoldingACorruptFileOrStillVerifyingNeverWinsWhateverItsRank() {
    MemberInfo corrupt = member(ME + 1, Role.REPLICA, 9, 500, 500)
        .withIntegrity(new MemberIntegrity(true, List.of("_3.fdt"), 1, 0, 2));
    MemberInfo verifying = member(ME + 2, Role.JOINING, 9, 400, 400)
        .withIntegrity(new MemberIntegrity(false, List.of(), 0, 0, 0));
    MemberInfo me = member(ME, Role.REPLICA, 8, 100, 100);
    assertThat(corrupt.eligible()).as("a corrupt file makes any record ineligible").isFalse();
    assertThat(ElectionDecision.best(List.of(corrupt, verifying, me))).contains(me);
    assertThat(elect(null, List.of(corrupt, verifying, me), true, SETTLE).action()).isEqualTo(Action.CLAIM);
    assertThat(elect(null, List.of(corrupt, verifying), true, SETTLE).action())
        .as("no eligible member: nobody claims").isEqualTo(Action.WAIT_FOR_BETTER_CANDIDATE);
    assertThat(elect(null, List.of(corrupt.withIntegrity(MemberIntegrity.CLEAN), me), true, SETTLE).action())
        .as("once replaced, it ranks again").isEqualTo(Action.WAIT_FOR_BETTER_CANDIDATE);
  }

  @Test
  void aDesignatedSuccessorClaimsEvenWhenNotEligible() {
    // A forced promotion by an operator who accepted the corrupt files: the gate is the operator's.
    MemberInfo meCorrupt = member(ME, Role.REPLICA, 8, 100, 100).withIntegrity(new MemberIntegrity(false, List.of("_0.cfs"), 1, 0, 2));
    assertThat(elect(ME, List.of(meCorrupt, member(ME + 1, Role.REPLICA, 9, 200, 200)), true, 0).action()).isEqualTo(Action.CLAIM);
  }


  @Test
  void theBestRankedMemberClaimsOnceSettled() {
    List<MemberInfo> members = List.of(
        member(1, Role.REPLICA, 3, 100, 90),
        member(ME, Role.REPLICA, 4, 50, 40), // highest primary generation wins over a higher version
        member(3, Role.REPLICA, 3, 200, 200));
    assertThat(elect(null, members, true, SETTLE)).isEqualTo(Decision.of(Action.CLAIM));
    assertThat(elect(null, members, true, SETTLE + 10_000)).isEqualTo(Decision.of(Action.CLAIM));
  }

  @Test
  void aLowerRankedMemberWaitsForTheBestOne() {
    List<MemberInfo> members = List.of(member(1, Role.REPLICA, 4, 51, 0), member(ME, Role.REPLICA, 4, 50, 40));
    assertThat(elect(null, members, true, SETTLE)).isEqualTo(Decision.waiting(Action.WAIT_FOR_BETTER_CANDIDATE, RETRY, false));
  }

  @Test
  void rankingIsGenerationThenSearchingVersionThenCommitVersionThenNodeId() {
    assertThat(best(member(1, Role.REPLICA, 5, 1, 1), member(2, Role.REPLICA, 4, 99, 99))).isEqualTo(1);
    assertThat(best(member(1, Role.REPLICA, 4, 10, 1), member(2, Role.REPLICA, 4, 9, 99))).isEqualTo(1);
    assertThat(best(member(1, Role.REPLICA, 4, 10, 8), member(2, Role.REPLICA, 4, 10, 7))).isEqualTo(1);
    assertThat(best(member(1, Role.REPLICA, 4, 10, 8), member(2, Role.REPLICA, 4, 10, 8))).as("tie: higher node id").isEqualTo(2);
  }

  @Test
  void theRankingIsTheSameWhateverOrderTheMembersAreReadIn() {
    String fixed = System.getProperty("nrt.test.seed");
    long seed = fixed != null && !fixed.isBlank() ? Long.parseLong(fixed.trim()) : new Random().nextLong();
    Random random = new Random(seed);
    for (int round = 0; round < 200; round++) {
      List<MemberInfo> members = new ArrayList<>();
      int n = 1 + random.nextInt(6);
      for (int id = 1; id <= n; id++) {
        Role role = random.nextInt(4) == 0 ? Role.CLOSED : Role.REPLICA;
        members.add(member(id, role, random.nextInt(3), random.nextInt(3), random.nextInt(3)));
      }
      Integer expected = ElectionDecision.best(members).map(MemberInfo::nodeId).orElse(null);
      Collections.shuffle(members, random);
      assertThat(ElectionDecision.best(members).map(MemberInfo::nodeId).orElse(null))
          .as("seed %d round %d: %s", seed, round, members).isEqualTo(expected);
      if (expected != null) {
        MemberInfo winner = ElectionDecision.best(members).orElseThrow();
        assertThat(winner.role()).as("seed %d", seed).isNotEqualTo(Role.CLOSED);
        for (MemberInfo m : members) {
          if (m.role() != Role.CLOSED) {
            assertThat(MemberInfo.rank(winner, m)).as("seed %d: %s against %s", seed, winner, m).isGreaterThanOrEqualTo(0);
          }
        }
      }
    }
  }

  @Test
  void aMemberThatGaveItsEpochUpIsPassedOverUntilItIsACandidateAgain() {
    StepDown why = new StepDown(StepDownReason.DISK_FULL, "No space left on device", 1);
    MemberInfo gaveUp = member(9, Role.REPLICA, 99, 999, 999).withStanding(false, why);
    List<MemberInfo> members = List.of(gaveUp, member(ME, Role.REPLICA, 1, 1, 1));
    assertThat(ElectionDecision.best(members).orElseThrow().nodeId()).isEqualTo(ME);
    assertThat(elect(null, members, true, SETTLE)).isEqualTo(Decision.of(Action.CLAIM));
    List<MemberInfo> again = List.of(gaveUp.withStanding(true, why), member(ME, Role.REPLICA, 1, 1, 1));
    assertThat(ElectionDecision.best(again).orElseThrow().nodeId()).isEqualTo(9);
  }

  @Test
  void aClosedMemberNeverWinsHoweverFarAhead() {
    List<MemberInfo> members = List.of(member(9, Role.CLOSED, 99, 999, 999), member(ME, Role.REPLICA, 1, 1, 1));
    assertThat(ElectionDecision.best(members).orElseThrow().nodeId()).isEqualTo(ME);
    assertThat(elect(null, members, true, SETTLE)).isEqualTo(Decision.of(Action.CLAIM));
    assertThat(ElectionDecision.best(List.of(member(9, Role.CLOSED, 1, 1, 1)))).isEmpty();
    assertThat(elect(null, List.of(member(9, Role.CLOSED, 1, 1, 1)), true, SETTLE))
        .as("nobody eligible: look again later").isEqualTo(Decision.waiting(Action.WAIT_FOR_BETTER_CANDIDATE, RETRY, false));
    assertThat(elect(null, List.of(), true, SETTLE)).isEqualTo(Decision.waiting(Action.WAIT_FOR_BETTER_CANDIDATE, RETRY, false));
  }

  @Test
  void evenTheBestWaitsForTheSettleTimeAndOnlyForWhatIsLeftOfIt() {
    List<MemberInfo> alone = List.of(member(ME, Role.REPLICA, 1, 1, 1));
    assertThat(elect(null, alone, true, 0)).isEqualTo(Decision.waiting(Action.WAIT_TO_SETTLE, SETTLE, false));
    assertThat(elect(null, alone, true, 1_000)).isEqualTo(Decision.waiting(Action.WAIT_TO_SETTLE, SETTLE - 1_000, false));
    assertThat(elect(null, alone, true, SETTLE - 1)).isEqualTo(Decision.waiting(Action.WAIT_TO_SETTLE, 1, false));
    assertThat(elect(null, alone, true, SETTLE)).isEqualTo(Decision.of(Action.CLAIM));
    assertThat(ElectionDecision.needsMembers(null, true, SETTLE - 1, SETTLE)).as("no members read while settling").isFalse();
    assertThat(ElectionDecision.needsMembers(null, true, SETTLE, SETTLE)).isTrue();
  }

  @Test
  void aLiveDesignatedSuccessorClaimsAtOnceAndEveryoneElseWaits() {
    List<MemberInfo> members = List.of(member(1, Role.REPLICA, 9, 999, 999), member(ME, Role.REPLICA, 1, 1, 1));
    // Not even the settle time or a better rank or manual failover stop the successor.
    assertThat(elect(ME, members, true, 0)).isEqualTo(Decision.of(Action.CLAIM));
    assertThat(elect(ME, members, false, 0)).isEqualTo(Decision.of(Action.CLAIM));
    // The best-ranked node does not claim while another is designated.
    assertThat(ElectionDecision.withoutPrimary(1, ME, members, true, SETTLE, SETTLE, RETRY))
        .isEqualTo(Decision.waiting(Action.WAIT_FOR_SUCCESSOR, RETRY, false));
    assertThat(ElectionDecision.needsMembers(ME, false, 0, SETTLE)).as("is the successor alive?").isTrue();
  }

  @Test
  void aDeadDesignatedSuccessorIsIgnoredAndTheElectionGoesOnNormally() {
    List<MemberInfo> members = List.of(member(1, Role.REPLICA, 1, 1, 1), member(ME, Role.REPLICA, 4, 4, 4));
    int dead = 7;
    assertThat(elect(dead, members, true, 0)).isEqualTo(Decision.waiting(Action.WAIT_TO_SETTLE, SETTLE, true));
    assertThat(elect(dead, members, true, SETTLE)).isEqualTo(new Decision(Action.CLAIM, false, 0, true));
    assertThat(ElectionDecision.withoutPrimary(1, dead, members, true, SETTLE, SETTLE, RETRY))
        .isEqualTo(Decision.waiting(Action.WAIT_FOR_BETTER_CANDIDATE, RETRY, true));
    assertThat(elect(dead, members, false, SETTLE))
        .as("manual failover: an operator must designate a live one").isEqualTo(Decision.waiting(Action.WAIT_FOR_OPERATOR, RETRY, true));
  }

  @Test
  void manualFailoverNeverClaimsByItselfHoweverLongItWaits() {
    List<MemberInfo> alone = List.of(member(ME, Role.REPLICA, 9, 9, 9));
    for (long waited : new long[] {0, SETTLE, 1_000 * SETTLE}) {
      assertThat(elect(null, alone, false, waited)).isEqualTo(Decision.waiting(Action.WAIT_FOR_OPERATOR, RETRY, false));
      assertThat(ElectionDecision.needsMembers(null, false, waited, SETTLE)).isFalse();
    }
  }

  private static int best(MemberInfo... members) {
    List<MemberInfo> list = new ArrayList<>(List.of(members));
    int forward = ElectionDecision.best(list).orElseThrow().nodeId();
    Collections.reverse(list);
    assertThat(ElectionDecision.best(list).orElseThrow().nodeId()).as("order of members").isEqualTo(forward);
    return forward;
  }

  // ---------------------------------------------------------------- on the replicas' suspicion

  private static final PrimaryInfo SUSPECT = new PrimaryInfo(1, "h1:1", 7);

  private static Decision onSuspicion(List<MemberInfo> members, java.util.Map<Integer, Long> suspicions) {
    return ElectionDecision.onSuspectedPrimary(ME, SUSPECT, null, members, suspicions, true, RETRY);
  }

  @Test
  void theOnlyReplicaSuspectingIsAMajorityOfOne() {
    List<MemberInfo> members = List.of(member(1, Role.PRIMARY, 7, 50, 40), member(ME, Role.REPLICA, 7, 50, 40));
    assertThat(ElectionDecision.majoritySuspects(SUSPECT, members, java.util.Map.of(ME, 7L))).isTrue();
    assertThat(onSuspicion(members, java.util.Map.of(ME, 7L))).isEqualTo(Decision.of(Action.CLAIM_DEPOSING));
    assertThat(onSuspicion(members, java.util.Map.of())).isEqualTo(Decision.of(Action.NOTHING));
  }

  @Test
  void oneReplicaOfTwoIsNotEnoughTwoOfThreeAre() {
    List<MemberInfo> two = List.of(member(1, Role.PRIMARY, 7, 50, 40), member(ME, Role.REPLICA, 7, 50, 40),
        member(3, Role.REPLICA, 7, 40, 40));
    assertThat(ElectionDecision.majoritySuspects(SUSPECT, two, java.util.Map.of(ME, 7L))).isFalse();
    assertThat(ElectionDecision.majoritySuspects(SUSPECT, two, java.util.Map.of(3, 7L))).isFalse();
    assertThat(onSuspicion(two, java.util.Map.of(ME, 7L))).isEqualTo(Decision.of(Action.NOTHING));
    assertThat(ElectionDecision.majoritySuspects(SUSPECT, two, java.util.Map.of(ME, 7L, 3, 7L))).isTrue();

    List<MemberInfo> three = new ArrayList<>(two);
    three.add(member(4, Role.REPLICA, 7, 30, 30));
    assertThat(ElectionDecision.majoritySuspects(SUSPECT, three, java.util.Map.of(3, 7L, 4, 7L))).isTrue();
    assertThat(ElectionDecision.majoritySuspects(SUSPECT, three, java.util.Map.of(4, 7L))).isFalse();
    // Two of three suspect, but this node ranks best among the others: it claims, suspecting or not.
    assertThat(onSuspicion(three, java.util.Map.of(3, 7L, 4, 7L))).isEqualTo(Decision.of(Action.CLAIM_DEPOSING));
  }

  @Test
  void joiningMembersCountAsVotersClosedOnesAndNonMembersDoNot() {
    List<MemberInfo> members = List.of(member(1, Role.PRIMARY, 7, 50, 40), member(ME, Role.REPLICA, 7, 50, 40),
        member(3, Role.JOINING, 0, -1, -1), member(4, Role.CLOSED, 7, 50, 50));
    assertThat(ElectionDecision.majoritySuspects(SUSPECT, members, java.util.Map.of(ME, 7L, 4, 7L)))
        .as("a JOINING member counts as reaching the primary; a CLOSED one's suspicion counts for nothing").isFalse();
    assertThat(ElectionDecision.majoritySuspects(SUSPECT, members, java.util.Map.of(ME, 7L, 3, 7L, 9, 7L))).isTrue();
    assertThat(ElectionDecision.majoritySuspects(SUSPECT, List.of(member(ME, Role.REPLICA, 7, 50, 40)),
        java.util.Map.of(ME, 7L, 9, 7L, 10, 7L))).as("suspicions of nodes that are not members do not count").isTrue();
    assertThat(ElectionDecision.majoritySuspects(SUSPECT, List.of(member(ME, Role.REPLICA, 7, 50, 40), member(3, Role.REPLICA, 7, 1, 1)),
        java.util.Map.of(ME, 7L, 9, 7L, 10, 7L))).as("...nor make up for a member that does not suspect").isFalse();
    assertThat(ElectionDecision.majoritySuspects(SUSPECT, List.of(member(1, Role.PRIMARY, 7, 50, 40)), java.util.Map.of(1, 7L)))
        .as("no voters: nobody deposes").isFalse();
  }

  @Test
  void staleSuspicionsOfAnOlderGenerationAreIgnored() {
    List<MemberInfo> members = List.of(member(1, Role.PRIMARY, 7, 50, 40), member(ME, Role.REPLICA, 7, 50, 40),
        member(3, Role.REPLICA, 7, 40, 40));
    assertThat(ElectionDecision.majoritySuspects(SUSPECT, members, java.util.Map.of(ME, 6L, 3, 6L))).isFalse();
    assertThat(ElectionDecision.majoritySuspects(SUSPECT, members, java.util.Map.of(ME, 7L, 3, 6L))).isFalse();
    assertThat(onSuspicion(members, java.util.Map.of(ME, 6L, 3, 6L))).isEqualTo(Decision.of(Action.NOTHING));
  }

  @Test
  void theSuspectedNodeNeverWinsEvenWhenItRanksBest() {
    // The suspected primary's own member record ranks highest (it led): it is passed over.
    List<MemberInfo> members = List.of(member(1, Role.PRIMARY, 9, 99, 99), member(ME, Role.REPLICA, 7, 50, 40),
        member(3, Role.REPLICA, 7, 40, 40));
    assertThat(onSuspicion(members, java.util.Map.of(ME, 7L, 3, 7L))).isEqualTo(Decision.of(Action.CLAIM_DEPOSING));
    assertThat(ElectionDecision.onSuspectedPrimary(1, SUSPECT, null, members, java.util.Map.of(ME, 7L, 3, 7L), true, RETRY))
        .as("the suspected node itself").isEqualTo(Decision.of(Action.NOTHING));
    assertThat(ElectionDecision.onSuspectedPrimary(3, SUSPECT, null, members, java.util.Map.of(ME, 7L, 3, 7L), true, RETRY))
        .as("a lower-ranked replica waits for the best").isEqualTo(Decision.waiting(Action.WAIT_FOR_BETTER_CANDIDATE, RETRY, false));
  }

  @Test
  void manualFailoverOrADesignatedSuccessorNeverDeposeOnSuspicion() {
    List<MemberInfo> members = List.of(member(1, Role.PRIMARY, 7, 50, 40), member(ME, Role.REPLICA, 7, 50, 40));
    java.util.Map<Integer, Long> all = java.util.Map.of(ME, 7L);
    assertThat(ElectionDecision.onSuspectedPrimary(ME, SUSPECT, null, members, all, false, RETRY)).isEqualTo(Decision.of(Action.NOTHING));
    assertThat(ElectionDecision.onSuspectedPrimary(ME, SUSPECT, ME, members, all, true, RETRY)).isEqualTo(Decision.of(Action.NOTHING));
  }

  @Test
  void anIneligibleBestReplicaIsPassedOverOnSuspicionToo() {
    List<MemberInfo> members = List.of(member(1, Role.PRIMARY, 7, 50, 40),
        member(3, Role.REPLICA, 7, 60, 60).withStanding(false, null), member(ME, Role.REPLICA, 7, 50, 40));
    assertThat(onSuspicion(members, java.util.Map.of(ME, 7L, 3, 7L))).isEqualTo(Decision.of(Action.CLAIM_DEPOSING));
  }

  // ---------------------------------------------------------------- placement: fewest primaries among the most up to date

  private static long seed() {
    String fixed = System.getProperty("nrt.test.seed");
    return fixed != null && !fixed.isBlank() ? Long.parseLong(fixed.trim()) : new Random().nextLong();
  }

  private static Decision electPlaced(int self, List<MemberInfo> members, java.util.Map<Integer, Integer> primaries, String index) {
    return ElectionDecision.withoutPrimary(self, null, members, true, SETTLE, SETTLE, RETRY, primaries, index, null);
  }

  private static int chosen(List<MemberInfo> members, java.util.Map<Integer, Integer> primaries, String index) {
    return ElectionDecision.choose(members, primaries, index).orElseThrow().nodeId();
  }

  @Test
  void aNodeBehindIsSkippedEvenWhenItHasFewerPrimaries() {
    // Node 1 holds no primary but is one version behind; nodes 2 and 3 hold ten each.
    List<MemberInfo> members = List.of(member(1, Role.REPLICA, 7, 49, 49), member(ME, Role.REPLICA, 7, 50, 40),
        member(3, Role.REPLICA, 7, 50, 50));
    java.util.Map<Integer, Integer> primaries = java.util.Map.of(1, 0, ME, 10, 3, 10);
    for (String index : List.of("a", "b", "c", "d", "e", "f", "g", "h")) {
      assertThat(chosen(members, primaries, index)).as(index).isIn(ME, 3);
      assertThat(electPlaced(1, members, primaries, index).action()).as(index).isEqualTo(Action.WAIT_FOR_BETTER_CANDIDATE);
    }
    // An older generation is behind whatever its version.
    List<MemberInfo> olderGen = List.of(member(1, Role.REPLICA, 6, 900, 900), member(ME, Role.REPLICA, 7, 50, 40));
    assertThat(chosen(olderGen, java.util.Map.of(1, 0, ME, 50), "a")).isEqualTo(ME);
    // And on suspicion: the suspected primary's best replica is behind; the up-to-date one claims.
    List<MemberInfo> withPrimary = List.of(member(1, Role.PRIMARY, 7, 60, 60), member(ME, Role.REPLICA, 7, 60, 60),
        member(3, Role.REPLICA, 7, 59, 59));
    assertThat(ElectionDecision.onSuspectedPrimary(3, SUSPECT, null, withPrimary, java.util.Map.of(ME, 7L, 3, 7L), true, RETRY,
        java.util.Map.of(1, 5, ME, 9, 3, 0), "a", null)).isEqualTo(Decision.waiting(Action.WAIT_FOR_BETTER_CANDIDATE, RETRY, false));
    assertThat(ElectionDecision.onSuspectedPrimary(ME, SUSPECT, null, withPrimary, java.util.Map.of(ME, 7L, 3, 7L), true, RETRY,
        java.util.Map.of(1, 5, ME, 9, 3, 0), "a", null)).isEqualTo(Decision.of(Action.CLAIM_DEPOSING));
  }

  @Test
  void amongEquallyUpToDateMembersTheHostWithFewestPrimariesWinsWhenTheOthersHoldTwoMore() {
    List<MemberInfo> members = List.of(member(1, Role.REPLICA, 7, 50, 10), member(ME, Role.REPLICA, 7, 50, 50),
        member(3, Role.REPLICA, 7, 50, 30));
    for (String index : List.of("a", "b", "c", "d", "e", "f", "g", "h")) {
      assertThat(chosen(members, java.util.Map.of(1, 6, ME, 6, 3, 4), index)).as(index).isEqualTo(3);
      assertThat(chosen(members, java.util.Map.of(1, 2, ME, 6, 3, 4), index)).as(index).isEqualTo(1);
      assertThat(electPlaced(3, members, java.util.Map.of(1, 6, ME, 6, 3, 4), index)).isEqualTo(Decision.of(Action.CLAIM));
      assertThat(electPlaced(ME, members, java.util.Map.of(1, 6, ME, 6, 3, 4), index))
          .isEqualTo(Decision.waiting(Action.WAIT_FOR_BETTER_CANDIDATE, RETRY, false));
    }
    // A host without a record holds nothing.
    assertThat(chosen(members, java.util.Map.of(1, 6, ME, 6), "a")).isEqualTo(3);
  }

  @Test
  void theCommitVersionDoesNotMakeAMemberMoreUpToDate() {
    List<MemberInfo> members = List.of(member(1, Role.REPLICA, 7, 50, 10), member(ME, Role.REPLICA, 7, 50, 50));
    assertThat(ElectionDecision.best(members).orElseThrow().nodeId()).as("rank still orders by it").isEqualTo(ME);
    assertThat(chosen(members, java.util.Map.of(1, 0, ME, 3), "a")).as("but placement may pick the other").isEqualTo(1);
  }

  @Test
  void anIneligibleOrClosedMemberNeverWinsForBalanceHoweverFewItsPrimaries() {
    List<MemberInfo> members = List.of(member(1, Role.CLOSED, 7, 50, 50), member(ME, Role.REPLICA, 7, 50, 50),
        member(3, Role.REPLICA, 7, 50, 50).withStanding(false, null),
        member(4, Role.REPLICA, 7, 50, 50).withIntegrity(new MemberIntegrity(true, List.of("_1.cfs"), 1, 0, 1)));
    assertThat(chosen(members, java.util.Map.of(1, 0, ME, 40, 3, 0, 4, 0), "a")).isEqualTo(ME);
  }

  @Test
  void withoutPlacementTheBestRankedMemberWinsAsBefore() {
    List<MemberInfo> members = List.of(member(1, Role.REPLICA, 7, 50, 50), member(ME, Role.REPLICA, 7, 50, 50));
    assertThat(ElectionDecision.choose(members, null, "a").orElseThrow().nodeId()).isEqualTo(ME);
    assertThat(ElectionDecision.choose(List.of(), java.util.Map.of(), "a")).isEmpty();
  }

  @Test
  void simultaneousElectionsOfADeadHostsIndexesSpreadOverTheSurvivors() {
    // A host holding 33 primaries died: 33 elections run at once on two survivors, all reading the
    // same counts. "Strictly fewest" would send all 33 to one of them.
    List<MemberInfo> members = List.of(member(1, Role.REPLICA, 4, 80, 80), member(ME, Role.REPLICA, 4, 80, 80));
    java.util.Map<Integer, Integer> counts = java.util.Map.of(1, 33, ME, 34);
    int toMe = 0;
    for (int i = 0; i < 33; i++) {
      if (chosen(members, counts, "index-" + i) == ME) {
        toMe++;
      }
    }
    assertThat(toMe).as("of 33 indexes").isBetween(8, 25);
    // Three survivors, 100 indexes.
    List<MemberInfo> three = List.of(member(1, Role.REPLICA, 4, 80, 80), member(ME, Role.REPLICA, 4, 80, 80),
        member(3, Role.REPLICA, 4, 80, 80));
    int[] won = new int[4];
    for (int i = 0; i < 100; i++) {
      won[chosen(three, java.util.Map.of(1, 25, ME, 25, 3, 25), "shard" + i)]++;
    }
    assertThat(won[1]).isBetween(18, 50);
    assertThat(won[ME]).isBetween(18, 50);
    assertThat(won[3]).isBetween(18, 50);
  }

  @Test
  void everyMemberAgreesOnExactlyOneClaimerWhateverTheOrderItReadsIn() {
    long seed = seed();
    Random random = new Random(seed);
    for (int round = 0; round < 500; round++) {
      List<MemberInfo> members = new ArrayList<>();
      java.util.Map<Integer, Integer> counts = new java.util.HashMap<>();
      int n = 1 + random.nextInt(6);
      for (int id = 1; id <= n; id++) {
        Role role = random.nextInt(5) == 0 ? Role.CLOSED : Role.REPLICA;
        MemberInfo m = member(id, role, 3 + random.nextInt(2), 10 + random.nextInt(2), random.nextInt(20));
        members.add(random.nextInt(6) == 0 ? m.withStanding(false, null) : m);
        if (random.nextInt(5) > 0) {
          counts.put(id, random.nextInt(6));
        }
      }
      String index = "i" + random.nextInt(1000);
      List<Integer> claimers = new ArrayList<>();
      for (MemberInfo self : members) {
        List<MemberInfo> view = new ArrayList<>(members);
        Collections.shuffle(view, random);
        if (electPlaced(self.nodeId(), view, counts, index).action() == Action.CLAIM) {
          claimers.add(self.nodeId());
        }
      }
      Optional<MemberInfo> best = ElectionDecision.best(members);
      String why = "seed " + seed + " round " + round + ": " + members + " counts " + counts;
      if (best.isEmpty()) {
        assertThat(claimers).as(why).isEmpty();
        continue;
      }
      assertThat(claimers).as(why).hasSize(1);
      MemberInfo winner = members.stream().filter(m -> m.nodeId() == claimers.get(0)).findFirst().orElseThrow();
      assertThat(winner.eligible() && winner.role() != Role.CLOSED).as(why).isTrue();
      assertThat(winner.primaryGen()).as(why).isEqualTo(best.get().primaryGen());
      assertThat(winner.searchingVersion()).as(why).isEqualTo(best.get().searchingVersion());
    }
  }

  // ---------------------------------------------------------------- the in-sync set

  private static MemberInfo run(int id, long gen, long searching, long incarnation) {
    return new MemberInfo(id, "h" + id + ":1", Role.REPLICA, gen, searching, searching, false, 0, java.util.Map.of(), 0,
        MemberIntegrity.CLEAN, true, null, NotWritableReason.impliedBy(Role.REPLICA), incarnation);
  }

  private static Decision electInSync(int self, List<MemberInfo> members, InSyncRecord inSync) {
    return ElectionDecision.withoutPrimary(self, null, members, true, SETTLE, SETTLE, RETRY, null, "docs", inSync);
  }

  @Test
  void onlyAMemberOfTheInSyncSetInTheIncarnationItNamesWins() {
    // Node 1 led with node 2 in sync; node 3 is ahead of node 2 in nothing but rank (a higher id).
    InSyncRecord set = InSyncRecord.start(7, 1, 100).with(ME, 200);
    List<MemberInfo> live = List.of(run(ME, 7, 50, 200), run(3, 7, 50, 300));
    assertThat(electInSync(3, live, set).action()).as("node 3 is out of the set").isEqualTo(Action.WAIT_FOR_BETTER_CANDIDATE);
    assertThat(electInSync(ME, live, set).action()).isEqualTo(Action.CLAIM);
    assertThat(electInSync(3, live, null).action()).as("no set: the best-ranked").isEqualTo(Action.CLAIM);

    // Node 2 restarted (another incarnation: it lost what it had not committed) while node 1 is still
    // gone: nobody may win, node 1 may come back holding what it acknowledged.
    List<MemberInfo> restarted = List.of(run(ME, 7, 40, 201), run(3, 7, 50, 300));
    assertThat(electInSync(ME, restarted, set).action()).isEqualTo(Action.WAIT_FOR_BETTER_CANDIDATE);
    assertThat(electInSync(3, restarted, set).action()).isEqualTo(Action.WAIT_FOR_BETTER_CANDIDATE);

    // Every node the set names is back in another incarnation (a whole-cluster restart): the newest
    // commit wins, whoever holds it.
    List<MemberInfo> allBack = List.of(run(1, 7, 45, 101), run(ME, 7, 40, 201), run(3, 7, 50, 300));
    assertThat(electInSync(3, allBack, set).action()).isEqualTo(Action.CLAIM);

    // The set's primary itself, alive in its own incarnation (deposed while cut off, say), may win.
    List<MemberInfo> oldPrimary = List.of(run(1, 7, 60, 100), run(3, 7, 50, 300));
    assertThat(electInSync(1, oldPrimary, set).action()).isEqualTo(Action.CLAIM);
  }

  @Test
  void onSuspicionOnlyAnInSyncMemberDeposes() {
    InSyncRecord set = InSyncRecord.start(7, 1, 100).with(3, 300);
    List<MemberInfo> withPrimary = List.of(member(1, Role.PRIMARY, 7, 60, 60), run(ME, 7, 60, 200), run(3, 7, 59, 300));
    java.util.Map<Integer, Long> suspicions = java.util.Map.of(ME, 7L, 3, 7L);
    assertThat(ElectionDecision.onSuspectedPrimary(ME, SUSPECT, null, withPrimary, suspicions, true, RETRY, null, "docs", set))
        .as("node 2 ranks best but is out of the set").isEqualTo(Decision.waiting(Action.WAIT_FOR_BETTER_CANDIDATE, RETRY, false));
    assertThat(ElectionDecision.onSuspectedPrimary(3, SUSPECT, null, withPrimary, suspicions, true, RETRY, null, "docs", set))
        .isEqualTo(Decision.of(Action.CLAIM_DEPOSING));
  }
}

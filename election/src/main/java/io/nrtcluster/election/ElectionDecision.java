package io.nrtcluster.election;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The decisions of one election step, as pure functions of what the {@link Elector} read from
 * ZooKeeper: no I/O, no clock, no state. The elector reads, asks, and acts on the answer.
 *
 * <p>A step is decided in two stages so that the I/O stays in the elector's order: {@link
 * #onPrimaryZnode} first, from the primary znode alone (a primary whose znode is gone or taken
 * steps down before anything else is read); then, only when there is no primary, {@link
 * #withoutPrimary} from the designated successor and the members. {@link #needsMembers} says when
 * that second stage needs the members read at all.
 *
 * <p>Guarantees: only the designated successor claims while it is a live member; with no live
 * successor, a node claims only when failover is automatic, the settle time has passed, the
 * index's in-sync set lets it win ({@link InSyncRecord#electable}), and it is
 * the best-ranked such member that has not left ({@link MemberInfo#rank}; {@link Role#CLOSED} members
 * and members that are not {@link MemberInfo#eligible()} (corrupt files, or not a candidate after
 * giving their epoch up) never win: when none is eligible, nobody
 * claims); a primary znode of this node from another session is removed, never followed or
 * adopted; a fenced primary whose own session still holds the znode resumes.
 *
 * <p>On suspicion ({@link #onSuspectedPrimary}): a primary whose znode exists is deposed only when
 * failover is automatic, no successor is designated, and a strict majority of the live members
 * other than the primary's node (every role but {@link Role#CLOSED}, {@link Role#JOINING} included:
 * a member that has not formed an opinion yet counts as one that still reaches the primary)
 * suspects the primary's current generation; suspicions of another generation and of nodes that
 * are not such members count for nothing; the claimer is the best-ranked eligible member other than
 * the suspected node, which never wins this way.
 *
 * <p>Placement ({@link #choose}): when the elector knows how many primaries each host holds, the
 * winner is still a most up-to-date eligible member, but among the equally up-to-date ones the
 * host with fewer primaries is preferred; see {@link #choose} for the rule and why it is safe and
 * why it does not send every simultaneous election to the same host.
 */
final class ElectionDecision {
  private ElectionDecision() {}

  /** What the elector does. */
  enum Action {
    /** Nothing changes (this session leads, or this node already follows the primary). */
    NOTHING,
    /** This session still holds the primary znode and this node is fenced: writes resume. */
    UNFENCE,
    /** The primary znode has this node's id but another (earlier, dead) session: delete it, look again at once. */
    REMOVE_STALE_OWN_ZNODE,
    /** Another node is primary and this node does not follow it yet: follow it. */
    FOLLOW,
    /** There is no primary: go on with {@link #withoutPrimary}. */
    ELECT,
    /** Claim the next epoch. */
    CLAIM,
    /**
     * A majority suspects the primary and this node ranks best: claim the next epoch, deleting the
     * suspected primary's znode (at the version read) in the same transaction.
     */
    CLAIM_DEPOSING,
    /** The designated successor is a live member and not this node: look again in {@code delayMillis}. */
    WAIT_FOR_SUCCESSOR,
    /** Failover is manual and no live successor is designated: look again in {@code delayMillis}. */
    WAIT_FOR_OPERATOR,
    /** No primary for less than the settle time: look again when it has passed. */
    WAIT_TO_SETTLE,
    /** Another member ranks higher (or none is eligible): look again in {@code delayMillis}, it may have died. */
    WAIT_FOR_BETTER_CANDIDATE
  }

  /**
   * One decision.
   *
   * @param action what to do
   * @param stepDown whether this node, primary or fenced now, must step down first
   * @param delayMillis for the waits: when to evaluate again; 0 otherwise
   * @param successorDead a successor is designated but is not a live member, so the election goes
   *     on as if none were (worth a warning)
   */
  record Decision(Action action, boolean stepDown, long delayMillis, boolean successorDead) {
    static Decision of(Action action) {
      return new Decision(action, false, 0, false);
    }

    static Decision waiting(Action action, long delayMillis, boolean successorDead) {
      return new Decision(action, false, delayMillis, successorDead);
    }
  }

  /**
   * Stage one: what the primary znode says.
   *
   * @param self this node's id
   * @param hold what this node's session holds of the epochs now
   * @param current the primary znode's content, or null when there is none
   * @param ownedByThisSession whether the znode's ephemeral owner is this node's current session
   *     (only looked at when {@code current} has this node's id)
   * @param followed the primary this node follows now, or null
   * @return {@link Action#NOTHING}, {@link Action#UNFENCE}, {@link Action#REMOVE_STALE_OWN_ZNODE},
   *     {@link Action#FOLLOW} or {@link Action#ELECT}, with {@code stepDown} set when this node
   *     leads (or is fenced) and the znode is gone or another node's
   */
  static Decision onPrimaryZnode(int self, EpochHold hold, PrimaryInfo current, boolean ownedByThisSession, PrimaryInfo followed) {
    boolean leading = hold.claimed();
    if (current == null) {
      return new Decision(Action.ELECT, leading, 0, false);
    }
    if (current.nodeId() == self) {
      if (!ownedByThisSession) {
        return Decision.of(Action.REMOVE_STALE_OWN_ZNODE);
      }
      return Decision.of(hold == EpochHold.SUSPENDED ? Action.UNFENCE : Action.NOTHING);
    }
    return new Decision(current.equals(followed) ? Action.NOTHING : Action.FOLLOW, leading, 0, false);
  }

  /**
   * Whether {@link #withoutPrimary} will look at the members: always when a successor is designated
   * (is it alive?), otherwise only once an automatic election has settled.
   */
  static boolean needsMembers(Integer successor, boolean automatic, long noPrimaryMillis, long settleMillis) {
    return successor != null || (automatic && noPrimaryMillis >= settleMillis);
  }

  /**
   * Stage two, when there is no primary: claim, or when to look again.
   *
   * @param self this node's id
   * @param successor the designated successor, or null
   * @param members the live members; read when {@link #needsMembers} says so, otherwise unused
   * @param automatic whether nodes claim by themselves ({@link ElectionConfig#automatic()})
   * @param noPrimaryMillis how long this node has seen no primary
   * @param settleMillis {@link ElectionConfig#settleTime()}
   * @param retryMillis {@link ElectionConfig#retryInterval()}
   */
  static Decision withoutPrimary(int self, Integer successor, List<MemberInfo> members, boolean automatic,
      long noPrimaryMillis, long settleMillis, long retryMillis) {
    return withoutPrimary(self, successor, members, automatic, noPrimaryMillis, settleMillis, retryMillis, null, "", null);
  }

  /**
   * {@link #withoutPrimary(int, Integer, List, boolean, long, long, long)} where the winner is the
   * member {@link #choose} picks with {@code primaries} (host node id to the primaries it holds
   * other than {@code index}; null: no placement, the best-ranked member wins), among the members
   * {@code inSync} lets win ({@link InSyncRecord#electable}; null: all). A designated successor that
   * is a live member claims whatever the record says: an operator designated it (a graceful
   * promotion checks the record first; a forced one overrides it on purpose).
   */
  static Decision withoutPrimary(int self, Integer successor, List<MemberInfo> members, boolean automatic,
      long noPrimaryMillis, long settleMillis, long retryMillis, Map<Integer, Integer> primaries, String index,
      InSyncRecord inSync) {
    boolean successorDead = false;
    if (successor != null) {
      if (isMember(successor, members)) {
        // An operator chose the next primary: only it claims, at once.
        return successor == self ? Decision.of(Action.CLAIM) : Decision.waiting(Action.WAIT_FOR_SUCCESSOR, retryMillis, false);
      }
      successorDead = true;
    }
    if (!automatic) {
      return Decision.waiting(Action.WAIT_FOR_OPERATOR, retryMillis, successorDead);
    }
    if (noPrimaryMillis < settleMillis) {
      return Decision.waiting(Action.WAIT_TO_SETTLE, settleMillis - noPrimaryMillis, successorDead);
    }
    Optional<MemberInfo> best = choose(InSyncRecord.electable(inSync, members), primaries, index);
    if (best.isPresent() && best.get().nodeId() == self) {
      return new Decision(Action.CLAIM, false, 0, successorDead);
    }
    return Decision.waiting(Action.WAIT_FOR_BETTER_CANDIDATE, retryMillis, successorDead);
  }

  /**
   * Whether a strict majority of the voters suspects {@code current}'s generation: the voters are
   * the live members other than the primary's node that have not left ({@link Role#CLOSED}); a
   * suspicion counts only when its node is a voter and it names {@code current.primaryGen()}.
   *
   * @param current the primary znode's content
   * @param members the live members
   * @param suspicions node id to the primary generation it suspects
   */
  static boolean majoritySuspects(PrimaryInfo current, List<MemberInfo> members, Map<Integer, Long> suspicions) {
    List<MemberInfo> voters = members.stream()
        .filter(m -> m.nodeId() != current.nodeId() && m.role() != Role.CLOSED).toList();
    long suspecting = voters.stream()
        .filter(m -> Long.valueOf(current.primaryGen()).equals(suspicions.get(m.nodeId()))).count();
    return !voters.isEmpty() && suspecting * 2 > voters.size();
  }

  /**
   * Whether this node deposes the primary {@code current} (another node's) on the replicas'
   * suspicions: {@link Action#CLAIM_DEPOSING} when failover is automatic, no successor is
   * designated (an operator's promotion is under way: it decides), {@link #majoritySuspects} and
   * this node ranks best among the eligible members other than the suspected one; {@link
   * Action#WAIT_FOR_BETTER_CANDIDATE} (in {@code retryMillis}: the better one may be gone) when a
   * majority suspects but another node ranks best; {@link Action#NOTHING} otherwise. No settle time:
   * while the primary lived every member kept its record up to date, so the ranking is current.
   */
  static Decision onSuspectedPrimary(int self, PrimaryInfo current, Integer successor, List<MemberInfo> members,
      Map<Integer, Long> suspicions, boolean automatic, long retryMillis) {
    return onSuspectedPrimary(self, current, successor, members, suspicions, automatic, retryMillis, null, "", null);
  }

  /**
   * {@link #onSuspectedPrimary(int, PrimaryInfo, Integer, List, Map, boolean, long)} where the
   * claimer is the member other than the suspected one that {@link #choose} picks with {@code
   * primaries} (null: the best-ranked one), among the members {@code inSync} lets win ({@link
   * InSyncRecord#electable}; null: all).
   */
  static Decision onSuspectedPrimary(int self, PrimaryInfo current, Integer successor, List<MemberInfo> members,
      Map<Integer, Long> suspicions, boolean automatic, long retryMillis, Map<Integer, Integer> primaries, String index,
      InSyncRecord inSync) {
    if (!automatic || successor != null || current.nodeId() == self || !majoritySuspects(current, members, suspicions)) {
      return Decision.of(Action.NOTHING);
    }
    Optional<MemberInfo> best = choose(InSyncRecord.electable(inSync, members).stream()
        .filter(m -> m.nodeId() != current.nodeId()).toList(), primaries, index);
    if (best.isPresent() && best.get().nodeId() == self) {
      return Decision.of(Action.CLAIM_DEPOSING);
    }
    return Decision.waiting(Action.WAIT_FOR_BETTER_CANDIDATE, retryMillis, false);
  }

  /**
   * The member that should lead: the highest {@link MemberInfo#rank} among those not {@link
   * Role#CLOSED} and {@link MemberInfo#eligible()} (a node holding a corrupt file it could not replace,
   * or still verifying its files, must not lead whatever its versions say).
   */
  static Optional<MemberInfo> best(List<MemberInfo> members) {
    return members.stream().filter(m -> m.role() != Role.CLOSED && m.eligible()).max(MemberInfo::rank);
  }

  /**
   * The member that should lead {@code index}, weighing placement: among the members that may win
   * ({@link #best}'s: not {@link Role#CLOSED}, {@link MemberInfo#eligible()}), only the most up to
   * date are candidates: the same {@link MemberInfo#primaryGen()} and {@link
   * MemberInfo#searchingVersion()} as the best-ranked one. Among those, the ones whose host holds at
   * most one primary more than the fewest any candidate's host holds ({@code primaries}, node id to
   * count, absent: 0) tie, and the tie goes to the highest {@link #rendezvous} hash of {@code
   * (index, nodeId)} (then the higher node id). With {@code primaries} null: {@link #best}.
   *
   * <p>Why it is safe: a candidate searches exactly the point-in-time the best-ranked member
   * searches (one generation publishes each version once), so nothing any live member has is lost
   * whichever candidate wins. The commit version is not part of "equally up to date": the winner
   * commits the point it searches before it opens its writer, so which point was durable on it
   * before decides nothing about what survives. A member that is behind is never a candidate, however few
   * primaries its host holds.
   *
   * <p>Why "within one" and a hash rather than "strictly fewest": when a host holding many primaries
   * dies, all of its indexes elect at once on the survivors, and every one of those elections reads
   * the same counts (a host's record changes only after it won). "Strictly fewest" would send every
   * one to the same survivor; with a tie of the hosts within one of the fewest, the hash of each
   * index picks a different host for different indexes, so simultaneous elections spread evenly,
   * and as counts catch up the hosts that fell behind by two or more stop being chosen. The
   * decision is a function of what every node reads (members, counts, the index name), never of who
   * asks, so all nodes that read the same agree on one winner: no two wait for each other.
   */
  static Optional<MemberInfo> choose(List<MemberInfo> members, Map<Integer, Integer> primaries, String index) {
    Optional<MemberInfo> best = best(members);
    if (best.isEmpty() || primaries == null) {
      return best;
    }
    MemberInfo b = best.get();
    List<MemberInfo> candidates = members.stream()
        .filter(m -> m.role() != Role.CLOSED && m.eligible() && m.primaryGen() == b.primaryGen()
            && m.searchingVersion() == b.searchingVersion())
        .toList();
    int fewest = candidates.stream().mapToInt(m -> primaries.getOrDefault(m.nodeId(), 0)).min().orElse(0);
    return candidates.stream()
        .filter(m -> primaries.getOrDefault(m.nodeId(), 0) <= fewest + 1)
        .max(Comparator.comparingLong((MemberInfo m) -> rendezvous(index, m.nodeId())).thenComparingInt(MemberInfo::nodeId));
  }

  /**
   * A well-mixed 64-bit hash of {@code (index, nodeId)}, the same on every JVM (String's hash code is
   * specified): the rendezvous ("highest random weight") order in which {@link #choose} breaks ties,
   * so each index has its own order of the nodes.
   */
  static long rendezvous(String index, int nodeId) {
    long z = ((long) index.hashCode() << 32) ^ (nodeId & 0xffffffffL);
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  private static boolean isMember(int nodeId, List<MemberInfo> members) {
    return members.stream().anyMatch(m -> m.nodeId() == nodeId);
  }
}

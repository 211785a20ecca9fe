package io.nrtcluster.stress;

import io.nrtcluster.node.Durability;
import java.util.List;

/**
 * The verdict of a chaos run, as written to {@code chaos-report.json}. {@code valid} is true only when
 * no acknowledged write was lost, no node disagreed with another at the same version, every index
 * passed CheckIndex with no unreferenced files, the cluster converged at the end and after every
 * healed network fault, every file whose bit was flipped on a node's disk was quarantined by it,
 * every {@link Safety} rule held, and every bit flip on the wire was detected or discarded
 * ({@link Faults}); with the object store, also every rebuilt replica caught up, backups resumed after
 * every store outage, and the newest backup restored, verified and agreed with the log ({@link StoreCheck}).
 */
public record ChaosReport(
    long seed,
    long durationSec,
    int nodes,
    NetworkMode network,
    StorageMode storage,
    Durability durability,
    Ops ops,
    Replication replication,
    Faults faults,
    int failovers,
    Millis failoverMs,
    WriteGap writeGapMs,
    Lag replicationLagMs,
    long versionMismatches,
    long versionChecks,
    int checkIndexFailures,
    int unreferencedFiles,
    long searches,
    long searchesFailed,
    long finalVersion,
    boolean converged,
    boolean valid,
    Safety safety,
    List<NetworkFault> networkFaults,
    List<DiskFault> diskFaults,
    List<DiskFlip> diskFlips,
    List<Rebuild> rebuilds,
    List<StoreOutage> storeOutages,
    List<ParentKill> copyParentKills,
    StoreCheck store,
    Followers followers,
    List<String> problems,
    List<FaultPlan.Planned> schedule,
    List<Timeline.Event> events) {

  /**
   * @param attempted writes the harness logged
   * @param acknowledged writes a primary acknowledged (first time or on replay)
   * @param lost documents whose final acknowledged write is missing or has another revision on some node
   * @param unexpected documents present on some node although the log deleted (or never wrote) them
   * @param replayed writes re-sent after failovers, from the new primary's replay position
   */
  public record Ops(long attempted, long acknowledged, long lost, long unexpected, long replayed) {}

  /**
   * What replicated durability did ({@code --durability replicated}; null in the default mode). In
   * that mode {@link Ops#acknowledged()} counts the writes a replicated refresh acknowledged, {@link
   * Ops#lost()} the documents with an acknowledged write lost ({@link ReplicatedVerdict}) and {@link
   * Ops#replayed()} is 0.
   *
   * @param batchesAccepted write batches a primary accepted
   * @param batchesAcknowledged of them, those a later replicated refresh on the same primary covered
   * @param refreshesAcknowledged replicated refreshes acknowledged
   * @param refreshesUnattributed refreshes answered by a node that switched roles during them (nothing acknowledged)
   * @param refused refreshes not acknowledged, by reason
   * @param indeterminate unacknowledged writes after their document's last acknowledged write (earlier
   *     ones are overwritten by an acknowledged write either way)
   * @param indeterminateKept of them, those the final state shows as the last write of their document that happened
   * @param indeterminateLost those after it: lost, which is allowed
   * @param indeterminateSuperseded those before it, after the acknowledged write: whether they happened is unknowable
   * @param acknowledgedVoided acknowledged writes a full-cluster crash (every node killed at once) came
   *     after before any commit of the primary held them: the library keeps a replicated
   *     acknowledgement only while one node that held it keeps running, so they are judged as
   *     indeterminate (counted in {@code indeterminate} too)
   * @param acknowledgedLost documents some node ends without their last acknowledged write's effect (0 when valid)
   */
  public record Replication(long batchesAccepted, long batchesAcknowledged, long refreshesAcknowledged,
      long refreshesUnattributed, Refusals refused, long indeterminate, long indeterminateKept, long indeterminateLost,
      long indeterminateSuperseded, long acknowledgedVoided, long acknowledgedLost) {}

  /**
   * Refreshes that asked for a replicated acknowledgement and did not get it, by reason ({@code
   * RefreshRefusal}): too few in-sync replicas, not (or no longer) primary, not published, no answer
   * in time, given up because ZooKeeper named another primary, node unreachable, anything else.
   */
  public record Refusals(long notEnoughReplicas, long notPrimary, long notPublished, long timeouts, long givenUp,
      long unreachable, long other) {}

  /**
   * How many faults of each kind were injected, and what the wire faults did. Bit flips on the wire
   * are accounted for one by one ({@link WireFlipCheck}): {@code bitFlipsInjected == bitFlipsDetected
   * + bitFlipsDiscarded + bitFlipsUndetected + bitFlipsUnaccounted}, and a valid run has no
   * undetected (read into a file that passed its checksum) and no unaccounted flip.
   *
   * @param bitFlipsDetected flips read into files that then failed their checksum
   * @param bitFlipsDiscarded flips released unread, read into unfinished files that were thrown
   *     away, or pending in a process that ended
   * @param checksumMismatches files whose received bytes failed their checksum (one may hold several flips)
   * @param rebuildsRestored replica rebuilds whose bootstrap restored the newest backup from the store
   * @param rebuildsFellBack replica rebuilds that did not (no backup yet, the store refused or did not
   *     answer, or the node's outcome is unknown): the replica copied everything from the primary
   * @param copyParentKill copy parents killed ({@link FaultKind#COPY_PARENT_KILL})
   * @param copyParentKillsDuringCopy of them, those killed while a child reported a copy from them in progress
   * @param copyParentKillsNotApplicable planned ones not made: no live replica was a copy parent
   *     when they fired (counted in {@code skipped} too)
   * @param childPeerFallbacks files the killed parents' children then fetched from the primary because
   *     the parent could not serve them, summed over the kills
   * @param skipped planned faults not made: not started by 1.5 times the duration, or not applicable
   *     when they fired
   */
  public record Faults(
      int primaryKill,
      int replicaKill,
      int jvmCrash,
      int pause,
      int wire,
      long bitFlipsInjected,
      long bitFlipsDetected,
      long bitFlipsDiscarded,
      long bitFlipsUndetected,
      long bitFlipsUnaccounted,
      long checksumMismatches,
      int zkServerRestart,
      int fullClusterRestart,
      int promotion,
      int promotionsRefused,
      int primaryPause,
      int partitionPrimaryZooKeeper,
      int partitionPrimaryReplicas,
      int partitionHalves,
      int partitionBridge,
      int partitionOneWay,
      int slowLink,
      int diskFull,
      int diskBitFlip,
      int copyDrop,
      int replicaRebuild,
      int rebuildsRestored,
      int rebuildsFellBack,
      int storeRestart,
      int killsDuringCopy,
      int killsDuringPreCopy,
      int copyParentKill,
      int copyParentKillsDuringCopy,
      int copyParentKillsNotApplicable,
      long childPeerFallbacks,
      int planned,
      int skipped,
      int recoveryTimeouts) {}

  public record Millis(long p50, long max) {}

  /**
   * The gaps a client saw between acknowledged writes ({@link WriteGaps}); -1 where there were none.
   *
   * @param maxMs the longest time between two consecutive acknowledged writes
   * @param maxEndedAtMillis when (run-relative) the longest gap ended
   * @param failoverP50Ms median of the gaps that failovers left
   * @param failoverMaxMs the longest of them
   * @param failoverGaps how many gaps failovers left
   */
  public record WriteGap(long maxMs, long maxEndedAtMillis, long failoverP50Ms, long failoverMaxMs, int failoverGaps) {}

  /**
   * What one partition or slow link did: the primary (node, generation) when it began and once the
   * cluster converged after healing (-1: not known), and how long convergence took after healing
   * (-1: it did not within the recovery timeout).
   */
  public record NetworkFault(FaultKind kind, long atMillis, long holdMillis, int primaryBefore, long genBefore,
      int primaryAfter, long genAfter, long convergeMillis) {}

  /**
   * What one disk-full fault did: the node whose disk was filled (the primary's or a replica's), the
   * bytes the filler took, and how long convergence took once freed (-1: not within the recovery timeout).
   */
  public record DiskFault(long atMillis, long holdMillis, int node, boolean primary, long bytesFilled,
      long convergeMillis) {}

  /**
   * One bit flipped on a node's disk (timestamps put back): on a killed node (then restarted) or on
   * a running one, in a file of its last commit, where, how it was found and how long after the
   * restart (killed) or the flip (running).
   */
  public record DiskFlip(long atMillis, int node, boolean primary, boolean running, String file, long length, long bit,
      Found found, long foundAfterMillis) {
    /** Whether the rule for its kind held: found at start (killed) or within the bound (running). */
    boolean ok() {
      return running ? found == Found.QUARANTINED || found == Found.DISCARDED : found == Found.AT_START;
    }
  }

  /** How a flipped file was found. */
  public enum Found {
    /** Quarantined by the node's check at start, before it served anything. */
    AT_START,
    /** Quarantined later (a killed node: it served first, a problem; a running node: by its scrub or a read). */
    QUARANTINED,
    /** Gone from the index (merged away, or replaced by a copy or a restore) before anything found it. */
    DISCARDED,
    /** Neither within the bound: a problem. */
    NOT_FOUND
  }

  /**
   * One replica wiped and rebuilt: how its bootstrap ended ({@code BootstrapResult.Outcome} name, or
   * UNKNOWN), the backup's version it restored (or refused; -1: none), how long after its restart every
   * live node searched a version refreshed after it (-1: not within the recovery timeout, a problem),
   * and the bytes it then copied from the primary (-1: unknown).
   */
  public record Rebuild(long atMillis, int node, String bootstrap, long backupVersion, long catchUpMillis,
      long bytesFromPrimary) {
    public boolean restored() {
      return "RESTORED".equals(bootstrap);
    }
  }

  /**
   * One copy parent killed ({@link FaultKind#COPY_PARENT_KILL}): the replicas the primary had copying
   * from it, the one seen copying from it at the kill (-1: none was), and the files those children
   * fetched from the primary because the parent could not serve them, from just before the kill until
   * it was back (-1: no child answered).
   */
  public record ParentKill(long atMillis, int parent, List<Integer> children, int copyingChild, long childPeerFallbacks) {
    public ParentKill {
      children = List.copyOf(children);
    }

    boolean duringCopy() {
      return copyingChild >= 0;
    }
  }

  /**
   * One object store outage: how long it was down, how long the nodes took, while it was still down,
   * to search a refreshed version (-1: they did not, a problem), the newest backup's version when it
   * came back and the newest seen after, and how long after it came back a newer backup appeared (-1:
   * none within the recovery timeout, a problem).
   */
  public record StoreOutage(long atMillis, long downMillis, long convergedWhileDownMillis, long backupAtRestart,
      long backupAfter, long backupsResumedAfterMillis) {}

  /**
   * The final check of the object store: the newest backup restored into an empty directory, every
   * byte verified, and compared with the harness's log.
   *
   * @param backups manifests in the store at the end
   * @param version the newest backup's version (-1: none)
   * @param primaryGen the generation that wrote it
   * @param files its files
   * @param bytes their bytes
   * @param restored whether it restored (every byte verified) and opened
   * @param numDocs its live documents
   * @param replayPosition the log position it covers (-1: none recorded)
   * @param inconsistencies documents that disagree with the log at that position (a write it covers
   *     missing or older, or a revision the log never wrote for that document)
   * @param problems what failed (none in a valid run)
   */
  /**
   * Store followers in the harness ({@code --followers}; null without): how they followed, and the
   * searches of a version no generation had published in ZooKeeper by then (-1: the logs were unreadable).
   */
  public record Followers(int followers, long searches, long pointsInstalled, long installFailures,
      long searchFailures, long lagVersionsAtEnd, long unpublishedSearches, List<String> examples) {
    public Followers {
      examples = List.copyOf(examples);
    }

    boolean clean() {
      return unpublishedSearches <= 0;
    }
  }

  public record StoreCheck(int backups, long version, long primaryGen, int files, long bytes, boolean restored,
      long numDocs, long replayPosition, long inconsistencies, int verifiedIntact, List<String> problems) {
    public StoreCheck {
      problems = List.copyOf(problems);
    }
  }

  /**
   * The safety rules beyond lost documents.
   *
   * @param publications maxVersion writes found in ZooKeeper's transaction logs (-1: the logs could not be read)
   * @param refreshAcks acknowledged refreshes judged (write path and probe)
   * @param unattributedAcks acknowledged refreshes whose generation is unknown (it changed during
   *     them), judged against every generation's publications
   * @param ackedUnpublished refreshes acknowledged with a version their generation had not published by then
   * @param epochOverlaps new versions acknowledged by an older generation after a newer one had acknowledged
   * @param versionsReused version numbers served with two different contents
   * @param searchesJudged searches whose version was compared with earlier ones of the same process
   * @param searchesBackInTime searches answered from an older version than one the same process had answered before
   * @param contentsJudged contents answers compared with what the primary published at their version
   * @param contentsUnjudged contents answers of versions whose published contents the run does not know
   * @param contentsDiffer contents answers unlike what the primary published at their version (and
   *     versions two primaries published with other contents)
   * @param unpublishedCommitsSearched searches answered from a commit that no refresh published
   *     (writes nobody published), by the node that committed it while it was not primary
   * @param statusAnswers status requests answered
   * @param statusOverBound status requests slower than {@code statusBoundMs}, or unanswered by a running, undisturbed node
   * @param statusMaxMs the slowest status request
   * @param statusBoundMs the bound
   * @param networkFaultsHealed partitions and slow links healed
   * @param notConvergedAfterHeal healed network faults after which the nodes did not reach a new version in time
   * @param convergeAfterHealMs time from healing until every live node searched a version refreshed after it
   */
  public record Safety(
      long publications,
      long refreshAcks,
      long unattributedAcks,
      long ackedUnpublished,
      long epochOverlaps,
      long versionsReused,
      long searchesJudged,
      long searchesBackInTime,
      long contentsJudged,
      long contentsUnjudged,
      long contentsDiffer,
      long unpublishedCommitsSearched,
      long statusAnswers,
      long statusOverBound,
      long statusMaxMs,
      long statusBoundMs,
      int networkFaultsHealed,
      int notConvergedAfterHeal,
      Millis convergeAfterHealMs) {
    boolean clean() {
      return publications >= 0 && ackedUnpublished == 0 && epochOverlaps == 0 && versionsReused == 0
          && searchesBackInTime == 0 && contentsDiffer == 0 && unpublishedCommitsSearched == 0 && statusOverBound == 0
          && notConvergedAfterHeal == 0;
    }
  }

  public record Lag(long p50, long p99, long max, int samples) {}
}

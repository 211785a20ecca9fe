package io.nrtcluster.stress.bench;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What a benchmark run measured, as written to {@code bench.json}: Jackson writes each record's
 * components in declaration order under their names, so the order and names here are the file's
 * format (scripts and the docs' tables read it). A figure that was not run is left out.
 *
 * @param provenance which commit it measured, and when
 * @param machine where it ran
 * @param config how it ran
 * @param figures what it measured
 */
public record BenchReport(Provenance provenance, Machine machine, BenchConfig config, Figures figures) {
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /** Writes this report as indented JSON to {@code file}. */
  public void writeTo(Path file) throws IOException {
    JSON.writeValue(file.toFile(), this);
  }

  /** The machine the run measured. */
  public record Machine(int cores, long memoryBytes, String jdk, String os) {}

  /** Each figure, null (and absent from the file) when the run did not include it. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Figures(
      VisibilityLag visibilityLag,
      CommitBased commitBased,
      ReplicaCpu replicaCpu,
      SearchWhileCopying searchWhileCopying,
      CopyThroughput copyThroughput,
      Failover failover,
      List<PhaseBreakdown> lagPhases,
      LinkDelay linkDelay,
      Scale scale,
      Bootstrap bootstrap,
      AckLatency ackLatency,
      Followers followers,
      FanoutReport fanout) {

    /** The figures without figure 12. */
    public Figures(VisibilityLag visibilityLag, CommitBased commitBased, ReplicaCpu replicaCpu,
        SearchWhileCopying searchWhileCopying, CopyThroughput copyThroughput, Failover failover,
        List<PhaseBreakdown> lagPhases, LinkDelay linkDelay, Scale scale, Bootstrap bootstrap, AckLatency ackLatency,
        Followers followers) {
      this(visibilityLag, commitBased, replicaCpu, searchWhileCopying, copyThroughput, failover, lagPhases, linkDelay,
          scale, bootstrap, ackLatency, followers, null);
    }

    /** The figures without the lag phases and figures 8 to 11. */
    public Figures(VisibilityLag visibilityLag, CommitBased commitBased, ReplicaCpu replicaCpu,
        SearchWhileCopying searchWhileCopying, CopyThroughput copyThroughput, Failover failover) {
      this(visibilityLag, commitBased, replicaCpu, searchWhileCopying, copyThroughput, failover, null, null, null, null,
          null, null, null);
    }
  }

  /**
   * Figure 11: write-to-acknowledgement latency of {@code refresh} with {@code LOCAL} against {@code
   * REPLICATED} acknowledgements, from the same processes in the same run, once without and once with
   * a link delay.
   *
   * @param windows how the two levels' measured windows were laid out
   * @param cells one per link delay (0 first)
   */
  public record AckLatency(int docsPerSec, int refreshMs, String windows, List<AckCell> cells, String note) {}

  /**
   * One link delay of figure 11.
   *
   * @param oneWayDelayMs the linkDelay fault point on every cluster link (0: none)
   * @param windowsPerLevel measured windows of each level
   * @param windowSec measured seconds of each window
   * @param localWriteToAckMs per LOCAL refresh: the oldest write it covers to its return
   * @param replicatedWriteToAckMs the same for REPLICATED refreshes
   * @param localRefreshCallMs per LOCAL refresh: the call alone (start to return)
   * @param replicatedRefreshCallMs the same for REPLICATED refreshes
   * @param p50Ratio replicated over local write-to-acknowledgement p50
   * @param p99Ratio the same at p99
   * @param replicatedRefused REPLICATED refreshes refused for lack of in-sync replicas (not acknowledged)
   * @param localSlowestInstallAfterReturnMs per version of the LOCAL windows: the refresh's return to the
   *     slower replica's searcher switch (what REPLICATED adds to the call, less the install report's way back)
   * @param bound the target's bound, from figures of this cell
   * @param targetMet whether the replicated write-to-acknowledgement p50 is at most the bound
   * @param localSteps the replicas' copy steps during the LOCAL windows (figure 1's steps)
   * @param replicatedSteps the same during the REPLICATED windows (their refresh step is the whole
   *     acknowledged call, which ends after the install, so their point step is mostly 0)
   */
  public record AckCell(int oneWayDelayMs, int windowsPerLevel, int windowSec, Dist localWriteToAckMs,
      Dist replicatedWriteToAckMs, Dist localRefreshCallMs, Dist replicatedRefreshCallMs, double p50Ratio, double p99Ratio,
      long replicatedRefused, Dist localSlowestInstallAfterReturnMs, AckBound bound, boolean targetMet,
      PhaseBreakdown localSteps, PhaseBreakdown replicatedSteps) {}

  /**
   * Figure 11's target: the replicated write-to-acknowledgement p50 at most the local one plus one
   * round trip plus the replica's install time.
   *
   * @param localP50Ms the LOCAL write-to-acknowledgement p50
   * @param loopbackRttMs a TCP round trip on loopback, p50
   * @param roundTripMs one round trip between cluster nodes: twice the one-way link delay plus {@code loopbackRttMs}
   * @param installMs the replica's install: the p50s of figure 1's copy-state, files and searcher steps, added
   * @param boundMs {@code localP50Ms + roundTripMs + installMs}
   */
  public record AckBound(double localP50Ms, double loopbackRttMs, double roundTripMs, double installMs, double boundMs) {
    /** The bound from its parts; {@code steps} are the replicas' copy steps of the LOCAL windows. */
    static AckBound of(double localP50Ms, int oneWayDelayMs, double loopbackRttMs, PhaseBreakdown steps) {
      double roundTrip = round(2.0 * oneWayDelayMs + loopbackRttMs);
      double install = round(steps.copyStateMs().p50() + steps.filesMs().p50() + steps.searcherMs().p50());
      return new AckBound(localP50Ms, loopbackRttMs, roundTrip, install, round(localP50Ms + roundTrip + install));
    }

    /** Whether a replicated write-to-acknowledgement p50 of {@code replicatedP50Ms} meets the target. */
    boolean met(double replicatedP50Ms) {
      return replicatedP50Ms >= 0 && replicatedP50Ms <= boundMs;
    }

    private static double round(double ms) {
      return Math.round(ms * 1000) / 1000.0;
    }
  }

  /**
   * Figure 6, acknowledged loss: the primary killed (kill -9) right after acknowledged refreshes of
   * one level, and the acknowledged documents the new primary lacks.
   *
   * @param durability LOCAL or REPLICATED
   * @param failovers kills measured
   * @param batchesPerFailover acknowledged refreshes before each kill (the last right before it)
   * @param docsPerBatch documents each of them covered
   * @param acknowledgedDocs documents acknowledged over all the kills
   * @param lostDocs of them, missing on the new primary
   * @param lostPerFailover per kill, in order
   */
  public record AckLoss(String durability, int failovers, int batchesPerFailover, int docsPerBatch, long acknowledgedDocs,
      long lostDocs, List<Long> lostPerFailover, String note) {}

  /**
   * Figure 10: two new replicas bootstrap the primary's index while it indexes, copying everything from
   * the primary, then restoring the newest backup from an object store first (in the same run, from the
   * same primary).
   *
   * @param builtBytes the index's bytes on disk after the build (before the bootstraps)
   * @param builtDocs documents in it then
   * @param buildSec how long the build took (bulk adds, then a commit)
   * @param backupSec the build's commit to its backup completed (the primary's first backup: everything)
   * @param docsPerSec the primary's indexing rate asked for during each bootstrap
   * @param refreshMs its refresh interval then
   * @param fromPrimary both replicas copying everything from the primary (the baseline)
   * @param fromStore both replicas restoring the newest backup first, then copying the difference
   * @param storeSentRatio {@code fromStore}'s primary bytes sent over the index's bytes
   * @param targetSentRatio the target for {@code storeSentRatio} (at most 5%)
   */
  /**
   * Figure 13: a follower through the object store alone ({@code StoreFollower} in the harness, polling
   * every {@code pollMs}) while one primary process indexes at {@code docsPerSec} and refreshes every
   * {@code refreshMs}, backing up every point to S3Proxy: lag from the start of the primary's refresh of
   * a version to the follower first searching it (or newer), without and with {@code delayMs} on each
   * direction of the follower's link to the store; the target: p99 at most the refresh interval plus 2 s.
   * The primary sends the follower nothing: a follower has no transport and no connection to it.
   */
  public record Followers(int docsPerSec, int refreshMs, int pollMs, long delayMs, Dist lag, Dist delayedLag,
      long pointsInstalled, long delayedPointsInstalled, double targetMs,
      boolean targetMet, String note) {}

  public record Bootstrap(long builtBytes, long builtDocs, double buildSec, double backupSec, int docsPerSec, int refreshMs,
      BootstrapRun fromPrimary, BootstrapRun fromStore, double storeSentRatio, double fromPrimarySentRatio,
      double targetSentRatio, boolean targetMet, String note) {}

  /**
   * One bootstrap of two new replicas with empty directories, timed from the start of their JVMs.
   *
   * @param indexBytes the bytes of the files of the version the primary searched when the replicas started
   * @param targetVersion the version the primary searched then: each replica is searching once it
   *     searches this version or a newer one
   * @param toSearchingMs the start of the replica JVMs to both searching
   * @param primaryBytesSent bytes the primary process sent over TCP in that window, other than to
   *     ZooKeeper and the store (the kernel's acknowledged bytes per socket)
   * @param primaryBytesSentRatio {@code primaryBytesSent} over {@code indexBytes}
   * @param primaryCpuSec the primary process's CPU seconds in the window
   * @param docsIndexed documents the primary's paced load indexed in the window
   * @param docsPerSec {@code docsIndexed} over the window
   */
  public record BootstrapRun(String source, long indexBytes, long targetVersion, double toSearchingMs, long primaryBytesSent,
      double primaryBytesSentRatio, double primaryCpuSec, long docsIndexed, double docsPerSec,
      List<ReplicaBootstrap> replicas) {}

  /**
   * One replica's bootstrap: to searching the target version, how its store bootstrap ended (null without
   * a store), the file bytes it copied from the primary and those it downloaded from the store.
   */
  public record ReplicaBootstrap(int nodeId, double toSearchingMs, @JsonInclude(JsonInclude.Include.NON_NULL) String storeOutcome,
      long bytesFromPrimary, long bytesFromStore) {}

  /**
   * Figure 9: {@code nodes} node processes hosting {@code indexes} indexes each, against the same
   * nodes hosting one index, in the same run.
   *
   * @param start the nodes' start (all at once) to every index searching
   * @param perIndex threads and memory per index on each node
   * @param electedAtStart primaries per node once every index searches: as the elections placed them
   * @param afterStart the same watched from then until they settle (moved by a rebalancing, if any)
   * @param zooKeeperIdle ZooKeeper's writes with nothing refreshing
   * @param zooKeeperLoaded the same with a refresh per second per index
   * @param zooKeeperCapacityWritesPerSec what the ZooKeeper server sustains on this machine ({@code ZkWriteCensus.capacity})
   * @param drainMs the refresh load's end to every replica searching its primary's last version (-1: not within 30 s)
   * @param behindAfterLoad the replicas still behind 30 s after the load (null: none)
   * @param massFailover kill -9 of the node holding the most primaries to every index of it writable
   * @param zooKeeperFailover ZooKeeper's writes from just before the kill to every index writable again
   * @param electedAfterFailover primaries per survivor once every index of the killed node is writable
   * @param afterFailover the same watched from the kill until they settle
   * @param rebalance the killed node back: until it caught up and the primaries stopped moving
   */
  public record Scale(int indexes, int nodes, int heapMbPerNode, ScaleStart start, PerIndexCost perIndex,
      Placement electedAtStart, Rebalance afterStart, ZooKeeperWrites zooKeeperIdle, ZooKeeperWrites zooKeeperLoaded,
      double zooKeeperCapacityWritesPerSec, double drainMs, @JsonInclude(JsonInclude.Include.NON_NULL) String behindAfterLoad,
      MassFailover massFailover, ZooKeeperWrites zooKeeperFailover, Placement electedAfterFailover, Rebalance afterFailover, Rebalance rebalance,
      String note) {}

  /** Start of every node process at once to every index searching: one index, and all of them. */
  public record ScaleStart(double oneIndexMs, double allIndexesMs, double ratio) {}

  /**
   * Each node's threads and memory with one index and with all, and the difference per extra index.
   * Threads are the JVM's live threads less the benchmark agent's own; heap is used heap after a full
   * GC; resident is the process's resident set.
   */
  public record PerIndexCost(double maxThreadsPerIndex, double maxHeapKiBPerIndex, double maxResidentKiBPerIndex,
      double targetThreadsPerIndex, boolean targetMet, List<NodeCost> nodes) {}

  /** One node's part of {@link PerIndexCost}; {@code threadGroups}: its threads by name pattern with all indexes. */
  public record NodeCost(int nodeId, int threadsOneIndex, int threadsAllIndexes, double threadsPerIndex,
      double heapMiBOneIndex, double heapMiBAllIndexes, double heapKiBPerIndex, double residentMiBOneIndex,
      double residentMiBAllIndexes, double residentKiBPerIndex, Map<String, Integer> threadGroups) {}

  /** Primaries per node (node id to count; nodes holding none included), with max, min and whether max - min <= 1. */
  public record Placement(Map<Integer, Integer> primariesPerNode, int max, int min, boolean withinOne) {}

  /**
   * ZooKeeper's write transactions in a window, from its transaction log ({@code ZkWriteCensus}).
   *
   * @param publications transactions raising an index's maxVersion (the fenced publication of a version)
   * @param versionsPublished distinct (index, version) pairs those raised maxVersion to
   * @param publicationsPerVersion publications over versions published (1: one transaction per version)
   * @param memberUpdates writes of a member record (each node's progress, read by the election)
   * @param other every other write transaction; {@code byKind} splits all of them
   * @param refreshes refreshes the primaries made in the window (from the nodes)
   * @param targetRefreshesPerSec the refreshes per second asked for (one per index per second; 0 when idle)
   * @param refreshMs how long the window's refreshes took (null when idle): a load the primaries could
   *     not keep up with shows here and in {@code refreshesPerSec}
   * @param writesPerVersion all write transactions over publications
   * @param perSecAtTargetRate {@code writesPerVersion} times {@code targetRefreshesPerSec}: the load at
   *     the rate asked for, when the primaries could not make that many versions on this machine
   * @param nodesCpuCores the node processes' CPU over the window, in cores (-1: not measured)
   */
  public record ZooKeeperWrites(double seconds, long transactions, double perSec, double perIndexPerSec,
      long publications, long versionsPublished, double publicationsPerVersion, long memberUpdates, long other,
      Map<String, Long> byKind, long refreshes, double refreshesPerSec, double targetRefreshesPerSec,
      @JsonInclude(JsonInclude.Include.NON_NULL) Dist refreshMs, double writesPerVersion, double perSecAtTargetRate,
      double nodesCpuCores) {}

  /**
   * kill -9 of one node to the first write each index it led acknowledged on a survivor ({@code
   * toWritableMs} over those indexes; {@code allWritableMs}: the last of them), against the same
   * measurement of one index's failover in the one-index cluster ({@code oneIndexMs}, several kills).
   *
   * @param notWritable indexes not writable within the figure's deadline (2 minutes)
   * @param overOneIndexMs {@code allWritableMs} less the one-index failover's median
   */
  public record MassFailover(int killedNode, int primariesOnKilledNode, Dist toWritableMs, double allWritableMs,
      int notWritable, Dist oneIndexMs, double overOneIndexMs, double targetOverOneIndexMs, boolean targetMet) {}

  /**
   * Primaries watched until they settle ({@code PlacementWatch}), times from the watch's start (the
   * start's end, the kill, the restart): to the node it waits for searching every index ({@code
   * toCaughtUpMs}; the restarted node, or none), and to the last change of primary among the indexes
   * ({@code toEndMs}; the catch-up when nothing moved, or when the watch could begin when it never
   * caught up), with how many primaries moved and the placement then.
   *
   * @param toCaughtUpMs -1 when it did not catch up ({@code notCaughtUp} says which indexes lag, and where)
   * @param endedBy "within one" (primaries per node within one and unchanged for 2 s), "quiet" (not
   *     within one, unchanged for the quiet time after the catch-up), "quiet, not caught up" (unchanged
   *     for a minute without a catch-up), or "deadline" (5 minutes)
   */
  public record Rebalance(double toCaughtUpMs, double toEndMs, int moves, String endedBy, Placement placement,
      @JsonInclude(JsonInclude.Include.NON_NULL) String notCaughtUp) {}

  /**
   * Figure 1's lag of one cell broken into its steps (see {@code LagPhases}), each a distribution over
   * the versions the replicas copied: the primary's refresh, the NRT point on its way, the
   * copy-state, the files, the new searcher.
   */
  public record PhaseBreakdown(int docsPerSec, int refreshMs, Dist refreshStepMs, Dist pointMs, Dist copyStateMs,
      Dist filesMs, Dist searcherMs, Dist reportMs) {}

  /**
   * Figure 8: lag with a one-way link delay between the cluster nodes against the same load without,
   * versions installed per second against refreshes per second, and the target check.
   */
  public record LinkDelay(int oneWayDelayMs, double roundTripMs, int docsPerSec, int refreshMs, Dist lagWithoutDelayMs,
      Dist lagMs, double installedPerSecWithoutDelay, double installedPerSec, double refreshesPerSec,
      double targetP50Ms, boolean targetMet, PhaseBreakdown phasesWithoutDelay, PhaseBreakdown phases, String note) {}

  /** Figure 1: replica visibility lag over the single-node refresh time; top-level ratios are the worst cell's. */
  public record VisibilityLag(double p50Ratio, double p99Ratio, double targetP50Ratio, double targetP99Ratio, String note,
      List<LagCellResult> cells) {}

  /** One cell of the grid in figure 1: measured, or failed. */
  public sealed interface LagCellResult permits LagCell, FailedCell {}

  /**
   * One measured cell of figure 1.
   *
   * @param localRefreshMergeWait500Ms measured in the first cell only (null, and absent, in the others)
   */
  public record LagCell(int docsPerSec, int refreshMs, long docsIndexedLocal, long docsIndexedPrimary, int measuredSec,
      Dist localRefreshMs, @JsonInclude(JsonInclude.Include.NON_NULL) Dist localRefreshMergeWait500Ms,
      Dist replicaLagMs, double p50Ratio, double p99Ratio) implements LagCellResult {}

  /** A cell that failed (for example a primary that lost its ZooKeeper session under the load). */
  public record FailedCell(int docsPerSec, int refreshMs, String error) implements LagCellResult {}

  /** Figure 2: commit-based visibility lag over NRT lag; top level: the cell where NRT gains least. */
  public record CommitBased(double p50Ratio, double p99Ratio, String note, List<CommitCell> cells) {}

  public record CommitCell(int docsPerSec, int refreshMs, Dist commitLagMs, Dist nrtLagMs, double p50Ratio,
      double p99Ratio) {}

  /** Figure 4: a replica's CPU over the primary's (and over a node indexing everything itself). */
  public record ReplicaCpu(double ratio, double docReplicationRatio, double target, String worstCell, String note,
      List<CpuCell> cells) {}

  public record CpuCell(int docsPerSec, int refreshMs, double primaryCpuSec, double replicaCpuSec,
      double docReplicationNodeCpuSec, double ratio, double docReplicationRatio) {}

  /**
   * Figure 5: a replica's search throughput while it pre-copies a merged segment over the same
   * replica searching the same index just before the merge began, unpaced and with its pre-copies
   * paced.
   *
   * @param ratio the paced round's: the target is judged on it
   * @param unpacedRatio the unpaced round's
   * @param pacedBytesPerSecond the paced round's {@code preCopyBytesPerSecond}
   * @param replica the replica searched (the only one copying)
   */
  public record SearchWhileCopying(double ratio, double target, double unpacedRatio, long pacedBytesPerSecond, int replica,
      List<SearchRound> rounds, String note) {}

  /**
   * One merge of figure 5.
   *
   * @param preCopyBytesPerSecond the replica's pace (0: unpaced)
   * @param preCopySeconds how long the pre-copy took: what the pace costs
   * @param idleQps queries per second before the merge began
   * @param copyingQps queries per second while the replica pre-copied
   * @param copyingWindowSec the part of the pre-copy the search was counted over (whole 10 ms buckets)
   */
  public record SearchRound(long preCopyBytesPerSecond, long preCopyBytes, double preCopySeconds,
      double preCopyMiBPerSec, double idleQps, double copyingQps, double ratio, double copyingWindowSec) {}

  /**
   * Figure 3: a forced merge's pre-copy to two, then one replica, each round bracketed by raw
   * baselines of about the same bytes measured right before and right after it ({@link CopyRound}).
   * Each headline is the worse over both rounds and both baselines, so a baseline that drifted
   * during the run cannot meet a target by itself.
   *
   * @param ratio the lower of both rounds' {@link CopyRound#ratio}
   * @param target the target of {@code ratio} (at least)
   * @param processCpuRatio the higher of both rounds' {@link CopyRound#processCpuRatio}
   * @param cpuTarget the target of {@code processCpuRatio} (at most)
   */
  public record CopyThroughput(
      CopyRound twoReplicas,
      CopyRound oneReplica,
      double ratio,
      double target,
      double processCpuRatio,
      double cpuTarget,
      String note) {}

  /**
   * One round of figure 3: the pre-copy's fields, then its baselines with the suffixes {@code
   * Before} and {@code After}, as many transfers at once as replicas copied.
   *
   * @param before measured right before the forced merge, on the segments it is about to merge (no
   *     merged segment exists yet; about the same bytes, {@code bytesBefore} says how many)
   * @param after measured right after it, on the merged segment's files
   * @param ratioBefore the pre-copy's MiB/s per replica over {@code before}'s {@link RawSpeeds#floor}
   * @param ratioAfter the same over {@code after}'s
   * @param ratio the lower of the two
   * @param processCpuRatioBefore the replicas' process CPU per GiB over {@code before}'s raw
   *     receivers' process CPU per GiB ({@link RawSpeeds#rawReceiverCpuSecPerGiB})
   * @param processCpuRatioAfter the same over {@code after}'s
   * @param processCpuRatio the higher of the two
   */
  public record CopyRound(
      @JsonUnwrapped PreCopyRun preCopy,
      @JsonUnwrapped(suffix = "Before") RawSpeeds before,
      @JsonUnwrapped(suffix = "After") RawSpeeds after,
      double ratioBefore,
      double ratioAfter,
      double ratio,
      double processCpuRatioBefore,
      double processCpuRatioAfter,
      double processCpuRatio) {}

  /**
   * One forced merge's pre-copy.
   *
   * @param replicaCpuSecPerGiB each copying replica's process CPU (every thread, user and system)
   *     over the pre-copy's window, per GiB pre-copied, averaged over the replicas
   */
  public record PreCopyRun(long bytes, double seconds, double mibPerSecPerReplica, double mergeSeconds,
      double replicaCpuSecPerGiB, double replicaUserCpuSecPerGiB) {}

  /**
   * Raw speeds of one set of files, as many transfers at once as replicas copy (the slowest counts):
   * loopback TCP, disk writes, and raw receiver processes ({@code RawReceiverMain}: a socket read
   * into a 256 KiB off-heap buffer, one write per read, no checks, no fsync, as the replica's copy).
   *
   * @param bytes the files' bytes, sent once per transfer
   * @param rawReceiverMiBPerSec a raw receiver's bytes per second, the sender's connect to its answer
   * @param rawReceiverCpuSecPerGiB a raw receiver's process CPU (every thread, user and system) over
   *     its transfer, per GiB received, averaged over the receivers: accounted as a replica's
   */
  public record RawSpeeds(long bytes, double loopbackMiBPerSec, double diskWriteMiBPerSec, double rawReceiverMiBPerSec,
      double rawReceiverCpuSecPerGiB, double rawReceiverUserCpuSecPerGiB) {
    /** The lower of loopback and disk write, in bytes per second: the throughput a copy is compared with. */
    double floor() {
      return Math.min(loopbackMiBPerSec, diskWriteMiBPerSec) * (1 << 20);
    }
  }

  /**
   * Figure 6: {@code kill -9} of the primary to the first acknowledged write and to every replica on
   * the new version.
   *
   * @param p99Ms the nearest-rank 99th percentile of the kills to the first acknowledged write (of
   *     fewer than 100 kills, the slowest); -1 in runs written before it was recorded
   * @param targetP99Ms its target
   */
  public record Failover(double p50Ms, double maxMs, double allReplicasP50Ms, double allReplicasMaxMs, int sessionTimeoutMs,
      int failovers, double p50OverSessionTimeout, String note, double targetP50Ms, double targetMaxMs,
      double targetAllReplicasP50Ms, Pause pause, @JsonInclude(JsonInclude.Include.NON_NULL) List<AckLoss> acknowledgedLoss,
      double p99Ms, double targetP99Ms) {

    /** The figure without the 99th percentile. */
    public Failover(double p50Ms, double maxMs, double allReplicasP50Ms, double allReplicasMaxMs, int sessionTimeoutMs,
        int failovers, double p50OverSessionTimeout, String note, double targetP50Ms, double targetMaxMs,
        double targetAllReplicasP50Ms, Pause pause, List<AckLoss> acknowledgedLoss) {
      this(p50Ms, maxMs, allReplicasP50Ms, allReplicasMaxMs, sessionTimeoutMs, failovers, p50OverSessionTimeout, note,
          targetP50Ms, targetMaxMs, targetAllReplicasP50Ms, pause, acknowledgedLoss, -1, -1);
    }

    /** The figure without the acknowledged loss. */
    public Failover(double p50Ms, double maxMs, double allReplicasP50Ms, double allReplicasMaxMs, int sessionTimeoutMs,
        int failovers, double p50OverSessionTimeout, String note, double targetP50Ms, double targetMaxMs,
        double targetAllReplicasP50Ms, Pause pause) {
      this(p50Ms, maxMs, allReplicasP50Ms, allReplicasMaxMs, sessionTimeoutMs, failovers, p50OverSessionTimeout, note,
          targetP50Ms, targetMaxMs, targetAllReplicasP50Ms, pause, null);
    }
  }

  /** Figure 6, second part: {@code SIGSTOP} of the primary (silent, connections open) until it is replaced, then woken. */
  public record Pause(double p50Ms, double maxMs, double allReplicasP50Ms, double allReplicasMaxMs,
      double wakeToReplicaP50Ms, double wakeToReplicaMaxMs, int pauses, String note) {}
}

package io.nrtcluster.stress.bench;

import io.nrtcluster.election.Role;
import java.util.List;
import java.util.Map;

/** The JSON messages between the benchmark harness and its node processes. Times are {@code System.nanoTime()}, which on Linux is one clock (CLOCK_MONOTONIC) for every process of the machine. */
public final class BenchApi {
  private BenchApi() {}

  /** One refresh of a measured load: the version it made and the refresh call's start and return (nanos). */
  public record Refresh(long version, long startNanos, long endNanos) {}

  /** A version a node started searching, and when (nanos). */
  public record Seen(long version, long nanos) {}

  /**
   * The timeline of one copy on a replica (nanos; -1 where a step did not happen): the NRT point heard,
   * the copy-state in hand, every file received and verified, the searcher switched, listeners told.
   */
  public record CopySteps(long version, long pointNanos, long copyStateNanos, long filesNanos, long searcherNanos,
      long reportedNanos) {}

  /**
   * One measured load: each refresh (after warm-up), documents
   * indexed, and process CPU and wall time over the measured part; {@code acks}: the same refreshes
   * with the write each one covered (figure 11), {@code refused}: refreshes whose {@code REPLICATED}
   * acknowledgement was refused for lack of in-sync replicas (not in {@code refreshes}).
   */
  public record LoadReply(List<Refresh> refreshes, long docs, long cpuNanos, long fromNanos, long toNanos, List<Ack> acks,
      long refused) {}

  /**
   * One acknowledged refresh of a load (figure 11): its version, the start of the {@code addDocument}
   * call of the oldest document recorded as written before the refresh began (-1: none), and the
   * refresh call's start and return.
   */
  public record Ack(long version, long oldestWriteNanos, long startNanos, long endNanos) {}

  /** A batch of documents {@code prefix0..prefixN-1} acknowledged by a refresh of {@code durability}: its version. */
  public record AckBatchReply(long version, String durability, List<Integer> replicas) {}

  /** How many documents whose id starts with the asked prefix this node searches. */
  public record CountReply(long count, long version) {}

  /** Versions this node started searching, and the timeline of each copy. */
  public record VisibleReply(List<Seen> versions, List<CopySteps> phases) {}

  /** CPU a node process spent in a window: all of it, and its user-mode part (-1 where unknown). */
  public record CpuReply(long cpuNanos, long userNanos) {}

  /**
   * A search load: how many queries ran over how long, and when: from {@code startNanos} (the shared
   * nanoTime clock) the queries that ended in each bucket of {@code bucketNanos}.
   */
  public record SearchReply(long queries, long nanos, long startNanos, long bucketNanos, long[] perBucket) {}

  public record BulkReply(long docs, long bytes) {}

  /** A forced merge and its pre-copy to the replicas (null fields when no pre-copy ran). */
  /**
   * {@code fromNanos}/{@code toNanos}: the forced merge (and its pre-copy) on the shared nanoTime clock;
   * {@code preCopyFromNanos}: when the pre-copy began on the same clock (its window ends {@code preCopyNanos} later).
   */
  public record MergeReply(long mergeNanos, long preCopyBytes, long preCopyNanos, int replicas, int succeeded,
      List<String> files, long fromNanos, long toNanos, long preCopyFromNanos) {}

  /**
   * A node's role (on the wire the enum constant's name; null for a single-node baseline, which is in
   * no cluster), the generation it leads or follows and the version it searches.
   */
  public record StatusReply(int nodeId, Role role, long gen, long version, boolean writable) {}

  /** One index on a node of the scale figure: its role there (null before it has one), the generation, the version searched. */
  public record IndexState(Role role, long gen, long version) {}

  /** Every index of a scale-figure node, by number ({@code s000} is 0). */
  public record ScaleStatus(int nodeId, List<IndexState> indexes) {}

  /** A write this node acknowledged as primary of index number {@code index}, at {@code nanos}. */
  public record Acked(int index, long nanos) {}

  /** The writes a probe got acknowledged (indexes this node is not the writable primary of are left out). */
  public record ProbeReply(List<Acked> acked) {}

  /**
   * A node's threads (live, as the JVM counts them; {@code harnessThreads} of them are the benchmark
   * agent's own: its HTTP server and samplers) and memory: heap used after a full GC (when asked for
   * one, else -1), resident set size; {@code threadGroups}: thread names with digits as {@code #} and
   * index names as {@code <index>}, with how many threads carry each (largest first).
   */
  public record JvmReply(int threads, int harnessThreads, long heapUsedAfterGcBytes, long residentBytes, Map<String, Integer> threadGroups) {}

  /**
   * A refresh load over a node's primaries: the refreshes that returned between {@code fromNanos} and
   * {@code toNanos} and how long each took (nanos), and how many failed over the whole load.
   */
  public record RefreshLoadReply(long refreshes, long failures, long fromNanos, long toNanos, List<Long> refreshNanos) {}

  /** The bootstrap figure's index build: documents added, the index's bytes on disk, the version committed, how long. */
  public record BuildReply(long docs, long indexBytes, long version, long nanos) {}

  /** A refresh and commit: the version committed. */
  public record CommitReply(long version) {}

  /** Documents a paced load indexed so far, at {@code nanos}. */
  public record DocsReply(long docs, long nanos) {}

  /**
   * A node's object store and copying: the last version its backups completed (-1: none, or no store),
   * bytes up to and down from the store, how its bootstrap ended (null: no store or none ran), file
   * bytes it copied from the primary as a replica, the version it searches, and the bytes of that
   * version's files (its segments).
   */
  public record StoreReply(long lastBackedUpVersion, long bytesUploaded, long bytesDownloaded, String bootstrapOutcome,
      long bytesFromPrimary, long version, long indexBytes) {}

  /**
   * A cluster node's copying for the fan-out figure (figure 12), all counters since its start.
   *
   * @param role its role now (null before it has one)
   * @param version the version it searches
   * @param bytesSentByPeer bytes its transport sent each peer for the index (on a primary: to each replica)
   * @param transportBytesSent bytes its transport sent in all, every index and peer
   * @param copySources on a primary, each connected replica's copy source (-1: the primary); else empty
   * @param copyLevels on a primary, each connected replica's level in the copy tree (1: copies from the
   *     primary, 2: from a replica of level 1, ...); else empty
   * @param copySource on a replica, where it copies from (-1: the primary); -2 on a primary
   * @param bytesCopied on a replica, file bytes it received (from the primary and from peers)
   * @param bytesFromPeers on a replica, the bytes of files it copied whole from its parent
   * @param peerFallbacks on a replica, files its parent could not serve, fetched from the primary
   * @param preCopiesCompleted on a replica, merge pre-copies it completed
   * @param lastPreCopyDoneNanos when this node saw its last pre-copy complete (sampled every {@link
   *     CopyTreeEndpoints#SAMPLE_MS} ms), 0 before any
   */
  public record CopyTreeStatus(int nodeId, Role role, long version, Map<Integer, Long> bytesSentByPeer,
      long transportBytesSent, Map<Integer, Integer> copySources, Map<Integer, Integer> copyLevels, int copySource,
      long bytesCopied, long bytesFromPeers, long peerFallbacks, long preCopiesCompleted, long lastPreCopyDoneNanos) {}
}

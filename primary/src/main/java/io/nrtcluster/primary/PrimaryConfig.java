package io.nrtcluster.primary;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.Internal;
import io.nrtcluster.common.Stable;
import io.nrtcluster.transport.TransportConfig;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Immutable settings of one {@link Primary}. Built with {@link #builder()}, which validates every
 * bound and names the offending field.
 *
 * @param nodeId this node's id, unique in the cluster (appears as {@code P<id>} in logs)
 * @param cluster cluster name; replicas of another cluster are refused
 * @param index index (shard) name
 * @param dataDir node directory: the Lucene index lives in {@code dataDir/index}, node state beside it
 * @param bindHost address the replication server listens on
 * @param port port the replication server listens on; 0 picks a free one
 * @param primaryGen primary generation (fencing epoch); -1 means "one above any this data directory
 *     has used", which is right for a standalone primary and wrong when an election assigns it
 * @param forcePrimaryVersion version to advance the index to, above every version ever published;
 *     -1 means "above the highest this data directory has published"
 * @param preCopyTimeout longest a merge waits for replicas to pre-copy its segment
 * @param preCopyKeepAlive a replica that reports no pre-copy progress for this long is skipped
 * @param closeTimeout longest {@code close()} waits for replicas still copying
 * @param maxFullFlushMergeWait Lucene's {@code maxFullFlushMergeWaitMillis}: how long a refresh waits
 *     for small merges of just-flushed segments. 0 by default: refresh latency is this library's
 *     point, and merged segments are pre-copied in the background anyway
 * @param transport transport settings, used when the primary creates its own transport
 * @param copyStateLease how long the primary keeps the copy-state (and so the files) of a replica
 *     whose connection dropped in the middle of a copy, so that the replica, reconnecting within it,
 *     resumes where it stopped instead of copying again from byte 0. 15 s by default (several
 *     reconnect attempts of a replica, short enough that a replica gone for good pins nothing for
 *     long); zero keeps nothing (a dropped copy starts over); at most 10 minutes
 * @param maxCopyStateLeases most copy-states kept under a lease at once (1 to 1024, 8 by default);
 *     past it the oldest lease is released
 * @param maxLeasedBytes most bytes kept on disk by leases only: the files of leased copy-states that
 *     the primary's current point no longer uses, measured when a lease starts (4 GiB by default); past
 *     it the oldest leases are released
 * @param peerSilence the failure detector of {@code close()}: a replica this primary has read nothing
 *     from for this long (no heartbeat, no request: cut off, or gone without its close arriving) is
 *     not waited for, since it copies nothing more; the wait for the others stays bounded by {@code
 *     closeTimeout}. Set it to the replicas' suspicion delay when they send heartbeats (what they
 *     wait before suspecting this primary); zero (the default) judges no replica by its silence and
 *     waits for every open connection's copy, as replicas without heartbeats may be silent while alive.
 *     A replica on a link too slow to carry its heartbeat within it (or this primary stalled that
 *     long) is judged cut off, as it would judge this primary: its copy is cut short and it copies
 *     again from the next primary, which costs bytes, never data
 * @param copyTree which replicas copy from the primary and which from a peer ({@link CopyTreeConfig})
 */
@Stable
public record PrimaryConfig(
    int nodeId,
    String cluster,
    String index,
    Path dataDir,
    String bindHost,
    int port,
    long primaryGen,
    long forcePrimaryVersion,
    Duration preCopyTimeout,
    Duration preCopyKeepAlive,
    Duration closeTimeout,
    Duration maxFullFlushMergeWait,
    TransportConfig transport,
    Duration copyStateLease,
    int maxCopyStateLeases,
    long maxLeasedBytes,
    Duration peerSilence,
    CopyTreeConfig copyTree) {

  /** Canonical constructor: validates; services build through {@link Builder}, which may gain fields. */
  @Internal
  public PrimaryConfig {
    Checks.inRange("nodeId", nodeId, 0, 65535);
    Checks.safeName("cluster", cluster);
    Checks.safeName("index", index);
    Checks.notNull("dataDir", dataDir);
    Checks.notBlank("bindHost", bindHost);
    Checks.inRange("port", port, 0, 65535);
    Checks.inRange("primaryGen", primaryGen, -1, Long.MAX_VALUE / 2);
    Checks.inRange("forcePrimaryVersion", forcePrimaryVersion, -1, Long.MAX_VALUE / 2);
    Checks.positive("preCopyTimeout", preCopyTimeout);
    Checks.atMost("preCopyKeepAlive", preCopyKeepAlive, preCopyTimeout);
    Checks.positive("closeTimeout", closeTimeout);
    Checks.notNull("maxFullFlushMergeWait", maxFullFlushMergeWait);
    if (maxFullFlushMergeWait.isNegative()) {
      throw new IllegalArgumentException("maxFullFlushMergeWait must not be negative");
    }
    Checks.notNull("transport", transport);
    Checks.notNull("copyStateLease", copyStateLease);
    if (copyStateLease.isNegative() || copyStateLease.compareTo(MAX_COPY_STATE_LEASE) > 0) {
      throw new IllegalArgumentException("copyStateLease must be in [0, " + MAX_COPY_STATE_LEASE + "], got " + copyStateLease);
    }
    Checks.inRange("maxCopyStateLeases", maxCopyStateLeases, 1, 1024);
    Checks.inRange("maxLeasedBytes", maxLeasedBytes, 0, Long.MAX_VALUE);
    Checks.notNull("peerSilence", peerSilence);
    if (peerSilence.isNegative()) {
      throw new IllegalArgumentException("peerSilence must not be negative, got " + peerSilence);
    }
    Checks.notNull("copyTree", copyTree);
  }

  /** Longest {@link #copyStateLease}: a lease pins files, and a replica gone for that long copies afresh anyway. */
  public static final Duration MAX_COPY_STATE_LEASE = Duration.ofMinutes(10);

  /** True when the primary keeps the copy-state of a replica that dropped mid-copy. */
  public boolean leasesCopyStates() {
    return !copyStateLease.isZero();
  }

  /** Where the Lucene index lives. */
  public Path indexPath() {
    return dataDir.resolve("index");
  }

  /** Where the node's durable generation/version facts live. */
  public Path statePath() {
    return dataDir.resolve("node.state");
  }

  /** A builder with every default; node id, cluster, index and data directory are set by the caller. */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a validated {@link PrimaryConfig}; only cluster, index and dataDir have no default. */
  public static final class Builder {
    private int nodeId;
    private String cluster;
    private String index;
    private Path dataDir;
    private String bindHost = "127.0.0.1";
    private int port;
    private long primaryGen = -1;
    private long forcePrimaryVersion = -1;
    private Duration preCopyTimeout = Duration.ofMinutes(5);
    private Duration preCopyKeepAlive = Duration.ofSeconds(10);
    private Duration closeTimeout = Duration.ofSeconds(10);
    private Duration maxFullFlushMergeWait = Duration.ZERO;
    private TransportConfig transport = TransportConfig.defaults();
    private Duration copyStateLease = Duration.ofSeconds(15);
    private int maxCopyStateLeases = 8;
    private long maxLeasedBytes = 4L << 30;
    private Duration peerSilence = Duration.ZERO;
    private CopyTreeConfig copyTree = CopyTreeConfig.defaults();

    /** Sets {@link PrimaryConfig#nodeId()}; default {@code 0}. */
    public Builder nodeId(int v) {
      nodeId = v;
      return this;
    }

    /** Sets {@link PrimaryConfig#cluster()}; no default. */
    public Builder cluster(String v) {
      cluster = v;
      return this;
    }

    /** Sets {@link PrimaryConfig#index()}; no default. */
    public Builder index(String v) {
      index = v;
      return this;
    }

    /** Sets {@link PrimaryConfig#dataDir()}; no default. */
    public Builder dataDir(Path v) {
      dataDir = v;
      return this;
    }

    /** Sets {@link PrimaryConfig#bindHost()}; default {@code "127.0.0.1"}. */
    public Builder bindHost(String v) {
      bindHost = v;
      return this;
    }

    /** Sets {@link PrimaryConfig#port()}; default {@code 0}. */
    public Builder port(int v) {
      port = v;
      return this;
    }

    /** Sets {@link PrimaryConfig#primaryGen()}; default {@code -1}. */
    public Builder primaryGen(long v) {
      primaryGen = v;
      return this;
    }

    /** Sets {@link PrimaryConfig#forcePrimaryVersion()}; default {@code -1}. */
    public Builder forcePrimaryVersion(long v) {
      forcePrimaryVersion = v;
      return this;
    }

    /** Sets {@link PrimaryConfig#preCopyTimeout()}; default {@code Duration.ofMinutes(5)}. */
    public Builder preCopyTimeout(Duration v) {
      preCopyTimeout = v;
      return this;
    }

    /** Sets {@link PrimaryConfig#preCopyKeepAlive()}; default {@code Duration.ofSeconds(10)}. */
    public Builder preCopyKeepAlive(Duration v) {
      preCopyKeepAlive = v;
      return this;
    }

    /** Sets {@link PrimaryConfig#closeTimeout()}; default {@code Duration.ofSeconds(10)}. */
    public Builder closeTimeout(Duration v) {
      closeTimeout = v;
      return this;
    }

    /** Sets {@link PrimaryConfig#maxFullFlushMergeWait()}; default {@code Duration.ZERO}. */
    public Builder maxFullFlushMergeWait(Duration v) {
      maxFullFlushMergeWait = v;
      return this;
    }

    /** Sets {@link PrimaryConfig#transport()}; default {@code TransportConfig.defaults()}. */
    public Builder transport(TransportConfig v) {
      transport = v;
      return this;
    }

    /** See {@link PrimaryConfig#copyStateLease()}; zero disables resuming across a dropped connection. */
    public Builder copyStateLease(Duration v) {
      copyStateLease = v;
      return this;
    }

    /** See {@link PrimaryConfig#maxCopyStateLeases()}. */
    public Builder maxCopyStateLeases(int v) {
      maxCopyStateLeases = v;
      return this;
    }

    /** See {@link PrimaryConfig#maxLeasedBytes()}. */
    public Builder maxLeasedBytes(long v) {
      maxLeasedBytes = v;
      return this;
    }

    /** See {@link PrimaryConfig#peerSilence()}; zero waits for every connected replica's copy. */
    public Builder peerSilence(Duration v) {
      peerSilence = v;
      return this;
    }

    /** See {@link PrimaryConfig#copyTree()}; {@link CopyTreeConfig#OFF}: every replica copies from the primary. */
    public Builder copyTree(CopyTreeConfig v) {
      copyTree = v;
      return this;
    }

    /**
     * The validated configuration; throws {@link IllegalArgumentException} naming the first bad or
     * missing field.
     */
    public PrimaryConfig build() {
      return new PrimaryConfig(nodeId, cluster, index, dataDir, bindHost, port, primaryGen, forcePrimaryVersion,
          preCopyTimeout, preCopyKeepAlive, closeTimeout, maxFullFlushMergeWait, transport, copyStateLease,
          maxCopyStateLeases, maxLeasedBytes, peerSilence, copyTree);
    }
  }
}

package io.nrtcluster.replica;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.Internal;
import io.nrtcluster.common.Stable;
import io.nrtcluster.transport.NodeAddress;
import io.nrtcluster.transport.TransportConfig;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Immutable settings of one {@link Replica}. Built with {@link #builder()}, which validates every
 * bound and names the offending field.
 *
 * @param nodeId this node's id, unique in the cluster (appears as {@code R<id>} in logs)
 * @param cluster cluster name; a primary of another cluster refuses this replica
 * @param index index (shard) name
 * @param dataDir node directory: the Lucene index lives in {@code dataDir/index}, node state beside it
 * @param primary where the primary listens; may be null when the address is supplied later
 * @param reconnectMin first delay before reconnecting to an unreachable primary
 * @param reconnectMax longest delay between reconnect attempts
 * @param maxFileRetries times one file is re-fetched after a checksum mismatch before the copy fails
 * @param corruptFileReportAfter checksum failures of the same file from the same primary (over any
 *     number of copies) after which the replica stops fetching it and reports it to the primary,
 *     which verifies its own copy
 * @param badFileBackoffMin how long the replica waits before fetching a reported file again from the
 *     same primary, after the first report; doubles (with jitter) with every further report
 * @param badFileBackoffMax longest such wait; also how long a replica waits after its primary found
 *     its own file corrupt (a new primary generation ends the wait at once)
 * @param prefetchFiles files of one copy requested ahead, so several are in flight at once
 * @param preCopyProgressInterval how often a running merge pre-copy tells the primary it is alive
 * @param closeTimeout longest {@code close()} waits for copy threads to stop
 * @param commitOnClose commit the searched point-in-time on a graceful close, so a restart copies
 *     only what changed meanwhile (a crashed replica restarts from its last explicit commit)
 * @param transport transport settings, used when the replica creates its own transport
 * @param storageFaults faults injected into the replica's index directory (disk full, I/O errors,
 *     failed fsyncs and renames); {@link StorageFaults#NONE} (the default) installs no fault point. A {@link
 *     StorageFaults#switchable()} instance is a switch shared with whoever turns the faults on and
 *     off while the replica runs: tests and chaos runs only
 * @param scrub pace of the background scrub that rereads every searched file (see {@link ScrubConfig})
 * @param copyResumeWindow how long a copy whose connection dropped waits for the link to come back
 *     to the same primary and resumes where it stopped (each partly copied file from its byte
 *     offset, finished temp files kept); past it, or with another primary, the copy starts over.
 *     15 s by default, the primary's default lease on such a copy; zero turns resuming off
 * @param supersedeAfter how long a copy of an NRT point runs before a newer point of the same primary
 *     may supersede it (Lucene's way: the newer copy takes over the files copied so far); until then
 *     the copy finishes and the newest point is copied next, so a long link never has every copy
 *     cut short. 1 s by default; zero supersedes at once, as Lucene does
 * @param peerStallTimeout how long a file fetched from a peer replica (the copy tree's parent the
 *     primary named) may send nothing before the copy gives up on the peer and fetches the file
 *     from the primary: the bound on how long a slow or hung parent delays a copy. 2 s by default
 * @param preCopyBytesPerSecond the most bytes per second a merge pre-copy (warming a merged segment
 *     before the primary installs it) copies on average, so that searches on this replica keep the
 *     CPU and disk while a large segment arrives; copies of NRT points are never paced (a refresh's
 *     lag does not wait for it). 0 (the default): as fast as the link and disk allow. The cost is a
 *     later install of the merged segment: a pre-copy that cannot finish within the primary's {@code
 *     preCopyTimeout} at this pace is abandoned by the primary, which installs the merge anyway, and
 *     the replica then copies the segment with the next NRT point, unpaced
 */
@Stable
public record ReplicaConfig(
    int nodeId,
    String cluster,
    String index,
    Path dataDir,
    NodeAddress primary,
    Duration reconnectMin,
    Duration reconnectMax,
    int maxFileRetries,
    int corruptFileReportAfter,
    Duration badFileBackoffMin,
    Duration badFileBackoffMax,
    int prefetchFiles,
    Duration preCopyProgressInterval,
    Duration closeTimeout,
    boolean commitOnClose,
    TransportConfig transport,
    StorageFaults storageFaults,
    ScrubConfig scrub,
    Duration copyResumeWindow,
    Duration supersedeAfter,
    Duration peerStallTimeout,
    long preCopyBytesPerSecond) {

  /** Canonical constructor: validates; services build through {@link Builder}, which may gain fields. */
  @Internal
  public ReplicaConfig {
    Checks.inRange("nodeId", nodeId, 0, 65535);
    Checks.safeName("cluster", cluster);
    Checks.safeName("index", index);
    Checks.notNull("dataDir", dataDir);
    Checks.positive("reconnectMin", reconnectMin);
    Checks.positive("reconnectMax", reconnectMax);
    if (reconnectMax.compareTo(reconnectMin) < 0) {
      throw new IllegalArgumentException("reconnectMax must be >= reconnectMin");
    }
    Checks.inRange("maxFileRetries", maxFileRetries, 0, 1000);
    Checks.inRange("corruptFileReportAfter", corruptFileReportAfter, 1, 1000);
    Checks.positive("badFileBackoffMin", badFileBackoffMin);
    Checks.positive("badFileBackoffMax", badFileBackoffMax);
    if (badFileBackoffMax.compareTo(badFileBackoffMin) < 0) {
      throw new IllegalArgumentException("badFileBackoffMax must be >= badFileBackoffMin");
    }
    Checks.inRange("prefetchFiles", prefetchFiles, 1, 64);
    Checks.positive("preCopyProgressInterval", preCopyProgressInterval);
    Checks.positive("closeTimeout", closeTimeout);
    Checks.notNull("transport", transport);
    Checks.notNull("storageFaults", storageFaults);
    Checks.notNull("scrub", scrub);
    Checks.notNull("copyResumeWindow", copyResumeWindow);
    if (copyResumeWindow.isNegative() || copyResumeWindow.compareTo(Duration.ofMinutes(10)) > 0) {
      throw new IllegalArgumentException("copyResumeWindow must be in [0, PT10M], got " + copyResumeWindow);
    }
    Checks.notNull("supersedeAfter", supersedeAfter);
    if (supersedeAfter.isNegative() || supersedeAfter.compareTo(Duration.ofMinutes(10)) > 0) {
      throw new IllegalArgumentException("supersedeAfter must be in [0, PT10M], got " + supersedeAfter);
    }
    Checks.positive("peerStallTimeout", peerStallTimeout);
    if (peerStallTimeout.compareTo(Duration.ofMinutes(10)) > 0) {
      throw new IllegalArgumentException("peerStallTimeout must be at most PT10M, got " + peerStallTimeout);
    }
    Checks.inRange("preCopyBytesPerSecond", preCopyBytesPerSecond, 0, MAX_PRE_COPY_BYTES_PER_SECOND);
  }

  /** Highest {@link #preCopyBytesPerSecond()}: 1 TiB/s, no limit in practice. */
  public static final long MAX_PRE_COPY_BYTES_PER_SECOND = 1L << 40;

  /** The Lucene index directory under {@link #dataDir()}. */
  public Path indexPath() {
    return dataDir.resolve("index");
  }

  /** The file under {@link #dataDir()} that keeps this node's durable generation and version record. */
  public Path statePath() {
    return dataDir.resolve("node.state");
  }

  /** A builder with every default; cluster, index, data directory and primary are set by the caller. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding this configuration's values, to change some of them. */
  public Builder toBuilder() {
    return new Builder().nodeId(nodeId).cluster(cluster).index(index).dataDir(dataDir).primary(primary)
        .reconnectMin(reconnectMin).reconnectMax(reconnectMax).maxFileRetries(maxFileRetries)
        .corruptFileReportAfter(corruptFileReportAfter).badFileBackoffMin(badFileBackoffMin)
        .badFileBackoffMax(badFileBackoffMax)
        .prefetchFiles(prefetchFiles).preCopyProgressInterval(preCopyProgressInterval)
        .closeTimeout(closeTimeout).commitOnClose(commitOnClose).transport(transport)
        .storageFaults(storageFaults).scrub(scrub).copyResumeWindow(copyResumeWindow).supersedeAfter(supersedeAfter)
        .peerStallTimeout(peerStallTimeout).preCopyBytesPerSecond(preCopyBytesPerSecond);
  }

  /** Default of {@link #supersedeAfter()}. */
  public static final Duration DEFAULT_SUPERSEDE_AFTER = Duration.ofSeconds(1);

  /** Default of {@link #corruptFileReportAfter()}. */
  public static final int DEFAULT_CORRUPT_FILE_REPORT_AFTER = 3;
  /** Default of {@link #badFileBackoffMin()}. */
  public static final Duration DEFAULT_BAD_FILE_BACKOFF_MIN = Duration.ofSeconds(5);
  /** Default of {@link #badFileBackoffMax()}. */
  public static final Duration DEFAULT_BAD_FILE_BACKOFF_MAX = Duration.ofMinutes(2);
  /** Default of {@link #copyResumeWindow()}. */
  public static final Duration DEFAULT_COPY_RESUME_WINDOW = Duration.ofSeconds(15);

  /** Builds a validated {@link ReplicaConfig}; only cluster, index and dataDir have no default. */
  public static final class Builder {
    private int nodeId = 1;
    private String cluster;
    private String index;
    private Path dataDir;
    private NodeAddress primary;
    private Duration reconnectMin = Duration.ofMillis(100);
    private Duration reconnectMax = Duration.ofSeconds(5);
    private int maxFileRetries = 10;
    private int corruptFileReportAfter = DEFAULT_CORRUPT_FILE_REPORT_AFTER;
    private Duration badFileBackoffMin = DEFAULT_BAD_FILE_BACKOFF_MIN;
    private Duration badFileBackoffMax = DEFAULT_BAD_FILE_BACKOFF_MAX;
    private int prefetchFiles = 4;
    private Duration preCopyProgressInterval = Duration.ofSeconds(1);
    private Duration closeTimeout = Duration.ofSeconds(10);
    private boolean commitOnClose = true;
    private TransportConfig transport = TransportConfig.defaults();
    private StorageFaults storageFaults = StorageFaults.NONE;
    private ScrubConfig scrub = ScrubConfig.defaults();
    private Duration copyResumeWindow = DEFAULT_COPY_RESUME_WINDOW;
    private Duration supersedeAfter = DEFAULT_SUPERSEDE_AFTER;
    private Duration peerStallTimeout = Duration.ofSeconds(2);
    private long preCopyBytesPerSecond;

    /** Sets {@link ReplicaConfig#nodeId()}; default {@code 1}. */
    public Builder nodeId(int v) {
      nodeId = v;
      return this;
    }

    /** Sets {@link ReplicaConfig#cluster()}; no default. */
    public Builder cluster(String v) {
      cluster = v;
      return this;
    }

    /** Sets {@link ReplicaConfig#index()}; no default. */
    public Builder index(String v) {
      index = v;
      return this;
    }

    /** Sets {@link ReplicaConfig#dataDir()}; no default. */
    public Builder dataDir(Path v) {
      dataDir = v;
      return this;
    }

    /** Sets {@link ReplicaConfig#primary()}; no default. */
    public Builder primary(NodeAddress v) {
      primary = v;
      return this;
    }

    /** Sets {@link ReplicaConfig#reconnectMin()}; default {@code Duration.ofMillis(100)}. */
    public Builder reconnectMin(Duration v) {
      reconnectMin = v;
      return this;
    }

    /** Sets {@link ReplicaConfig#reconnectMax()}; default {@code Duration.ofSeconds(5)}. */
    public Builder reconnectMax(Duration v) {
      reconnectMax = v;
      return this;
    }

    /** Sets {@link ReplicaConfig#maxFileRetries()}; default {@code 10}. */
    public Builder maxFileRetries(int v) {
      maxFileRetries = v;
      return this;
    }

    /** See {@link ReplicaConfig#corruptFileReportAfter()}. */
    public Builder corruptFileReportAfter(int v) {
      corruptFileReportAfter = v;
      return this;
    }

    /** See {@link ReplicaConfig#badFileBackoffMin()}. */
    public Builder badFileBackoffMin(Duration v) {
      badFileBackoffMin = v;
      return this;
    }

    /** See {@link ReplicaConfig#badFileBackoffMax()}. */
    public Builder badFileBackoffMax(Duration v) {
      badFileBackoffMax = v;
      return this;
    }

    /** Sets {@link ReplicaConfig#prefetchFiles()}; default {@code 4}. */
    public Builder prefetchFiles(int v) {
      prefetchFiles = v;
      return this;
    }

    /** Sets {@link ReplicaConfig#preCopyProgressInterval()}; default {@code Duration.ofSeconds(1)}. */
    public Builder preCopyProgressInterval(Duration v) {
      preCopyProgressInterval = v;
      return this;
    }

    /** Sets {@link ReplicaConfig#closeTimeout()}; default {@code Duration.ofSeconds(10)}. */
    public Builder closeTimeout(Duration v) {
      closeTimeout = v;
      return this;
    }

    /** Sets {@link ReplicaConfig#commitOnClose()}; default {@code true}. */
    public Builder commitOnClose(boolean v) {
      commitOnClose = v;
      return this;
    }

    /** Sets {@link ReplicaConfig#transport()}; default {@code TransportConfig.defaults()}. */
    public Builder transport(TransportConfig v) {
      transport = v;
      return this;
    }

    /** See {@link ReplicaConfig#storageFaults()}. */
    public Builder storageFaults(StorageFaults v) {
      storageFaults = v;
      return this;
    }

    /** See {@link ReplicaConfig#scrub()}. */
    public Builder scrub(ScrubConfig v) {
      scrub = v;
      return this;
    }

    /** See {@link ReplicaConfig#supersedeAfter()}; zero: a newer point supersedes a copy at once. */
    public Builder supersedeAfter(Duration v) {
      supersedeAfter = v;
      return this;
    }

    /** See {@link ReplicaConfig#preCopyBytesPerSecond()}; 0: unpaced. */
    public Builder preCopyBytesPerSecond(long v) {
      preCopyBytesPerSecond = v;
      return this;
    }

    /** See {@link ReplicaConfig#peerStallTimeout()}. */
    public Builder peerStallTimeout(Duration v) {
      peerStallTimeout = v;
      return this;
    }

    /** See {@link ReplicaConfig#copyResumeWindow()}; zero: a dropped copy always starts over. */
    public Builder copyResumeWindow(Duration v) {
      copyResumeWindow = v;
      return this;
    }

    /**
     * The validated configuration; throws {@link IllegalArgumentException} naming the first bad or
     * missing field.
     */
    public ReplicaConfig build() {
      return new ReplicaConfig(nodeId, cluster, index, dataDir, primary, reconnectMin, reconnectMax,
          maxFileRetries, corruptFileReportAfter, badFileBackoffMin, badFileBackoffMax, prefetchFiles, preCopyProgressInterval, closeTimeout, commitOnClose, transport, storageFaults, scrub,
          copyResumeWindow, supersedeAfter, peerStallTimeout, preCopyBytesPerSecond);
    }
  }
}

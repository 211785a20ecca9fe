package io.nrtcluster.node;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.Internal;
import io.nrtcluster.common.Stable;
import io.nrtcluster.election.ElectionConfig;
import io.nrtcluster.election.MemberMetadata;
import io.nrtcluster.election.ZooKeeperAuth;
import io.nrtcluster.transport.TransportConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * Settings of one process's {@link NrtHost}. Built with {@link #builder()}, which validates every
 * bound and names the offending field.
 *
 * @param nodeId this node's cluster-unique id
 * @param cluster cluster name (a namespace in ZooKeeper; peers of other clusters are refused)
 * @param dataDir node directory; each index lives in {@code dataDir/<index>}
 * @param zooKeeper ZooKeeper connect string of a real ensemble, or {@value #EMBEDDED} to start a
 *     single in-process server for a one-host trial (its data in {@code dataDir/zookeeper})
 * @param embeddedZooKeeperPort client port of the embedded server (0: a free one)
 * @param bindHost address the replication server listens on and advertises
 * @param port replication server port (0: a free one)
 * @param sessionTimeout ZooKeeper session timeout: how long a dead node keeps its roles
 * @param connectionTimeout how long to wait for ZooKeeper when starting
 * @param electionSettle wait, after the primary vanished, for members to report before electing
 * @param automaticFailover whether a new primary is elected by itself when there is none; when
 *     false an operator must force-promote one ({@code bin/nrt promote --force})
 * @param transport transport settings, TLS for the replication port included ({@code
 *     TransportConfig.tls}; plaintext when absent)
 * @param zooKeeperAuth ZooKeeper digest credentials; every znode the cluster creates is then
 *     readable and writable by them only, and a tree still open to anyone is refused at start. Null
 *     (the default): no authentication, open ACLs
 * @param memberMetadata application metadata every index of this host publishes with its
 *     membership (for example the address of the application's own API), readable by every node
 *     in {@code ClusterNode.members()}; bounded by {@link MemberMetadata}; changeable later with
 *     {@link NrtHost#setMemberMetadata}. Empty by default
 * @param replicaTuning how this host's replicas (and, at the same pace, its primaries) scrub their
 *     files, and how its replicas report bad primary files and resume dropped copies ({@link
 *     ReplicaTuning#defaults()} by default)
 * @param minFreeDiskBytes the free-space floor of the data directory: while its usable space is
 *     below this many bytes, a primary refuses writes ({@code InsufficientStorageException}) before
 *     Lucene runs the disk full in a flush or merge; refreshes, commits and searches go on, and
 *     writes resume by themselves above it. 0 turns the check off. Default {@value
 *     #DEFAULT_MIN_FREE_DISK_BYTES} (128 MiB): room for several flushes of Lucene's default 16 MiB
 *     buffer and the small merges that follow them; a merge of larger segments can still need more
 *     (a writer that then fails steps its node down)
 * @param freeSpaceCheckInterval how long a measurement of the free space is reused (a write never
 *     waits for more than one {@code statfs}); positive, at most 10 s, default 500 ms
 * @param suspicionDelay failover on the replicas' evidence: how long a replica hears nothing from
 *     the primary it follows (connection closed and not re-established, heartbeats unanswered)
 *     before it records a suspicion of that primary's generation in ZooKeeper; a strict majority of
 *     the live non-primary members suspecting the same generation elects a new primary at once,
 *     without waiting for the old one's {@link #sessionTimeout} ({@link
 *     ElectionConfig#suspicionDelay()}). {@link Duration#ZERO} turns it off (failover then waits
 *     for the session to expire, as {@link #automaticFailover} false turns off every automatic
 *     failover); otherwise 20 ms to 10 min, and above {@link #heartbeatInterval}; default 500 ms.
 *     Use the same value on every node
 * @param heartbeatInterval how often a replica pings the primary it follows (while suspicion is on):
 *     the detector's resolution; positive, at most 10 s, default 100 ms
 * @param rebalance whether this host hands its own primaries off to hosts that hold fewer, until
 *     every live host holds within one primary of the others (graceful hand-offs, as {@code bin/nrt
 *     promote}: no acknowledged write is lost); only to a caught-up replica, never while an index it
 *     hosts has no primary, a suspicion, a hand-off under way, nor within {@link
 *     #rebalanceQuietPeriod} of the last failover it saw. On by default; keep the setting the same
 *     on every host. Off, the elections still prefer the host with fewest primaries among equally
 *     up-to-date candidates
 * @param maxConcurrentHandoffs how many of this host's primaries the rebalancing hands off at once
 *     (each stops that index's writes until its target searches the final version); 1 to 64,
 *     default 2
 * @param rebalanceQuietPeriod how long after the last failover this host saw (an index without a
 *     primary and no hand-off, a suspicion, a host gone) the rebalancing waits before it moves
 *     anything; positive, at most 1 h, default 10 s
 * @param threads the sizes of the host's shared thread pools, which every index's background work
 *     runs on ({@link HostThreads#defaults()} by default: a few threads when idle, whatever the
 *     number of indexes)
 * @param inSyncTimeout how long a replica of the index's in-sync set may lack a version its primary
 *     published before the primary removes it from the set (and so from the candidates of the next
 *     election); a replicated acknowledgement waits at most this long (plus the ZooKeeper write) for a
 *     slow replica. Positive, below {@link #sessionTimeout}, default 1 s: a replica that lags by
 *     more is not worth a write's wait, and a primary must settle the set well before its own
 *     session could expire
 */
@Stable
public record HostConfig(
    int nodeId,
    String cluster,
    Path dataDir,
    String zooKeeper,
    int embeddedZooKeeperPort,
    String bindHost,
    int port,
    Duration sessionTimeout,
    Duration connectionTimeout,
    Duration electionSettle,
    boolean automaticFailover,
    TransportConfig transport,
    ZooKeeperAuth zooKeeperAuth,
    Map<String, String> memberMetadata,
    ReplicaTuning replicaTuning,
    long minFreeDiskBytes,
    Duration freeSpaceCheckInterval,
    Duration suspicionDelay,
    Duration heartbeatInterval,
    boolean rebalance,
    int maxConcurrentHandoffs,
    Duration rebalanceQuietPeriod,
    HostThreads threads,
    Duration inSyncTimeout) {

  /** The {@link #zooKeeper} value that starts an in-process server. */
  public static final String EMBEDDED = "embedded";
  /** Default {@link #maxConcurrentHandoffs}. */
  public static final int DEFAULT_MAX_CONCURRENT_HANDOFFS = 2;
  /** Default {@link #rebalanceQuietPeriod}. */
  public static final Duration DEFAULT_REBALANCE_QUIET_PERIOD = Duration.ofSeconds(10);
  /** Default {@link #minFreeDiskBytes}: 128 MiB. */
  public static final long DEFAULT_MIN_FREE_DISK_BYTES = 128L << 20;

  /** Canonical constructor: validates; services build through {@link Builder}, which may gain fields. */
  @Internal
  public HostConfig {
    Checks.inRange("nodeId", nodeId, 0, 65535);
    Checks.safeName("cluster", cluster);
    Checks.notNull("dataDir", dataDir);
    Checks.notBlank("zooKeeper", zooKeeper);
    Checks.inRange("embeddedZooKeeperPort", embeddedZooKeeperPort, 0, 65535);
    Checks.notBlank("bindHost", bindHost);
    Checks.inRange("port", port, 0, 65535);
    Checks.positive("sessionTimeout", sessionTimeout);
    Checks.positive("connectionTimeout", connectionTimeout);
    Checks.positive("electionSettle", electionSettle);
    Checks.notNull("transport", transport);
    memberMetadata = MemberMetadata.checked("memberMetadata", memberMetadata);
    Checks.notNull("replicaTuning", replicaTuning);
    Checks.inRange("minFreeDiskBytes", minFreeDiskBytes, 0, Long.MAX_VALUE);
    Checks.positive("freeSpaceCheckInterval", freeSpaceCheckInterval);
    Checks.atMost("freeSpaceCheckInterval", freeSpaceCheckInterval, Duration.ofSeconds(10));
    ElectionConfig.checkSuspicionDelay("suspicionDelay", suspicionDelay);
    Checks.atMost("heartbeatInterval", heartbeatInterval, Duration.ofSeconds(10));
    if (!suspicionDelay.isZero() && heartbeatInterval.compareTo(suspicionDelay) >= 0) {
      throw new IllegalArgumentException("heartbeatInterval must be below suspicionDelay (" + suspicionDelay + "), got "
          + heartbeatInterval);
    }
    Checks.inRange("maxConcurrentHandoffs", maxConcurrentHandoffs, 1, 64);
    Checks.positive("rebalanceQuietPeriod", rebalanceQuietPeriod);
    Checks.atMost("rebalanceQuietPeriod", rebalanceQuietPeriod, Duration.ofHours(1));
    Checks.notNull("threads", threads);
    Checks.positive("inSyncTimeout", inSyncTimeout);
    if (inSyncTimeout.compareTo(sessionTimeout) >= 0) {
      throw new IllegalArgumentException("inSyncTimeout must be below sessionTimeout (" + sessionTimeout + "), got "
          + inSyncTimeout);
    }
  }

  /** Default {@link #inSyncTimeout}. */
  public static final Duration DEFAULT_IN_SYNC_TIMEOUT = Duration.ofSeconds(1);

  /** Whether replicas detect a failed primary themselves ({@link #suspicionDelay} not zero, failover automatic). */
  public boolean failoverOnSuspicion() {
    return automaticFailover && !suspicionDelay.isZero();
  }

  /**
   * Whether the host runs its own in-process ZooKeeper server ({@code zooKeeper} is {@link #EMBEDDED})
   * instead of joining an ensemble.
   */
  public boolean embeddedZooKeeper() {
    return EMBEDDED.equals(zooKeeper);
  }

  /** A builder with every default; {@link Builder#build()} names the first bad or missing field. */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a validated {@link HostConfig}. */
  public static final class Builder {
    private int nodeId;
    private String cluster;
    private Path dataDir;
    private String zooKeeper = EMBEDDED;
    private int embeddedZooKeeperPort;
    private String bindHost = "127.0.0.1";
    private int port;
    private Duration sessionTimeout = Duration.ofSeconds(10);
    private Duration connectionTimeout = Duration.ofSeconds(10);
    private Duration electionSettle = Duration.ofMillis(500);
    private TransportConfig transport = TransportConfig.defaults();
    private boolean automaticFailover = true;
    private ZooKeeperAuth zooKeeperAuth;
    private Map<String, String> memberMetadata = Map.of();
    private long minFreeDiskBytes = DEFAULT_MIN_FREE_DISK_BYTES;
    private Duration freeSpaceCheckInterval = Duration.ofMillis(500);
    private Duration suspicionDelay = ElectionConfig.DEFAULT_SUSPICION_DELAY;
    private Duration heartbeatInterval = Duration.ofMillis(100);
    private boolean rebalance = true;
    private int maxConcurrentHandoffs = DEFAULT_MAX_CONCURRENT_HANDOFFS;
    private Duration rebalanceQuietPeriod = DEFAULT_REBALANCE_QUIET_PERIOD;
    private Duration inSyncTimeout = DEFAULT_IN_SYNC_TIMEOUT;

    /** See {@link HostConfig#rebalance()}: false keeps this host's primaries where the elections put them. */
    public Builder rebalance(boolean v) {
      rebalance = v;
      return this;
    }

    /** See {@link HostConfig#maxConcurrentHandoffs()}. */
    public Builder maxConcurrentHandoffs(int v) {
      maxConcurrentHandoffs = v;
      return this;
    }

    /** See {@link HostConfig#rebalanceQuietPeriod()}. */
    public Builder rebalanceQuietPeriod(Duration v) {
      rebalanceQuietPeriod = v;
      return this;
    }

    private HostThreads threads = HostThreads.defaults();

    /** See {@link HostConfig#threads()}. */
    public Builder threads(HostThreads v) {
      threads = v;
      return this;
    }

    /** See {@link HostConfig#suspicionDelay()}; {@link Duration#ZERO} turns failover on suspicion off. */
    public Builder suspicionDelay(Duration v) {
      suspicionDelay = v;
      return this;
    }

    /** See {@link HostConfig#heartbeatInterval()}. */
    public Builder heartbeatInterval(Duration v) {
      heartbeatInterval = v;
      return this;
    }

    /** The data directory's free-space floor in bytes (0: no check); see {@link HostConfig#minFreeDiskBytes}. */
    public Builder minFreeDiskBytes(long v) {
      minFreeDiskBytes = v;
      return this;
    }

    /** How long a free-space measurement is reused; see {@link HostConfig#freeSpaceCheckInterval}. */
    public Builder freeSpaceCheckInterval(Duration v) {
      freeSpaceCheckInterval = v;
      return this;
    }

    /** Application metadata published with this host's membership of every index (see {@link HostConfig#memberMetadata}). */
    private ReplicaTuning replicaTuning = ReplicaTuning.defaults();

    /** Sets {@link HostConfig#memberMetadata()}; default {@code Map.of()}. */
    public Builder memberMetadata(Map<String, String> v) {
      memberMetadata = v;
      return this;
    }

    /** ZooKeeper credentials (null: none, open ACLs). */
    public Builder zooKeeperAuth(ZooKeeperAuth v) {
      zooKeeperAuth = v;
      return this;
    }

    /** Sets {@link HostConfig#automaticFailover()}; default {@code true}. */
    public Builder automaticFailover(boolean v) {
      automaticFailover = v;
      return this;
    }

    /** Sets {@link HostConfig#nodeId()}; default {@code 0}. */
    public Builder nodeId(int v) {
      nodeId = v;
      return this;
    }

    /** Sets {@link HostConfig#cluster()}; no default. */
    public Builder cluster(String v) {
      cluster = v;
      return this;
    }

    /** Sets {@link HostConfig#dataDir()}; no default. */
    public Builder dataDir(Path v) {
      dataDir = v;
      return this;
    }

    /** Sets {@link HostConfig#zooKeeper()}; default {@code EMBEDDED}. */
    public Builder zooKeeper(String v) {
      zooKeeper = v;
      return this;
    }

    /** Sets {@link HostConfig#embeddedZooKeeperPort()}; default {@code 0}. */
    public Builder embeddedZooKeeperPort(int v) {
      embeddedZooKeeperPort = v;
      return this;
    }

    /** Sets {@link HostConfig#bindHost()}; default {@code "127.0.0.1"}. */
    public Builder bindHost(String v) {
      bindHost = v;
      return this;
    }

    /** Sets {@link HostConfig#port()}; default {@code 0}. */
    public Builder port(int v) {
      port = v;
      return this;
    }

    /** Sets {@link HostConfig#sessionTimeout()}; default {@code Duration.ofSeconds(10)}. */
    public Builder sessionTimeout(Duration v) {
      sessionTimeout = v;
      return this;
    }

    /** Sets {@link HostConfig#connectionTimeout()}; default {@code Duration.ofSeconds(10)}. */
    public Builder connectionTimeout(Duration v) {
      connectionTimeout = v;
      return this;
    }

    /** Sets {@link HostConfig#electionSettle()}; default {@code Duration.ofMillis(500)}. */
    public Builder electionSettle(Duration v) {
      electionSettle = v;
      return this;
    }

    /** Sets {@link HostConfig#transport()}; default {@code TransportConfig.defaults()}. */
    public Builder transport(TransportConfig v) {
      transport = v;
      return this;
    }

    /** See {@link HostConfig#inSyncTimeout()}. */
    public Builder inSyncTimeout(Duration v) {
      inSyncTimeout = v;
      return this;
    }

    /** See {@link HostConfig#replicaTuning()}. */
    public Builder replicaTuning(ReplicaTuning v) {
      replicaTuning = v;
      return this;
    }

    /** The validated configuration; throws {@link IllegalArgumentException} naming the first bad field. */
    public HostConfig build() {
      return new HostConfig(nodeId, cluster, dataDir, zooKeeper, embeddedZooKeeperPort, bindHost, port,
          sessionTimeout, connectionTimeout, electionSettle, automaticFailover, transport, zooKeeperAuth, memberMetadata,
          replicaTuning, minFreeDiskBytes, freeSpaceCheckInterval, suspicionDelay, heartbeatInterval, rebalance,
          maxConcurrentHandoffs, rebalanceQuietPeriod, threads, inSyncTimeout);
    }
  }
}

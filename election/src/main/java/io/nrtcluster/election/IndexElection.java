package io.nrtcluster.election;

import io.nrtcluster.common.ConnectionException;
import io.nrtcluster.common.Durations;
import io.nrtcluster.common.ExecutorSource;
import io.nrtcluster.common.Internal;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.NotPrimaryException;
import io.nrtcluster.common.NotPublishedException;
import io.nrtcluster.common.NrtClusterException;
import java.io.Closeable;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.slf4j.LoggerFactory;

/**
 * Membership, election and fencing of one index on one node, over a shared Curator client.
 *
 * <p>Membership: an ephemeral member znode (Curator {@code PersistentNode}, recreated after a
 * session loss) carries this node's {@link MemberInfo}. Election: when no primary znode exists, after
 * {@code settleTime} the best-ranked live member ({@link MemberInfo#rank}) increments the epoch with
 * a versioned write and creates the ephemeral primary znode in the same transaction, so at most one
 * node wins each epoch. Fencing: a primary treats SUSPENDED as loss and stops at once ({@link
 * ElectionListener#fenced()}); every version it publishes is written in a transaction that checks its
 * primary znode still exists, so a primary whose session ended cannot publish; on reconnect it
 * resumes only if the primary znode is still owned by its own session, else it steps down.
 *
 * <p>Failover on the replicas' evidence: a replica that cannot reach the primary it follows records
 * a suspicion ({@link #suspect}); when a strict majority of the live non-primary members suspect the
 * current generation, the best-ranked other member claims the next epoch, deleting the suspected
 * primary's znode in the same versioned transaction, without waiting for its session to expire.
 * The deposed primary, if alive, sees its znode taken and steps down; its publications already
 * fail, since the epoch znode moved. {@link ElectionConfig#suspicionDelay()} zero (or manual
 * failover) turns this off.
 *
 * <p>Placement ({@link #usePlacement}): among equally up-to-date candidates, the one whose host
 * holds fewer primaries wins, as the hosts' records say ({@link HostDirectory}); the safety rule
 * above is unchanged ({@link ElectionDecision#choose}).
 *
 * <p>Connection-state handling per recipe: the member node re-registers by itself after a new
 * session; the cache re-syncs after reconnect and triggers a re-evaluation; the primary znode is
 * deliberately not a recipe node, so it is never recreated behind the election's back.
 */
@Internal
public final class IndexElection implements Closeable {
  private final CuratorFramework client;
  private final ElectionConfig config;
  private final ZkLayout layout;
  private final NodeLog log;
  private final FencedVersionWriter publisher;
  private final InSyncStore inSync;
  private final MemberRegistration membership;
  private final Elector elector;
  private final ElectionWatch watch;
  /** Orders metadata changes with progress updates, so an older metadata map never overwrites a newer one. */
  private final Object memberLock = new Object();
  private volatile Map<String, String> metadata;
  private volatile Supplier<Standing> standing = () -> Standing.CANDIDATE;
  private volatile PlacementSource placement = PlacementSource.NONE;
  private final Runnable onPlacementChange;

  /** An election over the shared {@code zk} session, its steps on a thread of its own. */
  public IndexElection(ZooKeeperSession zk, ElectionConfig config, MemberInfo initial, ElectionListener listener) {
    this(zk.curator(), config, initial, listener, ExecutorSource.ownThreads());
  }

  /**
   * An election over the shared {@code zk} session whose steps run on a serial executor from {@code
   * executors} (a host's election pool: {@link ExecutorSource.Pool#ELECTION}).
   */
  public IndexElection(ZooKeeperSession zk, ElectionConfig config, MemberInfo initial, ElectionListener listener,
      ExecutorSource executors) {
    this(zk.curator(), config, initial, listener, executors);
  }

  public IndexElection(CuratorFramework client, ElectionConfig config, MemberInfo initial, ElectionListener listener) {
    this(client, config, initial, listener, ExecutorSource.ownThreads());
  }

  private IndexElection(CuratorFramework client, ElectionConfig config, MemberInfo initial, ElectionListener listener,
      ExecutorSource executors) {
    this.client = client;
    this.config = config;
    this.layout = config.layout();
    this.log = new NodeLog(LoggerFactory.getLogger(IndexElection.class), "N" + config.nodeId() + "/" + layout.index(), this::epoch);
    this.publisher = new FencedVersionWriter(client, layout);
    this.inSync = new InSyncStore(client, layout, () -> {});
    this.metadata = config.memberMetadata();
    this.membership = new MemberRegistration(client, config, initial.withMetadata(metadata), log);
    this.elector = new Elector(client, config, listener, log, executors);
    this.watch = new ElectionWatch(client, layout, () -> elector.scheduleEvaluate(0), elector::onConnectionState);
    this.onPlacementChange = elector::onPlacementChanged;
  }

  /**
   * Weighs placement in this election from {@link #start} on: among equally up-to-date candidates
   * the host holding fewer primaries is preferred ({@link ElectionDecision#choose}), and an election
   * waiting for a better candidate looks again whenever {@code source} changes. Call before {@link
   * #start}; without it the best-ranked member wins, as before placement existed.
   */
  public void usePlacement(PlacementSource source) {
    placement = source == null ? PlacementSource.NONE : source;
    elector.usePlacement(placement);
  }

  /**
   * Where this node's standing ({@link Standing}: candidate or not, its last step-down) is read each
   * time the member record is written; its owner (the node's index state machine) calls {@link
   * #giveUp} and {@link #standingChanged} after changing it. Call before {@link #start}; without it
   * the node is always a candidate.
   */
  public void standingFrom(Supplier<Standing> source) {
    standing = source;
  }

  /**
   * What this node's ZooKeeper cache last saw of the index (primary, members, suspicions, hand-offs
   * under way), without a round trip: the rebalancing's input ({@link RebalancePlan}).
   */
  public RebalancePlan.IndexView cachedView() {
    return watch.cachedView();
  }

  /**
   * Registers this node and starts electing/following. Fails with {@link ConnectionException} when
   * ZooKeeper cannot be reached within the configured timeout.
   */
  public void start() throws NrtClusterException {
    long timeout = config.zkTimeout().toMillis();
    try {
      if (!client.blockUntilConnected((int) timeout, TimeUnit.MILLISECONDS)) {
        throw new ConnectionException("ZooKeeper at " + client.getZookeeperClient().getCurrentConnectionString()
            + " unreachable within " + Durations.format(config.zkTimeout()));
      }
      membership.register();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConnectionException("interrupted while joining the cluster", e);
    } catch (NrtClusterException e) {
      closeQuietly();
      throw e;
    } catch (KeeperException.NoAuthException e) {
      closeQuietly();
      throw ZooKeeperAccess.denied(e);
    } catch (Exception e) {
      closeQuietly();
      throw new ConnectionException("joining the cluster in ZooKeeper failed: " + e, e);
    }
    watch.start();
    placement.addListener(onPlacementChange);
    log.info("joined {} as member {} at {}", layout.indexPath(), config.nodeId(), config.address());
    elector.scheduleEvaluate(0);
  }

  /**
   * What this node's session holds of the index's epochs, as the election last decided: the
   * election's own fact, which the owner reads to decide its index's state (leading or fenced). It is
   * not the node's role: the member record carries the role its owner reports ({@link #update}).
   */
  public EpochHold hold() {
    return elector.hold();
  }

  /** The primary this node follows, or (when it holds the epoch) itself; empty when none is known. */
  public Optional<PrimaryInfo> primary() {
    if (elector.hold() == EpochHold.HELD) {
      return Optional.of(new PrimaryInfo(config.nodeId(), config.address(), elector.epoch()));
    }
    return Optional.ofNullable(elector.followed());
  }

  /** The epoch this node holds as primary, or -1. */
  public long epoch() {
    return elector.epoch();
  }

  /**
   * Publishes this node's latest progress in its member znode, with the role {@code info} gives (its
   * owner's: the index's state, never this election's {@link #hold}); the standing and application
   * metadata are filled in here. Does not wait for ZooKeeper.
   */
  public void update(MemberInfo info) {
    synchronized (memberLock) {
      membership.update(withOwnFacts(info), elector.isClosed());
    }
  }

  /**
   * This node can no longer lead (its writer is lost) and its standing ({@link #standingFrom})
   * already says so, with {@code why}: publishes its member record, resigns its epoch if it holds
   * one (so the best other member takes over at once, as after a crash) and steps down to a replica
   * ({@link ElectionListener#stepDown()}). Returns at once; the resignation and the step-down run on
   * the election thread. The node stays out of elections until its standing makes it a candidate
   * again ({@link #standingChanged}).
   */
  public void giveUp(StepDown why) {
    synchronized (memberLock) {
      // Written before the resignation (one session's operations apply in order): the others' next
      // election already reads this node as no candidate (said here too, not only by the owner).
      membership.update(withOwnFacts(membership.current()).withStanding(false, why), elector.isClosed());
    }
    log.warn("giving epoch {} up: {} ({})", elector.epoch(), why.reason(), why.message());
    elector.giveUp(why.reason() + ": " + why.message());
  }

  /**
   * This node's standing changed (it may be elected again): publishes its member record and, when it
   * is a candidate, looks at the election again.
   */
  public void standingChanged() {
    boolean candidate;
    synchronized (memberLock) {
      MemberInfo m = withOwnFacts(membership.current());
      candidate = m.candidate();
      membership.update(m, elector.isClosed());
    }
    if (candidate) {
      log.info("a candidate in elections again");
      elector.scheduleEvaluate(0);
    }
  }

  /** {@code info} with the metadata and the standing as its owner says now; its role stays the owner's. */
  private MemberInfo withOwnFacts(MemberInfo info) {
    Standing now = standing.get();
    return info.withMetadata(metadata).withStanding(now.candidate(), now.lastStepDown());
  }

  /**
   * Replaces the application metadata of this node's member record ({@link MemberInfo#metadata()})
   * and publishes it at once; an {@link IllegalArgumentException} (nothing changes) when it is out
   * of the bounds of {@link MemberMetadata}. Does not wait for ZooKeeper; a record not written now
   * is written with the next progress update, or recreated with it after a session loss.
   */
  public void setMemberMetadata(Map<String, String> newMetadata) {
    Map<String, String> checked = MemberMetadata.checked("memberMetadata", newMetadata);
    synchronized (memberLock) {
      if (checked.equals(metadata)) {
        return;
      }
      metadata = checked;
      membership.update(withOwnFacts(membership.current()), elector.isClosed());
    }
  }

  /** The application metadata of this node's member record. */
  public Map<String, String> memberMetadata() {
    return metadata;
  }

  /** Every live member as ZooKeeper has them now. */
  public List<MemberInfo> members() throws NrtClusterException {
    return membership.read();
  }

  /**
   * Every live member as this node's ZooKeeper cache last saw them, sorted by node id: no round trip
   * to ZooKeeper (cheap enough for metrics), but possibly a moment behind it; empty before {@link
   * #start} and after close. Malformed entries are skipped.
   */
  public List<MemberInfo> cachedMembers() {
    return watch.cachedMembers();
  }

  /**
   * Records {@code version} as published, only while this node still holds its epoch in ZooKeeper
   * (checked in the same transaction). Call before telling replicas about the version; any failure
   * means it must not be published: {@link NotPrimaryException} when this node is not (or no longer)
   * the primary, {@link NotPublishedException} when ZooKeeper could not record it
   * (the node may still lead; a later attempt may succeed).
   */
  public void publishVersion(long version) throws NrtClusterException {
    if (elector.hold() != EpochHold.HELD) {
      throw notPrimary("publishing version " + version);
    }
    long epoch = elector.epoch();
    publisher.publish(version, epoch, () -> notPrimary("publishing version " + version + ": epoch " + epoch
        + " is no longer ours"));
  }

  /**
   * The index's in-sync set as ZooKeeper holds it now, with its data version (the record null when
   * no primary wrote one yet). Fails with {@link NotPublishedException} when ZooKeeper cannot be read.
   */
  public InSyncRecord.Stored readInSync() throws NrtClusterException {
    try {
      return inSync.read();
    } catch (KeeperException.NoAuthException e) {
      throw ZooKeeperAccess.denied(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new NotPublishedException("interrupted reading the in-sync set", e);
    } catch (Exception e) {
      throw new NotPublishedException("reading the in-sync set from ZooKeeper failed: " + e, e);
    }
  }

  /**
   * Replaces the in-sync set, read at data version {@code expected}, by {@code next}, only while this
   * node holds its epoch ({@code next.epoch()}, checked in the same transaction as the write); returns
   * what was stored. {@link NotPrimaryException} when the epoch is not (or no longer) this node's:
   * nothing changed; {@link NotPublishedException} when ZooKeeper could not write it, or the set
   * changed since it was read (read again).
   */
  public InSyncRecord.Stored replaceInSync(InSyncRecord next, int expected) throws NrtClusterException {
    long epoch = elector.epoch();
    if (elector.hold() != EpochHold.HELD || epoch != next.epoch() || next.primary() != config.nodeId()) {
      throw notPrimary("changing the in-sync set of epoch " + next.epoch());
    }
    return inSync.replace(next, expected, epoch, () -> notPrimary("changing the in-sync set: epoch " + epoch
        + " is no longer ours"));
  }

  private NotPrimaryException notPrimary(String what) {
    PrimaryInfo p = elector.followed();
    return new NotPrimaryException("node " + config.nodeId() + " is not the primary of " + layout.index() + ": " + what,
        p == null ? null : p.address());
  }

  /**
   * Records (without waiting: the election thread writes it) that this node, following {@code
   * primary}, has not reached it for longer than {@link ElectionConfig#suspicionDelay()}; {@code
   * reason} is logged with it ("suspicion recorded: ..."). When a strict majority of the live
   * non-primary members suspect the same generation, the best-ranked other member claims the next
   * epoch and deletes that primary's znode in the same transaction. Nothing happens when {@link
   * ElectionConfig#failoverOnSuspicion()} is off or the suspicion is already recorded.
   */
  public void suspect(PrimaryInfo primary, String reason) {
    if (config.failoverOnSuspicion() && !elector.isClosed()) {
      elector.suspicions().suspect(primary, reason);
    }
  }

  /**
   * Withdraws this node's suspicion, if it holds one (without waiting; logged as "suspicion
   * withdrawn: ..."): it reached its primary again, or follows another one.
   */
  public void withdrawSuspicion(String reason) {
    elector.suspicions().withdraw(reason);
  }

  /** The primary generation this node's recorded suspicion names, or -1 when it holds none. */
  public long suspectedEpoch() {
    return elector.suspicions().recorded();
  }

  /** This election's settings. */
  public ElectionConfig config() {
    return config;
  }

  /**
   * Gives up the primary role on purpose (graceful shutdown or hand-off): deletes the primary znode if
   * this session owns it, so the others elect at once instead of after a session timeout.
   */
  public void resign() {
    elector.resign();
  }

  /**
   * Hands the primary role to {@code successor} (an operator's promotion): designates it as the only
   * node allowed to claim the next epoch, resigns, and steps down to a replica. The caller has made
   * sure the successor searches this primary's final version.
   */
  public void handOff(int successor) throws NrtClusterException {
    elector.handOff(successor);
  }

  /** Makes {@code nodeId} the only node that may claim the next epoch (until it does). */
  public void designate(int nodeId) throws Exception {
    elector.designate(nodeId);
  }

  /** Leaves the cluster: resigns if primary, removes the member znode, stops watching. */
  @Override
  public void close() {
    if (elector.isClosed()) {
      return;
    }
    elector.leave(true);
    // The session may outlive this index (other indexes share it): an ephemeral suspicion would too.
    elector.suspicions().deleteNow();
    closeQuietly();
  }

  /** Stops participating without resigning or deleting anything (the node is crashing). */
  public void abandon() {
    elector.leave(false);
    closeQuietly();
  }

  private void closeQuietly() {
    // Closed first, so nothing that fires while the watches detach schedules an election step.
    elector.markClosed();
    placement.removeListener(onPlacementChange);
    watch.close();
    membership.close();
    elector.shutdown();
  }
}

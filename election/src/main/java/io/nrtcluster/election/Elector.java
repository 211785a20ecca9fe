package io.nrtcluster.election;

import io.nrtcluster.common.ConnectionException;
import io.nrtcluster.common.ExecutorSource;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.NrtClusterException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * The election decision of one index on one node, and what it makes this node's session hold
 * ({@link EpochHold}): follow the primary znode's owner, claim the next epoch when none exists, fence
 * on connection trouble, step down when the epoch is lost, resign or hand off on request. It tells
 * its {@link ElectionListener} (the index's state machine) of each change; it keeps no role of the
 * node's.
 *
 * <p>Guarantees: every election step, resignation and hand-off runs on one serial executor ({@code
 * nrt-elect-<node>-<index>}: one at a time, in order, on a thread of the host's election pool or
 * of its own; see {@link ExecutorSource.Pool#ELECTION}), so the {@link ElectionListener} hears of
 * promotions, follows and step-downs one at a time, in order (fencing alone is immediate, on Curator's connection thread);
 * at most one evaluation is pending and a sooner request replaces a later one; a failed step is
 * retried after the retry interval; an epoch is claimed only through {@link EpochClaim}, so at most
 * one node wins it, and only the designated successor claims while it is alive; a primary is fenced
 * as soon as its connection is suspended and unfenced only when its own session still owns the
 * primary znode. Nothing is decided once closed.
 *
 * <p>On the replicas' evidence ({@link ElectionConfig#failoverOnSuspicion()}): while another node's
 * primary znode exists, each step also reads the suspicions; when {@link
 * ElectionDecision#onSuspectedPrimary} says this node deposes the primary, it claims the next epoch
 * deleting that primary znode at the version it read ({@link EpochClaim#claim(List, PrimaryInfo, int)}), logging
 * "electing on suspicion". A primary that finds its znode taken while its own session lives logs
 * "deposed" and steps down; nothing here ever re-creates a primary znode except a claim.
 *
 * <p>Placement: with a {@link PlacementSource} ({@link #usePlacement}), both decisions weigh how many
 * primaries each host holds ({@link ElectionDecision#choose}); an election that waits for a better
 * candidate looks again as soon as the placement changes, so a failover does not pay the retry
 * interval when counts moved under it.
 */
final class Elector {
  private final CuratorFramework client;
  private final ElectionConfig config;
  private final ZkLayout layout;
  private final ElectionListener listener;
  private final NodeLog log;
  private final EpochClaim epochs;
  private final ScheduledExecutorService executor;
  private final Suspicions suspicions;
  private final InSyncStore inSyncStore;
  /** Orders the changes of {@link #hold}: the connection thread fences while the election thread decides. */
  private final Object holdLock = new Object();
  private volatile EpochHold hold = EpochHold.NONE;
  private volatile PrimaryInfo followed;
  private volatile long myEpoch = -1;
  private long noPrimarySince = -1;
  private ScheduledFuture<?> scheduled;
  private volatile boolean closed;
  private volatile PlacementSource placement = PlacementSource.NONE;
  /** The last step decided to wait for a better candidate (it may be this node once the placement changes). */
  private volatile boolean waitingForCandidate;
  /** The placement the current step decided on (election thread only). */
  private Placement placementRead;

  Elector(CuratorFramework client, ElectionConfig config, ElectionListener listener, NodeLog log, ExecutorSource executors) {
    this.client = client;
    this.config = config;
    this.layout = config.layout();
    this.listener = listener;
    this.log = log;
    this.epochs = new EpochClaim(client, config, log);
    this.executor = executors.serial(ExecutorSource.Pool.ELECTION, "nrt-elect-" + config.nodeId() + "-" + layout.index());
    this.suspicions = new Suspicions(client, layout, config.nodeId(), log, this::executeIfOpen);
    this.inSyncStore = new InSyncStore(client, layout, () -> {});
  }

  /** Weighs placement from now on (before the election starts). */
  void usePlacement(PlacementSource source) {
    placement = source;
  }

  /** The placement changed: an election waiting for a better candidate looks again at once. */
  void onPlacementChanged() {
    if (waitingForCandidate) {
      scheduleEvaluate(0);
    }
  }

  /** Host id to its primaries other than this index; null without placement (the best-ranked member wins). */
  private Map<Integer, Integer> primaryCounts() {
    PlacementSource p = placement;
    if (p == PlacementSource.NONE) {
      return null;
    }
    Placement now = p.current();
    placementRead = now;
    return now.countsExcluding(layout.index());
  }

  /**
   * Waits for a better candidate: again in {@code delayMillis}, or at once when the placement
   * changed since this step read it (a change after the flag is set schedules by itself).
   */
  private void waitForCandidate(long delayMillis) {
    waitingForCandidate = true;
    PlacementSource p = placement;
    scheduleEvaluate(p != PlacementSource.NONE && p.current() != placementRead ? 0 : delayMillis);
  }

  /** This node's suspicion of its primary, written on the election thread. */
  Suspicions suspicions() {
    return suspicions;
  }

  private void executeIfOpen(Runnable task) {
    if (closed) {
      return;
    }
    try {
      executor.execute(task);
    } catch (RejectedExecutionException e) {
      // Shut down meanwhile: nothing more is written.
    }
  }

  /** What this node's session holds of the index's epochs, as this election last decided. */
  EpochHold hold() {
    return hold;
  }

  /** The primary this node follows, or null (also while it is the primary itself). */
  PrimaryInfo followed() {
    return followed;
  }

  /** The epoch this node holds as primary, or -1. */
  long epoch() {
    return myEpoch;
  }

  boolean isClosed() {
    return closed;
  }

  /** No more decisions from now on; pending and later evaluations do nothing. */
  void markClosed() {
    closed = true;
  }

  /**
   * Leaves the election: marks it closed (first, so the resignation's own znode event does not start
   * an election step), resigns when {@code resign} and this node holds the epoch, and moves to {@link
   * EpochHold#LEFT}; leaving again does nothing more.
   */
  void leave(boolean resign) {
    boolean wasPrimary = hold == EpochHold.HELD;
    closed = true;
    if (resign && wasPrimary) {
      resign();
    }
    synchronized (holdLock) {
      // Leaving twice (a host halt abandons, then the node's own halt again) is the same leave.
      if (hold != EpochHold.LEFT) {
        hold = hold.moveTo(EpochHold.LEFT);
      }
    }
  }

  /** Stops the election thread; call after everything that may schedule on it is detached. */
  void shutdown() {
    executor.shutdownNow();
  }

  /** Gives up the primary role on purpose, waiting up to the ZooKeeper timeout for it. */
  void resign() {
    executor.execute(this::resignNow);
    try {
      executor.submit(() -> {}).get(config.zkTimeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      log.warn("resigning did not finish in time: {}", e.toString());
    }
  }

  private void resignNow() {
    try {
      Stat st = client.checkExists().forPath(layout.primary());
      if (st != null && st.getEphemeralOwner() == sessionId()) {
        client.delete().withVersion(st.getVersion()).forPath(layout.primary());
        log.info("resigned as primary of epoch {}", myEpoch);
      }
    } catch (Exception e) {
      log.warn("resigning failed: {}", e.toString());
    }
  }

  /**
   * Gives the epoch up because this node can no longer lead (its writer is lost), without waiting:
   * on the election thread, resigns (so the others elect at once, as after a crash) and steps down.
   * The caller has already made this node a non-candidate, so the next election passes it over.
   */
  void giveUp(String why) {
    if (closed) {
      return;
    }
    executor.execute(() -> {
      try {
        resignNow();
        if (hold.claimed()) {
          stepDown(why);
        }
      } catch (Exception e) {
        log.warn("giving the epoch up failed: {}", e.toString());
      }
      scheduleEvaluate(0);
    });
  }

  /** Designates {@code successor}, resigns and steps down, on the election thread. */
  void handOff(int successor) throws NrtClusterException {
    try {
      executor.submit(() -> {
        designate(successor);
        resignNow();
        if (hold.claimed()) {
          stepDown("handed off to node " + successor);
        }
        scheduleEvaluate(0);
        return null;
      }).get(config.zkTimeout().toMillis() * 2, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConnectionException("interrupted handing off", e);
    } catch (Exception e) {
      throw new ConnectionException("handing off to node " + successor + " failed: " + e, e);
    }
  }

  /** Makes {@code nodeId} the only node that may claim the next epoch (until it does). */
  void designate(int nodeId) throws Exception {
    epochs.designate(nodeId);
  }

  /** A primary treats a suspended connection as lost: fenced at once; a reconnect re-evaluates. */
  void onConnectionState(CuratorFramework c, ConnectionState state) {
    switch (state) {
      case SUSPENDED, LOST -> {
        boolean fenced = false;
        synchronized (holdLock) {
          if (hold == EpochHold.HELD) {
            hold = hold.moveTo(EpochHold.SUSPENDED);
            // Queued under the lock (fenced() only submits to the index's event queue, it never
            // waits), so a reconnect that finds the epoch ours again queues its unfence after it.
            listener.fenced();
            fenced = true;
          }
        }
        if (fenced) {
          log.warn("ZooKeeper connection {}: fenced, no more writes until the epoch is confirmed", state);
        }
      }
      case CONNECTED, RECONNECTED -> {
        suspicions.resync();
        scheduleEvaluate(0);
      }
      default -> {}
    }
  }

  /** Evaluates in {@code delayMillis} at the latest (sooner if one is pending sooner). */
  void scheduleEvaluate(long delayMillis) {
    if (closed) {
      return;
    }
    synchronized (this) {
      if (scheduled != null && !scheduled.isDone() && scheduled.getDelay(TimeUnit.MILLISECONDS) <= delayMillis) {
        return;
      }
      if (scheduled != null) {
        scheduled.cancel(false);
      }
      scheduled = executor.schedule(this::evaluateSafely, delayMillis, TimeUnit.MILLISECONDS);
    }
  }

  private void evaluateSafely() {
    synchronized (this) {
      // This run is under way: later requests must schedule a new one.
      scheduled = null;
    }
    try {
      evaluate();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      if (!closed) {
        log.warn("election step failed; retrying: {}", e.toString());
        scheduleEvaluate(config.retryInterval().toMillis());
      }
    }
  }

  /** Reads ZooKeeper, asks {@link ElectionDecision} what to do, and does it. */
  private void evaluate() throws Exception {
    if (closed || client.getState() != CuratorFrameworkState.STARTED || !client.getZookeeperClient().isConnected()) {
      return;
    }
    waitingForCandidate = false;
    Stat stat = new Stat();
    PrimaryInfo current;
    try {
      current = PrimaryInfo.decode(client.getData().storingStatIn(stat).forPath(layout.primary()));
    } catch (KeeperException.NoNodeException e) {
      current = null;
    }
    if (current != null) {
      noPrimarySince = -1;
    }
    boolean ours = current != null && current.nodeId() == config.nodeId() && stat.getEphemeralOwner() == sessionId();
    ElectionDecision.Decision d = ElectionDecision.onPrimaryZnode(config.nodeId(), hold, current, ours, followed);
    if (d.stepDown()) {
      if (current != null) {
        // Another node holds the epoch: the replicas' suspicion deposed us while this session lived,
        // or our session expired and the others elected.
        log.warn("deposed: node {} holds epoch {} (ours was {})", current.nodeId(), current.primaryGen(), myEpoch);
      }
      stepDown(current != null ? "node " + current.nodeId() + " holds epoch " + current.primaryGen()
          : "the primary znode of epoch " + myEpoch + " is gone");
    }
    switch (d.action()) {
      case NOTHING -> { }
      case UNFENCE -> {
        synchronized (holdLock) {
          hold = hold.moveTo(EpochHold.HELD);
        }
        log.info("ZooKeeper contact back and epoch {} still ours: writes resume", myEpoch);
        listener.unfenced();
      }
      case REMOVE_STALE_OWN_ZNODE -> {
        // A primary znode with our id from another session is our own earlier incarnation: dead.
        log.info("removing the primary znode of an earlier session of this node (epoch {})", current.primaryGen());
        try {
          client.delete().withVersion(stat.getVersion()).forPath(layout.primary());
        } catch (KeeperException.NoNodeException | KeeperException.BadVersionException e) {
          // Gone already.
        }
        scheduleEvaluate(0);
      }
      case FOLLOW -> {
        followed = current;
        synchronized (holdLock) {
          hold = hold.moveTo(EpochHold.NONE);
        }
        log.info("following primary {} at {} (epoch {})", current.nodeId(), current.address(), current.primaryGen());
        try {
          listener.followPrimary(current);
        } catch (Exception e) {
          // Not following yet (e.g. the replica could not open on a full disk): the retry must try
          // again, not find the primary already followed and do nothing.
          followed = null;
          throw e;
        }
      }
      case ELECT -> elect();
      default -> throw new IllegalStateException("unexpected first-stage decision " + d);
    }
    if (current != null && current.nodeId() != config.nodeId() && config.failoverOnSuspicion()) {
      considerSuspicions(current, stat.getVersion());
    }
  }

  /**
   * Another node's primary znode (at data version {@code version}) exists: depose it if a majority
   * of the members suspect it and this node ranks best ({@link ElectionDecision#onSuspectedPrimary}).
   */
  private void considerSuspicions(PrimaryInfo current, int version) throws Exception {
    Map<Integer, Long> suspected = Suspicions.read(client, layout);
    if (!suspected.containsValue(current.primaryGen())) {
      return;
    }
    InSyncRecord.Stored inSync = inSyncStore.read();
    List<MemberInfo> members = readMembers();
    ElectionDecision.Decision d = ElectionDecision.onSuspectedPrimary(config.nodeId(), current, epochs.designatedSuccessor(),
        members, suspected, config.automatic(), config.retryInterval().toMillis(), primaryCounts(), layout.index(),
        inSync.record());
    switch (d.action()) {
      case CLAIM_DEPOSING -> {
        long count = suspected.values().stream().filter(g -> g == current.primaryGen()).count();
        log.warn("electing on suspicion: {} member(s) suspect primary {} of epoch {}; claiming the next epoch without "
            + "waiting for its session to expire", count, current.nodeId(), current.primaryGen());
        claim(members, current, version, inSync.zkVersion());
      }
      case WAIT_FOR_BETTER_CANDIDATE -> {
        log.debug("a majority suspects primary {} of epoch {}; a better-ranked member claims", current.nodeId(),
            current.primaryGen());
        waitForCandidate(d.delayMillis());
      }
      default -> { }
    }
  }

  /** No primary znode: claim or wait, as {@link ElectionDecision#withoutPrimary} decides. */
  private void elect() throws Exception {
    followed = null;
    long now = System.nanoTime();
    if (noPrimarySince < 0) {
      noPrimarySince = now;
      log.info("no primary; electing in {}", config.settleTime());
    }
    long waited = (now - noPrimarySince) / 1_000_000;
    long settle = config.settleTime().toMillis();
    Integer successor = epochs.designatedSuccessor();
    boolean needsMembers = ElectionDecision.needsMembers(successor, config.automatic(), waited, settle);
    // Read before the members: the claim checks it is unchanged, so a primary that changed the set
    // after this read (it may have acknowledged what a dropped member lacks) makes the claim fail.
    InSyncRecord.Stored inSync = needsMembers ? inSyncStore.read() : null;
    List<MemberInfo> members = needsMembers ? readMembers() : List.of();
    ElectionDecision.Decision d = ElectionDecision.withoutPrimary(config.nodeId(), successor, members, config.automatic(),
        waited, settle, config.retryInterval().toMillis(), primaryCounts(), layout.index(),
        inSync == null ? null : inSync.record());
    if (d.successorDead()) {
      log.warn("designated successor {} is not a live member; electing normally", successor);
    }
    if (d.action() == ElectionDecision.Action.CLAIM) {
      claim(members, null, -1, inSync.zkVersion());
    } else if (d.action() == ElectionDecision.Action.WAIT_FOR_BETTER_CANDIDATE) {
      waitForCandidate(d.delayMillis());
    } else {
      scheduleEvaluate(d.delayMillis());
    }
  }

  /**
   * Claims; {@code deposedVersion} not negative: deleting the suspected primary's znode at that
   * version; only while the in-sync set is still at data version {@code inSyncVersion}, the one the
   * decision read.
   */
  private void claim(List<MemberInfo> members, PrimaryInfo deposed, int deposedVersion, int inSyncVersion) throws Exception {
    EpochClaim.Won won = epochs.claim(members, deposed, deposedVersion, inSyncVersion);
    if (won == null) {
      scheduleEvaluate(0);
      return;
    }
    long gen = won.gen();
    long forceVersion = won.forceVersion();
    myEpoch = gen;
    followed = null;
    synchronized (holdLock) {
      hold = hold.moveTo(EpochHold.HELD);
    }
    log.info("won epoch {}; becoming primary above version {}", gen, forceVersion - 1);
    try {
      listener.becomePrimary(gen, forceVersion);
    } catch (Exception e) {
      log.error("could not become primary; giving epoch {} up", gen, e);
      resignNow();
      synchronized (holdLock) {
        hold = hold.moveTo(EpochHold.NONE);
      }
      myEpoch = -1;
      scheduleEvaluate(config.retryInterval().toMillis());
    }
  }

  private void stepDown(String why) throws Exception {
    log.warn("stepping down as primary: {}", why);
    synchronized (holdLock) {
      hold = hold.moveTo(EpochHold.NONE);
    }
    myEpoch = -1;
    listener.stepDown();
  }

  private List<MemberInfo> readMembers() throws Exception {
    return ClusterView.members(client, layout);
  }

  private long sessionId() throws Exception {
    return client.getZookeeperClient().getZooKeeper().getSessionId();
  }
}

package io.nrtcluster.node;

import io.nrtcluster.common.ExecutorSource;
import io.nrtcluster.common.NodeClosedException;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.election.ElectionListener;
import io.nrtcluster.election.EpochHold;
import io.nrtcluster.election.IndexElection;
import io.nrtcluster.election.PrimaryInfo;
import io.nrtcluster.election.Role;
import io.nrtcluster.primary.Primary;
import io.nrtcluster.replica.Replica;
import io.nrtcluster.transport.NodeAddress;
import java.io.IOException;
import java.util.function.ObjLongConsumer;
import java.util.function.Supplier;

/**
 * Turns the election's decisions, an operator's hand-off and closing into events of the index's
 * {@link IndexStateMachine}, and opens and closes the {@link Primary} or {@link Replica} each state
 * needs on the data directory.
 *
 * <p>Guarantees: every switch runs on the state machine's event thread, one at a time and in order,
 * so at most one of primary and replica is open; the election thread waits for promotions, follows
 * and step-downs (a failed promotion gives the epoch up), while fencing and unfencing are queued
 * without blocking ZooKeeper's thread; a hand-off in progress is never ended by a reconnect: only
 * the hand-off decides, when it ends, whether writes resume; a node that steps down closes its
 * primary (dropping what was never replicated) and reopens a replica of the last followed primary.
 * Role-change notifications run after the switch, on the election's thread.
 */
final class RoleSwitch implements ElectionListener {
  private final NrtHost host;
  private final IndexSettings settings;
  private final RoleConfigs configs;
  private final NodeLog log;
  private final Supplier<IndexMetrics> metrics;
  private final ObjLongConsumer<Role> afterSwitch;
  private final IndexStateMachine machine;
  private volatile IndexElection election;

  /**
   * @param metrics the node's metrics; a supplier because they are registered after this is built
   *     (their gauges read the node, which reads this)
   * @param afterSwitch told of each role change (role, generation or -1) after the switch
   */
  RoleSwitch(NrtHost host, IndexSettings settings, NodeLog log, Supplier<IndexMetrics> metrics, ObjLongConsumer<Role> afterSwitch) {
    this.host = host;
    this.settings = settings;
    this.configs = new RoleConfigs(host.config(), settings, host.config().dataDir().resolve(settings.name()));
    this.log = log;
    this.metrics = metrics;
    this.afterSwitch = afterSwitch;
    this.machine = new IndexStateMachine(host.executors().serial(ExecutorSource.Pool.EVENTS,
        "nrt-index-" + host.nodeId() + "-" + settings.name()), log);
  }

  IndexStateMachine machine() {
    return machine;
  }

  /** Opens the replica a node starts as, before it knows any primary. */
  void openFirstReplica() throws IOException {
    machine.call("open the local index", () -> {
      Replica r = openReplica(null);
      machine.transition(s -> s.replicating(r, null), "local index open");
      return null;
    });
  }

  /**
   * The election this listens to; set before it starts, since the election is built with this as
   * its listener.
   */
  void attach(IndexElection election) {
    this.election = election;
  }

  /** The election, or null before {@link #attach}. */
  IndexElection election() {
    return election;
  }

  private Replica openReplica(NodeAddress primaryAddress) throws IOException {
    Replica r = Replica.open(configs.replica(host.nodeId(), primaryAddress), host.transport(),
        metrics.get().replicaObserver(), host.executors());
    if (host.config().failoverOnSuspicion()) {
      // The failure detector's input (PrimarySuspicion): pings keep the last contact fresh.
      r.startHeartbeat(host.config().heartbeatInterval());
    }
    return r;
  }

  @Override
  public void becomePrimary(long primaryGen, long forceVersion) throws IOException {
    // The election holds the epoch from now on: the host's record says so before the index opens
    // its writer, so the other elections running now weigh it (placement).
    host.leadershipChanged();
    machine.call("become primary", () -> {
      IndexSnapshot before = requireOpen(machine.snapshot());
      machine.transition(s -> s.promoting(primaryGen), "won epoch " + primaryGen);
      Primary p = null;
      try {
        Replica r = before.replica();
        if (r != null) {
          // The writer opens this node's last commit: make it the point-in-time it searches now.
          try {
            r.commit();
          } finally {
            r.closeWithoutCommit();
          }
        }
        p = Primary.open(configs.primary(host.nodeId(), primaryGen, forceVersion), settings.writerConfig().get(), host.transport(), host.executors());
        p.setObserver(metrics.get().primaryObserver());
        IndexElection e = election;
        p.setPublishGate(e::publishVersion);
        e.publishVersion(p.version());
        Primary opened = p;
        // A fence that arrived while promoting left the state alone: decide here, after the election did.
        IndexState end = e.hold() == EpochHold.HELD ? IndexState.LEADING : IndexState.FENCED;
        IndexSnapshot.Bridge bridge = machine.snapshot().bridge();
        machine.transition(s -> s.leading(end, opened), "epoch " + primaryGen + " published");
        release(bridge);
        log.info("primary of epoch {} at version {} (replay from {})", primaryGen, p.version(), p.replayPosition());
        return null;
      } catch (IOException | RuntimeException e) {
        // Left open, this primary would hold the index's write lock and every later election of
        // this node would fail on it; back to a replica, as a step-down does.
        abandonPromotion(p, before.followed(), e);
        throw e;
      }
    });
    afterSwitch.accept(Role.PRIMARY, primaryGen);
  }

  /** A promotion that failed: its primary closed (rolled back to its last commit), a replica again. */
  private void abandonPromotion(Primary p, PrimaryInfo followed, Exception cause) {
    if (p != null) {
      try {
        p.close();
      } catch (IOException | RuntimeException e) {
        cause.addSuppressed(e);
      }
    }
    try {
      Replica r = openReplica(address(followed));
      machine.transition(s -> s.replicating(r, followed), "promotion failed");
    } catch (IOException | RuntimeException e) {
      cause.addSuppressed(e);
    }
    log.warn("could not take the primary's epoch ({}); closed the primary and rejoined as a replica", cause.toString());
  }

  @Override
  public void followPrimary(PrimaryInfo info) throws IOException {
    NodeAddress address = NodeAddress.parse(info.address());
    machine.call("follow " + info.nodeId(), () -> {
      IndexSnapshot s = requireOpen(machine.snapshot());
      Replica r = s.replica();
      if (r == null) {
        r = openReplica(address);
      } else {
        r.setPrimary(address);
      }
      Replica following = r;
      machine.transition(x -> x.replicating(following, info), "following node " + info.nodeId() + " of epoch " + info.primaryGen());
      return null;
    });
    afterSwitch.accept(Role.REPLICA, info.primaryGen());
  }

  /** Queued: writes stop as soon as the events before it ran (none run long while leading). */
  @Override
  public void fenced() {
    machine.submit("fence", () -> {
      if (machine.state() == IndexState.LEADING) {
        machine.moveTo(IndexState.FENCED, "ZooKeeper contact lost");
      }
      return null;
    });
  }

  /**
   * Queued after any fence: resumes only a fenced primary whose election still says it holds the
   * epoch; a hand-off or promotion in progress decides by itself when it ends.
   */
  @Override
  public void unfenced() {
    machine.submit("unfence", () -> {
      IndexElection e = election;
      IndexSnapshot s = machine.snapshot();
      if (s.state() == IndexState.FENCED && e != null && e.hold() == EpochHold.HELD && !writerLost(s.primary())) {
        machine.moveTo(IndexState.LEADING, "epoch confirmed after reconnect");
      }
      return null;
    });
  }

  static boolean writerLost(Primary p) {
    return p != null && p.writer().getTragicException() != null;
  }

  @Override
  public void stepDown() throws IOException {
    boolean stepped = machine.call("step down", () -> {
      IndexSnapshot s = machine.snapshot();
      if (!s.state().holdsPrimary()) {
        return false;
      }
      // The replica opens the last commit, older than what this node searched: the last published
      // point keeps serving until the replica searches a newer one (never back in time).
      IndexSnapshot.Bridge bridge = bridgeOf(s.primary());
      IndexSnapshot.Bridge previous = s.bridge();
      machine.transition(x -> x.withoutRoles(IndexState.DEMOTING).withBridge(bridge), "the epoch is lost");
      release(previous);
      // Rolls back to the last commit: whatever was never replicated is dropped here; the new
      // primary's point-in-time replaces it.
      closeSteppingDown(s.primary());
      Replica r = openReplica(null);
      machine.transition(x -> x.replicating(r, null), "stepped down");
      if (bridge != null) {
        r.addVersionListener(version -> machine.submit("drop the bridge", () -> dropBridge(version)));
        if (r.stats().lastCopyCompletedMillis() > 0) {
          // A copy finished before the listener was there.
          dropBridge(r.searchingVersion());
        }
      }
      return true;
    });
    if (stepped) {
      log.warn("stepped down; rejoined as a replica");
      afterSwitch.accept(Role.REPLICA, -1);
    }
  }

  /**
   * A lost writer closed itself already (releasing the write lock), so its primary failing to close
   * must not keep the node from rejoining as a replica; any other failure stands.
   */
  private void closeSteppingDown(Primary p) throws IOException {
    try {
      p.close();
    } catch (IOException | RuntimeException e) {
      if (!writerLost(p)) {
        throw e;
      }
      log.warn("closing the primary whose writer is lost: {}", e.toString());
    }
  }

  /**
   * Stops acknowledging writes for a hand-off and returns the primary, once no admitted write is in
   * flight; null when this node is not a leading primary.
   */
  Primary beginHandoff(int target) throws IOException {
    return machine.call("hand-off start", () -> {
      IndexSnapshot s = machine.snapshot();
      if (s.state() != IndexState.LEADING) {
        return null;
      }
      machine.moveTo(IndexState.HANDING_OFF, "hand-off to node " + target);
      return s.primary();
    });
  }

  /**
   * A hand-off did not happen: writes resume if the election still says this node holds its epoch
   * (fenced otherwise, until it does). Nothing changes when the hand-off ended otherwise already (a
   * step-down, a close).
   */
  void abortHandoff(String why) throws IOException {
    machine.call("hand-off abort", () -> {
      if (machine.state() == IndexState.HANDING_OFF) {
        IndexElection e = election;
        machine.moveTo(e != null && e.hold() == EpochHold.HELD ? IndexState.LEADING : IndexState.FENCED, "hand-off failed: " + why);
      }
      return null;
    });
  }

  /** Refuses writes and switches from now on: the node is leaving (idempotent). */
  void beginClose() {
    try {
      machine.call("close", () -> {
        IndexState st = machine.state();
        if (st != IndexState.CLOSING && st != IndexState.CLOSED) {
          machine.moveTo(IndexState.CLOSING, "closing");
        }
        return null;
      });
    } catch (IOException | RuntimeException e) {
      log.warn("closing: {}", e.toString());
    }
  }

  /**
   * Closes whichever role is open, on the event thread; a replica closes without committing unless
   * {@code graceful} (a halt must leave the files as a crash would).
   */
  void closeRoles(boolean graceful) throws IOException {
    try {
      machine.call("close roles", () -> {
        IndexSnapshot s = machine.snapshot();
        if (s.state() == IndexState.CLOSED) {
          return null;
        }
        machine.transition(x -> x.withoutRoles(IndexState.CLOSED).withBridge(null), "closed");
        release(s.bridge());
        Primary p = s.primary();
        Replica r = s.replica();
        try {
          if (p != null) {
            p.close();
          }
        } finally {
          if (r != null) {
            if (graceful) {
              r.close();
            } else {
              r.closeWithoutCommit();
            }
          }
        }
        return null;
      });
    } finally {
      machine.shutdown(host.config().connectionTimeout().toMillis());
    }
  }

  /** The published searcher of {@code p} with a reference of its own, or null if there is none. */
  private IndexSnapshot.Bridge bridgeOf(Primary p) {
    try {
      return new IndexSnapshot.Bridge(p.acquireSearcher(), p.version());
    } catch (IOException | RuntimeException e) {
      log.warn("cannot keep the last published searcher across the step-down: {}", e.toString());
      return null;
    }
  }

  /** On the event thread: the replica searches {@code version}; drop the bridge once it is as new. */
  private Void dropBridge(long version) throws IOException {
    IndexSnapshot now = machine.snapshot();
    IndexSnapshot.Bridge b = now.bridge();
    // The copied point must be the one searched: a replica keeps a reopened commit whose version
    // number is above the point it copied, and that commit may hold unpublished writes.
    boolean searched = now.replica() != null && now.replica().searchingVersion() == version
        && now.followed() != null && now.replica().installedPrimaryGen() == now.followed().primaryGen();
    if (b != null && searched && version >= b.version() && machine.state() == IndexState.REPLICATING) {
      machine.transition(x -> x.withBridge(null), "the replica searches version " + version);
      release(b);
    }
    return null;
  }

  /**
   * Periodic: drops the bridge once the replica searches a point of the primary it follows, also
   * when it got there without an NRT copy (a resync syncs the new primary's point while it opens,
   * and no version listener hears of it). A point of the followed primary's generation can only
   * have been copied from it, never be this node's own reopened commit: the generation compared is
   * that of the copy-state the searched point was installed from, which a copy moves only once it is
   * searched (the replica's primary generation moves when the first copy from a new primary starts,
   * and for that copy's length it searched the reopened commit, with writes nobody published).
   */
  void dropBridgeOnceFollowing() {
    IndexSnapshot s = machine.snapshot();
    if (s.bridge() == null || !followsWithItsGeneration(s)) {
      return;
    }
    machine.submit("drop the bridge after a sync", () -> {
      IndexSnapshot now = machine.snapshot();
      IndexSnapshot.Bridge b = now.bridge();
      if (b != null && followsWithItsGeneration(now)) {
        machine.transition(x -> x.withBridge(null), "the replica searches the followed primary's version "
            + now.replica().searchingVersion());
        release(b);
      }
      return null;
    });
  }

  private static boolean followsWithItsGeneration(IndexSnapshot s) {
    Replica r = s.replica();
    return s.state() == IndexState.REPLICATING && r != null && s.followed() != null
        && r.installedPrimaryGen() == s.followed().primaryGen() && r.searchingVersion() >= s.bridge().version();
  }

  private void release(IndexSnapshot.Bridge b) {
    if (b != null) {
      try {
        b.searcher().getIndexReader().decRef();
      } catch (IOException | RuntimeException e) {
        log.warn("releasing the step-down's searcher: {}", e.toString());
      }
    }
  }

  private IndexSnapshot requireOpen(IndexSnapshot s) throws NodeClosedException {
    if (s.state() == IndexState.CLOSING || s.state() == IndexState.CLOSED) {
      throw new NodeClosedException("node " + host.nodeId() + " closed index " + settings.name());
    }
    return s;
  }

  private static NodeAddress address(PrimaryInfo info) {
    return info == null ? null : NodeAddress.parse(info.address());
  }

  // Readers: one snapshot each, never a lock.

  IndexSnapshot snapshot() {
    return machine.snapshot();
  }

  /** The role operators see. */
  Role role() {
    return machine.snapshot().role();
  }

  boolean isClosed() {
    IndexState s = machine.state();
    return s == IndexState.CLOSING || s == IndexState.CLOSED;
  }

  /** Leading, with a writer that is not lost (a lost one is fenced a moment later). */
  boolean isWritablePrimary() {
    IndexSnapshot s = machine.snapshot();
    return s.state().admitsWrites() && !writerLost(s.primary());
  }

  Primary primary() {
    return machine.snapshot().primary();
  }

  Replica replica() {
    return machine.snapshot().replica();
  }

  /** Version searched now, -1 with no open role. */
  long searchingVersion() {
    IndexSnapshot s = machine.snapshot();
    if (s.primary() != null) {
      return s.primary().version();
    }
    return s.replica() == null ? -1 : s.replica().searchingVersion();
  }

  /** Generation led (primary) or followed (replica), -1 when unknown. */
  long primaryGen() {
    IndexSnapshot s = machine.snapshot();
    if (s.primary() != null) {
      return s.primary().primaryGen();
    }
    return s.replica() == null ? s.generation() : s.replica().primaryGen();
  }

  /** The application source position of the newest point-in-time held; null if none was recorded. */
  String replayPosition() throws IOException {
    IndexSnapshot s = machine.snapshot();
    if (s.primary() != null) {
      return s.primary().replayPosition();
    }
    if (s.replica() == null) {
      throw new NodeClosedException("node " + host.nodeId() + " has no open index " + settings.name() + " (" + s.state() + ")");
    }
    return s.replica().replayPosition();
  }

  /** The primary's address as this node knows it (itself when primary), or null. */
  String primaryAddress() {
    IndexSnapshot s = machine.snapshot();
    if (s.state().holdsPrimary() || s.state() == IndexState.PROMOTING) {
      return host.address().toString();
    }
    PrimaryInfo f = s.followed();
    return f == null ? null : f.address();
  }
}

package io.nrtcluster.node;

import io.nrtcluster.common.NodeClosedException;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.NotPrimaryException;
import io.nrtcluster.election.ElectionListener;
import io.nrtcluster.election.IndexElection;
import io.nrtcluster.election.PrimaryInfo;
import io.nrtcluster.election.Role;
import io.nrtcluster.primary.Primary;
import io.nrtcluster.primary.PrimaryConfig;
import io.nrtcluster.replica.Replica;
import io.nrtcluster.replica.ReplicaConfig;
import io.nrtcluster.transport.NodeAddress;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.ObjLongConsumer;
import java.util.function.Supplier;

/**
 * The role state of one index on one node and the election's listener that switches it: which of a
 * {@link Primary} or a {@link Replica} is open on the data directory, whose primary is followed, and
 * whether writes are accepted.
 *
 * <p>Guarantees: every switch (and the hand-off's stop of writes, and closing) runs under the write
 * side of the switch lock, and every operation on the open role is meant to run under its read side
 * ({@link #readLock()}), so no operation sees a half-switched node and a hand-off knows no write is
 * in flight; at most one of primary and replica is open; a primary accepts writes only while it is
 * not fenced, stepped down, handing off or closed; a node that steps down closes its primary
 * (dropping what was never replicated) and reopens a replica of the last followed primary.
 * Role-change notifications run after the lock is released, on the election's thread.
 */
final class RoleSwitch implements ElectionListener {
  private final NrtHost host;
  private final IndexSettings settings;
  private final Path dataDir;
  private final NodeLog log;
  private final Supplier<IndexMetrics> metrics;
  private final ObjLongConsumer<Role> afterSwitch;
  private final ReentrantReadWriteLock switchLock = new ReentrantReadWriteLock();
  private volatile IndexElection election;
  private volatile Primary primary;
  private volatile Replica replica;
  private volatile boolean writable;
  private volatile PrimaryInfo followed;
  private volatile boolean closed;

  /**
   * @param metrics the node's metrics; a supplier because they are registered after this is built
   *     (their gauges read the node, which reads this)
   * @param afterSwitch told of each role change (role, generation or -1) outside the switch lock
   */
  RoleSwitch(NrtHost host, IndexSettings settings, NodeLog log, Supplier<IndexMetrics> metrics, ObjLongConsumer<Role> afterSwitch) {
    this.host = host;
    this.settings = settings;
    this.dataDir = host.config().dataDir().resolve(settings.name());
    this.log = log;
    this.metrics = metrics;
    this.afterSwitch = afterSwitch;
  }

  /** Opens the replica a node starts as, before it knows any primary. */
  void openFirstReplica() throws IOException {
    replica = openReplica(null);
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

  /** The role the election gives this node ({@link Role#JOINING} before it exists). */
  Role role() {
    IndexElection e = election;
    return e == null ? Role.JOINING : e.role();
  }

  private Replica openReplica(NodeAddress primaryAddress) throws IOException {
    return Replica.open(replicaConfig(primaryAddress), host.transport(), metrics.get().replicaObserver());
  }

  private ReplicaConfig replicaConfig(NodeAddress primaryAddress) {
    return ReplicaConfig.builder()
        .nodeId(host.nodeId())
        .cluster(host.config().cluster())
        .index(settings.name())
        .dataDir(dataDir)
        .primary(primaryAddress)
        .reconnectMin(Duration.ofMillis(50))
        .reconnectMax(Duration.ofSeconds(2))
        .transport(host.config().transport())
        .build();
  }

  @Override
  public void becomePrimary(long primaryGen, long forceVersion) throws IOException {
    switchLock.writeLock().lock();
    try {
      ensureOpen();
      Replica r = replica;
      if (r != null) {
        // The writer opens this node's last commit: make it the point-in-time it searches now.
        r.commit();
        r.close();
        replica = null;
      }
      PrimaryConfig pc = PrimaryConfig.builder()
          .nodeId(host.nodeId())
          .cluster(host.config().cluster())
          .index(settings.name())
          .dataDir(dataDir)
          .bindHost(host.config().bindHost())
          .primaryGen(primaryGen)
          .forcePrimaryVersion(forceVersion)
          .transport(host.config().transport())
          .build();
      Primary p = Primary.open(pc, settings.writerConfig().get(), host.transport());
      try {
        p.setObserver(metrics.get().primaryObserver());
        p.setPublishGate(version -> election.publishVersion(version));
        primary = p;
        election.publishVersion(p.version());
      } catch (IOException | RuntimeException e) {
        // Left open, this primary would hold the index's write lock and every later election of
        // this node would fail on it; back to a replica, as a step-down does.
        abandonPrimary(p, e);
        throw e;
      }
      followed = null;
      writable = true;
      log.info("primary of epoch {} at version {} (replay from {})", primaryGen, p.version(), p.replayPosition());
    } finally {
      switchLock.writeLock().unlock();
    }
    afterSwitch.accept(Role.PRIMARY, primaryGen);
  }

  /** A primary that could not take its epoch: rolled back to its last commit, a replica again. */
  private void abandonPrimary(Primary p, Exception cause) {
    primary = null;
    try {
      p.close();
    } catch (IOException | RuntimeException e) {
      cause.addSuppressed(e);
    }
    if (!closed) {
      PrimaryInfo f = followed;
      try {
        replica = openReplica(f == null ? null : NodeAddress.parse(f.address()));
      } catch (IOException | RuntimeException e) {
        cause.addSuppressed(e);
      }
    }
    log.warn("could not take the primary's epoch ({}); closed the primary and rejoined as a replica", cause.toString());
  }

  @Override
  public void followPrimary(PrimaryInfo info) throws IOException {
    followed = info;
    NodeAddress address = NodeAddress.parse(info.address());
    switchLock.writeLock().lock();
    try {
      ensureOpen();
      Replica r = replica;
      if (r == null) {
        replica = openReplica(address);
      } else {
        r.setPrimary(address);
      }
    } finally {
      switchLock.writeLock().unlock();
    }
    afterSwitch.accept(Role.REPLICA, info.primaryGen());
  }

  @Override
  public void fenced() {
    writable = false;
  }

  @Override
  public void unfenced() {
    writable = primary != null;
  }

  @Override
  public void stepDown() throws IOException {
    writable = false;
    switchLock.writeLock().lock();
    try {
      Primary p = primary;
      primary = null;
      if (p != null) {
        // Rolls back to the last commit: whatever was never replicated is dropped here; the new
        // primary's point-in-time replaces it.
        p.close();
      }
      if (!closed && replica == null) {
        PrimaryInfo f = followed;
        replica = openReplica(f == null ? null : NodeAddress.parse(f.address()));
      }
    } finally {
      switchLock.writeLock().unlock();
    }
    log.warn("stepped down; rejoined as a replica");
    afterSwitch.accept(Role.REPLICA, -1);
  }

  /**
   * Stops acknowledging writes for a hand-off and returns the primary, once no write is in flight
   * (taken under the write side of the switch lock); null when this node is not a writable primary.
   */
  Primary stopWritesForHandoff() {
    switchLock.writeLock().lock();
    try {
      Primary p = primary;
      if (p == null || !writable) {
        return null;
      }
      writable = false;
      return p;
    } finally {
      switchLock.writeLock().unlock();
    }
  }

  /** A hand-off did not happen: accept writes again if this node still holds its epoch. */
  void resumeWritesAfterHandoff() {
    writable = primary != null && election.role() == Role.PRIMARY;
  }

  /** Refuses writes from now on (the node is leaving the election). */
  void stopWrites() {
    writable = false;
  }

  /**
   * The read side of the switch lock: held around every operation on the open role, so that it
   * never runs while a switch is under way.
   */
  Lock readLock() {
    return switchLock.readLock();
  }

  /** The primary, if this node accepts writes now; call under {@link #readLock()}. */
  Primary requirePrimary(String what) throws NotPrimaryException {
    Primary p = primary;
    if (!writable || p == null) {
      PrimaryInfo f = followed;
      throw new NotPrimaryException("node " + host.nodeId() + " cannot " + what + " on " + settings.name(),
          f == null ? null : f.address());
    }
    return p;
  }

  void ensureOpen() throws NodeClosedException {
    if (closed) {
      throw new NodeClosedException("node " + host.nodeId() + " closed index " + settings.name());
    }
  }

  boolean isClosed() {
    return closed;
  }

  boolean isWritablePrimary() {
    return writable && primary != null;
  }

  Primary primary() {
    return primary;
  }

  Replica replica() {
    return replica;
  }

  /** Version searched now, -1 with no open role. */
  long searchingVersion() {
    Primary p = primary;
    if (p != null) {
      return p.version();
    }
    Replica r = replica;
    return r == null ? -1 : r.searchingVersion();
  }

  /** Generation led (primary) or followed (replica), -1 with no open role. */
  long primaryGen() {
    Primary p = primary;
    if (p != null) {
      return p.primaryGen();
    }
    Replica r = replica;
    return r == null ? -1 : r.primaryGen();
  }

  /** The application source position of the newest point-in-time held, or null. */
  String replayPosition() {
    Primary p = primary;
    if (p != null) {
      return p.replayPosition();
    }
    Replica r = replica;
    return r == null ? null : r.replayPosition();
  }

  /** The primary's address as this node knows it (itself when primary), or null. */
  String primaryAddress() {
    if (primary != null) {
      return host.address().toString();
    }
    PrimaryInfo f = followed;
    return f == null ? null : f.address();
  }

  /**
   * No more switches: a step-down after this does not reopen a replica. Writes stop at once, before
   * the election is left.
   */
  void markClosed() {
    closed = true;
    writable = false;
  }

  /**
   * Closes whichever role is open, under the write side of the switch lock; a replica closes without
   * committing unless {@code graceful} (a halt must leave the files as a crash would).
   */
  void closeRoles(boolean graceful) throws IOException {
    switchLock.writeLock().lock();
    try {
      Primary p = primary;
      Replica r = replica;
      primary = null;
      replica = null;
      if (p != null) {
        p.close();
      }
      if (r != null) {
        if (graceful) {
          r.close();
        } else {
          r.closeWithoutCommit();
        }
      }
    } finally {
      switchLock.writeLock().unlock();
    }
  }
}

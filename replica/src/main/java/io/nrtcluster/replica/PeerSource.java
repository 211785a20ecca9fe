package io.nrtcluster.replica;

import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.ProtocolException;
import io.nrtcluster.transport.Connection;
import io.nrtcluster.transport.Message;
import io.nrtcluster.transport.NodeAddress;
import io.nrtcluster.transport.PeerRole;
import io.nrtcluster.transport.Transport;
import java.util.Objects;

/**
 * The peer replica this replica fetches file bytes from, as the primary assigned it ({@link
 * Message.CopySource}), and the connection to it. Only bytes come from the parent: every copy-state,
 * version and checksum still comes from the primary, and any file the parent cannot serve whole
 * and intact is fetched from the primary ({@link StreamingCopyJob}).
 *
 * <p>The connection is made in the background as soon as a parent is assigned and again (at most
 * once per {@code peerStallTimeout}) after it drops; only the first copy after an assignment waits
 * for it, briefly. While there is none, files come from the primary. A peer that answers as anything
 * but the assigned replica is dropped.
 */
final class PeerSource {
  /** The parent the primary of generation {@code primaryGen} named. */
  record Assignment(long primaryGen, int parentId, NodeAddress address) {}

  private final Transport transport;
  private final ReplicaContext ctx;
  private final NodeLog log;
  private volatile Assignment assigned;
  private volatile Connection connection;
  /** Guarded by this: a connect is under way. */
  private boolean connecting;
  private long lastAttemptNanos = Long.MIN_VALUE / 2;
  /** Guarded by this: a copy already waited for a connect to this assignment's parent (only the first does). */
  private boolean waited;
  private volatile boolean closed;

  PeerSource(Transport transport, ReplicaContext ctx) {
    this.transport = transport;
    this.ctx = ctx;
    this.log = ctx.log();
  }

  /** The primary of {@code c} assigned {@code m}: remembered, and the parent connected to in the background. */
  void assign(Connection primary, Message.CopySource m) throws ProtocolException {
    if (m.primaryGen() != primary.peerPrimaryGen()) {
      throw new ProtocolException("copy source of generation " + m.primaryGen() + " from a primary of generation "
          + primary.peerPrimaryGen());
    }
    Assignment next;
    if (m.parentId() < 0) {
      next = null;
    } else {
      if (m.parentId() == ctx.config().nodeId()) {
        throw new ProtocolException("the primary named this replica as its own copy source");
      }
      try {
        next = new Assignment(m.primaryGen(), m.parentId(), NodeAddress.parse(m.parentAddress()));
      } catch (IllegalArgumentException e) {
        throw new ProtocolException("bad copy source address '" + m.parentAddress() + "': " + e.getMessage());
      }
    }
    Assignment before;
    Connection old;
    synchronized (this) {
      before = assigned;
      if (Objects.equals(before, next)) {
        return;
      }
      assigned = next;
      old = connection;
      connection = null;
      lastAttemptNanos = Long.MIN_VALUE / 2;
      waited = false;
    }
    if (old != null) {
      old.close();
    }
    log.info("copying from {} from now on", next == null ? "the primary" : "replica R" + next.parentId() + " at " + next.address());
    if (next != null) {
      connectInBackground();
    }
  }

  /** The primary changed (or the link dropped): its assignment ends with it; the next primary sends its own. */
  void primaryChanged(long primaryGen) {
    Assignment a = assigned;
    if (a != null && a.primaryGen() != primaryGen) {
      Connection old;
      synchronized (this) {
        assigned = null;
        old = connection;
        connection = null;
      }
      if (old != null) {
        old.close();
      }
      log.info("copying from the primary again: generation {} replaced the one that named R{}", primaryGen, a.parentId());
    }
  }

  /** Id of the parent this replica copies from, or -1 (the primary). */
  int parentId() {
    Assignment a = assigned;
    return a == null ? -1 : a.parentId();
  }

  /**
   * The open connection to the assigned parent, or null (copy from the primary): none assigned, or
   * not connected, in which case a connect is started unless one ran within {@code
   * peerStallTimeout}. Only the first connect to a newly assigned parent is waited for, up to {@link
   * #CONNECT_WAIT_MILLIS}: the first copy after an assignment usually starts right after it and would
   * otherwise take every file from the primary; a parent that went away later costs no wait.
   */
  Connection connection() {
    Assignment a = assigned;
    if (a == null || closed) {
      return null;
    }
    Connection c = connection;
    if (c != null && c.isOpen()) {
      return c;
    }
    connectInBackground();
    long deadline = System.nanoTime() + CONNECT_WAIT_MILLIS * 1_000_000;
    synchronized (this) {
      boolean first = !waited;
      waited = true;
      try {
        while (first && connecting && assigned == a && !closed) {
          long left = (deadline - System.nanoTime()) / 1_000_000;
          if (left <= 0) {
            break;
          }
          wait(left);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      c = connection;
    }
    return c != null && c.isOpen() ? c : null;
  }

  /** Longest a copy waits for a connect to its parent that is under way. */
  static final long CONNECT_WAIT_MILLIS = 1000;

  private void connectInBackground() {
    Assignment a;
    synchronized (this) {
      a = assigned;
      long now = System.nanoTime();
      if (a == null || closed || connecting || now - lastAttemptNanos < ctx.config().peerStallTimeout().toNanos()) {
        return;
      }
      connecting = true;
      lastAttemptNanos = now;
    }
    ReplicaConfig cfg = ctx.config();
    transport.connect(a.address(), cfg.cluster(), cfg.index(), cfg.nodeId(), PeerRole.REPLICA, (c, request) -> {
      throw new ProtocolException("a copy source does not send requests, got " + request.getClass().getSimpleName());
    }).whenComplete((c, err) -> {
      boolean keep = false;
      synchronized (this) {
        connecting = false;
        if (err == null && assigned == a && !closed && c.peerRole() == PeerRole.REPLICA && c.peerNodeId() == a.parentId()) {
          connection = c;
          keep = true;
        }
        notifyAll();
      }
      if (err != null) {
        log.debug("connecting to copy source R{} at {} failed: {}", a.parentId(), a.address(), err.toString());
      } else if (!keep) {
        if (c.peerNodeId() != a.parentId() || c.peerRole() != PeerRole.REPLICA) {
          log.info("copy source at {} answered as {} {}, not replica R{}: fetching from the primary", a.address(),
              c.peerRole(), c.peerNodeId(), a.parentId());
        }
        c.close();
      }
    });
  }

  void close() {
    Connection c;
    synchronized (this) {
      closed = true;
      c = connection;
      connection = null;
    }
    if (c != null) {
      c.close();
    }
  }
}

package io.nrtcluster.replica;

import io.nrtcluster.common.Backoff;
import io.nrtcluster.common.ClusterMismatchException;
import io.nrtcluster.common.ConnectionException;
import io.nrtcluster.common.ConnectionRefusedException;
import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.ExecutorSource;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.ProtocolException;
import io.nrtcluster.common.RequestTimeoutException;
import io.nrtcluster.common.TlsHandshakeException;
import io.nrtcluster.transport.Connection;
import io.nrtcluster.transport.FaultStats;
import io.nrtcluster.transport.Message;
import io.nrtcluster.transport.NodeAddress;
import io.nrtcluster.transport.PeerRole;
import io.nrtcluster.transport.RequestHandler;
import io.nrtcluster.transport.Transport;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The replica's connection to its primary: connects with a bounded wait, refuses a primary whose
 * generation is older than one already seen, reconnects with exponential backoff when the link
 * drops, and hands the primary's requests (NRT points, merge pre-copies) to the replica. Once its
 * heartbeat is started, it pings the primary on the live connection every interval, at most one
 * ping outstanding, and keeps the time of the last contact (handshake, any answer, an error reply
 * included, or any frame read: the primary's process is alive) for a failure detector to read.
 *
 * <p>Its timers (reconnects, heartbeats, merge pre-copy progress) run on one serial executor whose
 * tasks never wait ({@link ExecutorSource.Pool#TICK}): a reconnect in the background only starts
 * the connect and handles its outcome when it arrives, so a primary that does not answer holds no
 * thread; only the first connect of {@link Replica#open} waits for its outcome.
 */
final class PrimaryLink implements RequestHandler {
  /** What the link needs from the replica it serves. */
  interface Listener {
    void onNrtPoint(long primaryGen, long version) throws Exception;

    /** An NRT point that brings its copy-state, held by the primary for us until released. */
    void onNrtPointCopyState(Connection connection, Message.CopyStateReply state) throws Exception;

    void onPreCopy(Connection connection, Message.PreCopyMerge request) throws Exception;

    void onConnected(Connection connection);

    /** Version searched now, or -1 before the replica has started. */
    long searchingVersion();

    /** The primary acknowledged our {@code NewReplica} on {@code connection}: report what we hold. */
    void onAnnounced(Connection connection);
  }

  private final Transport transport;
  private final ReplicaContext ctx;
  private final NodeLog log;
  private final Listener listener;
  private final ScheduledExecutorService scheduler;
  private final Backoff backoff;
  private volatile NodeAddress target;
  private volatile Connection current;
  private ScheduledFuture<?> reconnect;
  /** A reconnect is scheduled or its connect is under way. */
  private boolean reconnecting;
  private ScheduledFuture<?> heartbeat;
  private final AtomicBoolean pingOutstanding = new AtomicBoolean();
  private volatile PrimaryContact lastContact;
  /** When a connect to the primary was last refused (nothing listens there), or {@link Long#MIN_VALUE}. */
  private volatile long lastRefusedNanos = Long.MIN_VALUE;
  private volatile boolean closed;
  /** The peer the primary told us to fetch file bytes from, if any. */
  private final PeerSource peers;
  /** The newest copy-state the primary pushed with an NRT point and no copy has taken yet. */
  private final PushedCopyStates pushed = new PushedCopyStates();

  /** @param scheduler the link's timers (this link shuts it down when it closes); its tasks never wait */
  PrimaryLink(Transport transport, ReplicaContext ctx, Listener listener, ScheduledExecutorService scheduler) {
    this.transport = transport;
    this.ctx = ctx;
    this.log = ctx.log();
    this.listener = listener;
    this.target = ctx.config().primary();
    this.backoff = new Backoff(ctx.config().reconnectMin(), ctx.config().reconnectMax());
    this.scheduler = scheduler;
    this.peers = new PeerSource(transport, ctx);
  }

  /** Where file bytes may come from besides the primary (the copy tree's parent). */
  PeerSource peers() {
    return peers;
  }

  /** The transport's fault counters, where copies report what became of the wire bit flips they read. */
  FaultStats faults() {
    return transport.faultStats();
  }

  /** The link's timers: its tasks must never wait. */
  ScheduledExecutorService scheduler() {
    return scheduler;
  }

  /** The live connection to the primary, or null. */
  Connection current() {
    Connection c = current;
    return c != null && c.isOpen() ? c : null;
  }

  NodeAddress target() {
    return target;
  }

  /** Follow the primary at {@code address} from now on (null: no primary known). */
  void retarget(NodeAddress address) {
    NodeAddress old = target;
    target = address;
    if (address != null && address.equals(old)) {
      return;
    }
    Connection c = current;
    if (c != null) {
      c.close();
    } else {
      scheduleReconnect(Duration.ZERO);
    }
  }

  /**
   * One bounded attempt to connect and handshake, waiting for its outcome. Returns the connection,
   * or null when the primary is unreachable, refuses us, or announces a stale generation.
   */
  Connection connectOnce() {
    NodeAddress address = target;
    if (address == null || closed) {
      return null;
    }
    var cfg = ctx.config();
    long waitMillis = cfg.transport().connectTimeout().plus(cfg.transport().handshakeTimeout()).toMillis() + 1000;
    Connection c;
    try {
      c = connect(address).get(waitMillis, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      failed(address, e.getCause());
      return null;
    } catch (TimeoutException e) {
      log.debug("primary at {} did not answer within {} ms", address, waitMillis);
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
    return accept(address, c);
  }

  private CompletableFuture<Connection> connect(NodeAddress address) {
    var cfg = ctx.config();
    return transport.connect(address, cfg.cluster(), cfg.index(), cfg.nodeId(), PeerRole.REPLICA, this);
  }

  private void failed(NodeAddress address, Throwable cause) {
    if (cause instanceof ConnectionRefusedException) {
      lastRefusedNanos = System.nanoTime();
    }
    if (cause instanceof TlsHandshakeException t) {
      // Does not heal by retrying alone: certificates or trust must be fixed. Retried all the same.
      log.error("TLS with primary at {} failed: {}", address, t.getMessage());
    } else if (cause instanceof ClusterMismatchException m && m.code() != ErrorCode.UNKNOWN_INDEX) {
      log.error("primary at {} refused us: {}", address, m.getMessage());
    } else if (cause instanceof ClusterMismatchException m) {
      // Normal while a new primary is still opening the index (or a former one just left).
      log.info("primary at {} does not serve the index (yet): {}", address, m.getMessage());
    } else {
      log.debug("primary at {} unreachable: {}", address, String.valueOf(cause));
    }
  }

  /** A connection is open: keeps it unless its primary is stale or the link closed; returns it or null. */
  private Connection accept(NodeAddress address, Connection c) {
    if (c.peerRole() != PeerRole.PRIMARY) {
      // A former primary that is a replica now serves its peers' copies on the same address.
      log.info("node {} at {} is not the primary (it answers as {}); waiting for the new primary's address",
          c.peerNodeId(), address, c.peerRole());
      c.close();
      return null;
    }
    long seen = ctx.store().highestPrimaryGen();
    if (c.peerPrimaryGen() < seen) {
      ctx.stats().staleGenerationRefused();
      log.warn("refusing primary P{} at {}: its generation {} is older than {} already seen",
          c.peerNodeId(), address, c.peerPrimaryGen(), seen);
      c.close();
      return null;
    }
    synchronized (this) {
      if (closed) {
        c.close();
        return null;
      }
      current = c;
      peers.primaryChanged(c.peerPrimaryGen());
      // Copies waiting to resume after a drop wait on this monitor.
      notifyAll();
    }
    backoff.reset();
    contact(c);
    c.closeFuture().thenRun(() -> onClosed(c));
    log.info("connected to primary P{} at {} (generation {})", c.peerNodeId(), address, c.peerPrimaryGen());
    return c;
  }

  /**
   * Waits up to {@code millis} for a live connection other than {@code lost} (a copy waiting to
   * resume after a drop); returns it, or null. Wakes at once when the link closes for good.
   */
  Connection awaitOther(Connection lost, long millis) throws InterruptedException {
    long deadline = System.nanoTime() + millis * 1_000_000;
    synchronized (this) {
      while (!closed) {
        Connection c = current;
        if (c != null && c != lost && c.isOpen()) {
          return c;
        }
        long left = (deadline - System.nanoTime()) / 1_000_000;
        if (left <= 0) {
          return null;
        }
        wait(left);
      }
    }
    return null;
  }

  /** Keep reconnecting in the background whenever the link is down. */
  void maintain() {
    if (current() == null) {
      scheduleReconnect(Duration.ZERO);
    }
  }

  private void onClosed(Connection c) {
    synchronized (this) {
      if (current != c) {
        return;
      }
      current = null;
    }
    if (!closed) {
      log.info("lost connection to primary at {}; reconnecting", c.remoteAddress());
      scheduleReconnect(backoff.next());
    }
  }

  private synchronized void scheduleReconnect(Duration delay) {
    if (closed || reconnecting) {
      return;
    }
    reconnecting = true;
    try {
      reconnect = scheduler.schedule(this::reconnectNow, delay.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // Closing.
      reconnecting = false;
    }
  }

  /** On the link's executor: starts a connect; its outcome comes back to the executor, no thread waits for it. */
  private void reconnectNow() {
    NodeAddress address = target;
    if (address == null || closed) {
      reconnectEnded(null);
      return;
    }
    connect(address).whenComplete((c, err) -> {
      try {
        scheduler.execute(() -> reconnected(address, c, err));
      } catch (RejectedExecutionException e) {
        // The link closed meanwhile.
        if (c != null) {
          c.close();
        }
      }
    });
  }

  private void reconnected(NodeAddress address, Connection c, Throwable err) {
    Connection kept = null;
    if (err != null) {
      failed(address, err instanceof CompletionException && err.getCause() != null ? err.getCause() : err);
    } else {
      kept = accept(address, c);
    }
    reconnectEnded(kept);
  }

  private void reconnectEnded(Connection c) {
    synchronized (this) {
      reconnecting = false;
    }
    if (c != null) {
      listener.onConnected(c);
    } else if (!closed && current() == null) {
      scheduleReconnect(backoff.next());
    }
  }

  /**
   * The last contact with a primary, or null before the first: the handshake, a heartbeat's answer,
   * or any frame read on the live connection (file data streamed over a slow link can delay the
   * answers to pings, but proves the primary alive all the same).
   */
  PrimaryContact lastContact() {
    PrimaryContact p = lastContact;
    Connection c = current;
    if (c != null && c.isOpen() && (p == null || c.lastReadNanos() - p.atNanos() > 0)) {
      return new PrimaryContact(c.peerNodeId(), c.peerPrimaryGen(), c.lastReadNanos());
    }
    return p;
  }

  /**
   * When a connection attempt to the primary was last refused, or {@link Long#MIN_VALUE}: nothing
   * listened at its address, so it cannot have answers waiting unread on this side either (a
   * failure detector may then trust the silence whatever its own stalls).
   */
  long lastRefusedNanos() {
    return lastRefusedNanos;
  }

  private void contact(Connection c) {
    lastContact = new PrimaryContact(c.peerNodeId(), c.peerPrimaryGen(), System.nanoTime());
  }

  /**
   * Pings the primary every {@code interval} while connected (idempotent: the first interval
   * stays). A ping unanswered after ten intervals (at least a second) is abandoned and the next one
   * sent; until an answer arrives the last contact simply ages.
   */
  void startHeartbeat(Duration interval) {
    long millis = Math.max(1, interval.toMillis());
    Duration timeout = Duration.ofMillis(Math.max(1000, 10 * millis));
    synchronized (this) {
      if (closed || heartbeat != null) {
        return;
      }
      heartbeat = scheduler.scheduleWithFixedDelay(() -> beat(timeout), millis, millis, TimeUnit.MILLISECONDS);
    }
  }

  private void beat(Duration timeout) {
    Connection c = current();
    if (c == null || !pingOutstanding.compareAndSet(false, true)) {
      return;
    }
    try {
      c.request(Message.Ping::new, timeout).whenComplete((reply, err) -> {
        pingOutstanding.set(false);
        if (err == null || answered(err)) {
          contact(c);
        }
      });
    } catch (RuntimeException e) {
      pingOutstanding.set(false);
      log.debug("heartbeat to the primary not sent: {}", e.toString());
    }
  }

  /** An error reply is an answer too; a timeout or a closed connection is not. */
  private static boolean answered(Throwable err) {
    Throwable t = err instanceof CompletionException && err.getCause() != null ? err.getCause() : err;
    return t instanceof NrtClusterException && !(t instanceof ConnectionException) && !(t instanceof RequestTimeoutException);
  }

  /** The copy-state the primary pushed with its newest NRT point, until a copy takes it. */
  PushedCopyStates pushed() {
    return pushed;
  }

  /** Tells the primary we want its NRT points and merge pre-copies. Best effort; never throws. */
  void announce() {
    Connection c = current();
    if (c == null) {
      return;
    }
    c.request(id -> new Message.NewReplica(id, ctx.config().nodeId(), listener.searchingVersion()))
        .thenRun(() -> listener.onAnnounced(c))
        .exceptionally(t -> {
          log.debug("announcing to the primary failed: {}", t.toString());
          return null;
        });
  }

  /**
   * Tells the primary connected now that this replica, in run {@code incarnation} of its index,
   * searches {@code version}, a point of generation {@code gen} it copied (or held when it connected), if that primary takes such reports
   * (protocol version 3). Best effort, never throws: a report lost with its connection is made again
   * after the next connect, and the next install reports anew.
   */
  void reportInstalled(long gen, long version, long incarnation) {
    Connection c = current();
    if (c == null || !c.peerTakesInstallReports()) {
      return;
    }
    c.request(id -> new Message.Installed(id, gen, version, incarnation))
        .exceptionally(t -> {
          log.debug("reporting version {} to the primary failed: {}", version, t.toString());
          return null;
        });
  }

  @Override
  public void onRequest(Connection connection, Message request) throws Exception {
    switch (request) {
      case Message.NrtPoint p -> listener.onNrtPoint(p.primaryGen(), p.version());
      case Message.NrtPointCopyState p -> listener.onNrtPointCopyState(connection, p.state());
      case Message.PreCopyMerge m -> listener.onPreCopy(connection, m);
      case Message.CopySource m -> peers.assign(connection, m);
      case Message.Ping p -> connection.reply(new Message.Ack(p.requestId()));
      default -> throw new ProtocolException("a replica does not handle " + request.getClass().getSimpleName());
    }
  }

  void close() {
    synchronized (this) {
      closed = true;
      notifyAll();
      if (reconnect != null) {
        reconnect.cancel(false);
      }
      if (heartbeat != null) {
        heartbeat.cancel(false);
      }
    }
    Connection c = current;
    if (c != null) {
      c.close();
    }
    peers.close();
    scheduler.shutdownNow();
  }
}

package io.nrtcluster.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.ScheduledFuture;
import io.nrtcluster.common.ConnectionException;
import io.nrtcluster.common.Durations;
import io.nrtcluster.common.Internal;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.RequestTimeoutException;
import io.nrtcluster.common.TlsHandshakeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;

/**
 * One established, handshaken connection to a peer. Thread-safe. Requests are multiplexed by id;
 * replies are matched to them; file streams are flow-controlled per request. When the connection
 * closes, every pending request and stream fails with {@link ConnectionException}.
 *
 * <p>Netty types never leave this class: callers see messages, futures and streams.
 */
@Internal
public final class Connection {
  private final Channel channel;
  private final Transport transport;
  private final AtomicLong nextRequestId = new AtomicLong(1);
  private final Map<Long, ReplySink> pending = new ConcurrentHashMap<>();
  private final CompletableFuture<Void> closed = new CompletableFuture<>();
  final OutboundStreams outbound;
  private volatile int peerNodeId = -1;
  private volatile PeerRole peerRole;
  private volatile long peerPrimaryGen = -1;
  private volatile String peerIndex;
  /**
   * The protocol version the handshake settled on: what the peer announced (server side), or what
   * this side announced last and the peer accepted (client side).
   */
  private volatile int peerProtocolVersion = WireFormat.PROTOCOL_VERSION;
  private volatile Object attachment;
  private final AtomicLong ignoredReplies = new AtomicLong();
  private volatile long lastReadNanos = System.nanoTime();
  private volatile Throwable tlsFailure;
  private boolean warnedUnknownId;

  Connection(Channel channel, Transport transport) {
    this.channel = channel;
    this.transport = transport;
    this.outbound = new OutboundStreams(this, transport.config());
    // Deferred: a TLS alert closes the channel inside SslHandler before the exception that explains
    // it reaches ConnectionHandler; failing the pending requests a task later lets them carry it.
    channel.closeFuture().addListener(f -> {
      try {
        channel.eventLoop().execute(this::onChannelClosed);
      } catch (RejectedExecutionException shuttingDown) {
        onChannelClosed();
      }
    });
  }

  Channel channel() {
    return channel;
  }

  Transport transport() {
    return transport;
  }

  void setPeer(int nodeId, PeerRole role, long primaryGen, String index) {
    this.peerNodeId = nodeId;
    this.peerRole = role;
    this.peerPrimaryGen = primaryGen;
    this.peerIndex = index;
    ChannelHandlerContext counting = channel.pipeline().context(TrafficCountingHandler.class);
    if (counting != null) {
      ((TrafficCountingHandler) counting.handler()).attribute(counting, transport.peerTraffic(index, nodeId));
    }
  }

  void setPeerProtocolVersion(int version) {
    this.peerProtocolVersion = version;
  }

  int peerProtocolVersion() {
    return peerProtocolVersion;
  }

  /**
   * Whether the peer understands NRT_POINT_COPY_STATE (protocol version 2): only then may an NRT
   * point carry its copy-state.
   */
  public boolean peerTakesPushedCopyStates() {
    return peerProtocolVersion >= 2;
  }

  /** Whether the peer (a primary) understands {@link Message.Installed} reports (protocol version 3). */
  public boolean peerTakesInstallReports() {
    return peerProtocolVersion >= 3;
  }

  /** Whether the peer (a replica) understands {@link Message.CopySource} and peer fetches (protocol version 4). */
  public boolean peerTakesCopySources() {
    return peerProtocolVersion >= 4;
  }

  /** Node id the peer announced in the handshake. */
  public int peerNodeId() {
    return peerNodeId;
  }

  public PeerRole peerRole() {
    return peerRole;
  }

  /** Primary generation the server announced in the handshake (client side), else -1. */
  public long peerPrimaryGen() {
    return peerPrimaryGen;
  }

  /** Index this connection is about. */
  public String index() {
    return peerIndex;
  }

  public String remoteAddress() {
    return String.valueOf(channel.remoteAddress());
  }

  public boolean isOpen() {
    return channel.isActive();
  }

  /**
   * {@link System#nanoTime()} of the last frame read from the peer (any frame: file data, a reply,
   * a request), or of the connection's creation: proof that the peer's process is alive even when
   * a slow link delays its answers behind the data it streams.
   */
  public long lastReadNanos() {
    return lastReadNanos;
  }

  void frameRead() {
    lastReadNanos = System.nanoTime();
  }

  /** Completes when the connection has closed, for whatever reason. */
  public CompletableFuture<Void> closeFuture() {
    return closed;
  }

  /** Application state bound to this connection (for example the replica it belongs to). */
  public void attach(Object value) {
    this.attachment = value;
  }

  public Object attachment() {
    return attachment;
  }

  public long nextRequestId() {
    return nextRequestId.getAndIncrement();
  }

  /**
   * Sends a request built with a fresh id and returns its single reply. An {@code ErrorReply}
   * completes the future exceptionally with the matching typed exception; no reply within the
   * transport's request timeout fails it with {@link RequestTimeoutException}.
   */
  public CompletableFuture<Message> request(LongFunction<Message> build) {
    return request(build, transport.config().requestTimeout());
  }

  public CompletableFuture<Message> request(LongFunction<Message> build, Duration timeout) {
    long id = nextRequestId();
    CompletableFuture<Message> future = new CompletableFuture<>();
    ReplySink sink =
        new ReplySink() {
          @Override
          public boolean accept(Message reply) {
            if (reply instanceof Message.ErrorReply e) {
              future.completeExceptionally(NrtClusterException.fromRemote(e.code(), e.message()));
            } else {
              future.complete(reply);
            }
            return true;
          }

          @Override
          public void fail(Throwable cause) {
            future.completeExceptionally(cause);
          }
        };
    register(id, sink);
    ScheduledFuture<?> timer =
        channel
            .eventLoop()
            .schedule(
                () -> {
                  if (pending.remove(id, sink)) {
                    sink.fail(new RequestTimeoutException("no reply to request " + id + " within " + Durations.format(timeout) + " from " + remoteAddress()));
                  }
                },
                timeout.toMillis(),
                TimeUnit.MILLISECONDS);
    future.whenComplete((r, t) -> timer.cancel(false));
    write(build.apply(id), id);
    return future;
  }

  /**
   * Sends a request whose replies go to {@code sink} until it reports completion; used for
   * exchanges with several replies (merge pre-copy progress). No timeout: the sink decides.
   */
  void request(Message request, ReplySink sink) {
    register(request.requestId(), sink);
    write(request, request.requestId());
  }

  /** Sends a request with replies delivered to {@code listener}; see {@link ReplyListener}. */
  public long requestStreaming(LongFunction<Message> build, ReplyListener listener) {
    long id = nextRequestId();
    request(
        build.apply(id),
        new ReplySink() {
          @Override
          public boolean accept(Message reply) {
            return listener.onReply(reply);
          }

          @Override
          public void fail(Throwable cause) {
            listener.onFailure(cause);
          }
        });
    return id;
  }

  /**
   * Stops waiting for replies to {@code requestId} and tells the peer. The request's future fails
   * (and its listener's {@link ReplyListener#onFailure} is called) with {@link CancellationException}.
   */
  public void cancel(long requestId) {
    ReplySink sink = pending.remove(requestId);
    if (sink != null) {
      send(new Message.Cancel(requestId));
      sink.fail(new CancellationException("request " + requestId + " to " + remoteAddress() + " cancelled"));
    }
  }

  /** Sends a one-way message or a reply. Failures to write close the connection. */
  public void send(Message message) {
    channel.writeAndFlush(message).addListener(f -> {
      if (!f.isSuccess() && channel.isActive()) {
        Transport.LOG.warn("write of {} to {} failed; closing", message.getClass().getSimpleName(), remoteAddress(), f.cause());
        channel.close();
      }
    });
  }

  /** Replies to a request the peer sent. Same as {@link #send}; named for readability. */
  public void reply(Message message) {
    send(message);
  }

  /** The window each file stream this side opens grants the sender at first (bytes it may send unasked). */
  public int windowBytes() {
    return transport.config().streamWindowBytes();
  }

  /**
   * Opens a flow-controlled stream of one file from the peer. The stream must be closed by the
   * caller; closing before the end cancels it on the peer.
   */
  public InboundFileStream fetchFile(Message.SourceKind kind, long sourceId, String name, long offset) {
    return fetchFile(kind, sourceId, name, offset, transport.config().readTimeout());
  }

  /**
   * As {@link #fetchFile(Message.SourceKind, long, String, long)}, failing with {@code
   * ConnectionException} when nothing arrives for {@code readTimeout} (a copy from a peer gives up
   * on a slow one sooner than on the primary, which it has no alternative to).
   */
  public InboundFileStream fetchFile(Message.SourceKind kind, long sourceId, String name, long offset, Duration readTimeout) {
    long id = nextRequestId();
    int window = transport.config().streamWindowBytes();
    InboundFileStream stream = new InboundFileStream(this, id, offset, window, readTimeout);
    register(id, stream.sink());
    write(new Message.FetchFile(id, kind, sourceId, name, offset, window), id);
    return stream;
  }

  /**
   * Streams {@code file} from {@code offset} to its end as the reply to fetch request {@code
   * requestId}, honouring the requester's window. The caller has validated that the file may be
   * served. Zero-copy unless TLS is on or zero-copy is disabled.
   */
  public void streamFile(Message.FetchFile request, Path file) {
    channel.eventLoop().execute(() -> outbound.start(request, file, useZeroCopy()));
  }

  boolean useZeroCopy() {
    return transport.config().zeroCopy() && channel.pipeline().get(SslHandler.class) == null;
  }

  /** Closes the connection; pending requests fail. */
  public void close() {
    channel.close();
  }

  /**
   * Replies, file data and progress that arrived for a request this side is not waiting for: late
   * answers to requests that timed out or were cancelled, and anything a broken or hostile peer
   * sends for ids this side never issued. All of them are dropped.
   */
  public long ignoredReplies() {
    return ignoredReplies.get();
  }

  /** Event loop: a reply nobody waits for. Logged loudly once when its id was never issued. */
  void ignoredReply(Message m) {
    long count = ignoredReplies.incrementAndGet();
    long id = m.requestId();
    boolean neverIssued = id <= 0 || id >= nextRequestId.get();
    if (m instanceof Message.ErrorReply e && id == 0) {
      Transport.LOG.warn("{}: peer reports {}: {}", this, e.code(), e.message());
    } else if (neverIssued && !warnedUnknownId) {
      warnedUnknownId = true;
      Transport.LOG.warn("{}: ignoring {} for request id {} that this side never sent (further ones are logged at "
          + "debug level; {} replies ignored so far)", this, m.getClass().getSimpleName(), id, count);
    } else {
      Transport.LOG.debug("{}: ignoring {} for request id {} nobody waits for", this, m.getClass().getSimpleName(), id);
    }
  }

  /** The TLS session broke (for example the peer refused our certificate): pending requests fail with it. */
  void tlsFailed(Throwable cause) {
    tlsFailure = cause;
  }

  /** Why the TLS session of this connection failed, or null. */
  Throwable tlsFailure() {
    return tlsFailure;
  }

  ReplySink removePending(long id) {
    return pending.remove(id);
  }

  ReplySink pendingSink(long id) {
    return pending.get(id);
  }

  private void register(long id, ReplySink sink) {
    if (!channel.isActive()) {
      sink.fail(new ConnectionException("connection to " + remoteAddress() + " is closed"));
      return;
    }
    pending.put(id, sink);
    if (!channel.isActive() && pending.remove(id, sink)) {
      sink.fail(new ConnectionException("connection to " + remoteAddress() + " is closed"));
    }
  }

  private void write(Message message, long id) {
    channel.writeAndFlush(message).addListener(f -> {
      if (!f.isSuccess()) {
        ReplySink sink = pending.remove(id);
        if (sink != null) {
          Throwable cause = f.cause();
          sink.fail(cause instanceof NrtClusterException ? cause
              : cause != null && cause.getCause() instanceof NrtClusterException nce ? nce
              : new ConnectionException("could not send request to " + remoteAddress(), cause));
        }
      }
    });
  }

  private void onChannelClosed() {
    Throwable tls = tlsFailure;
    ConnectionException ex = tls != null
        ? new TlsHandshakeException("TLS session with " + remoteAddress() + " failed: " + tls.getMessage(), tls)
        : new ConnectionException("connection to " + remoteAddress() + " closed");
    for (Long id : pending.keySet()) {
      ReplySink sink = pending.remove(id);
      if (sink != null) {
        sink.fail(ex);
      }
    }
    closed.complete(null);
  }

  @Override
  public String toString() {
    return "Connection(" + remoteAddress() + ", peer=" + peerNodeId + ", index=" + peerIndex + ")";
  }
}

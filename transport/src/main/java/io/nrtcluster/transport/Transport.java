package io.nrtcluster.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelOption;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.nrtcluster.common.ClusterMismatchException;
import io.nrtcluster.common.ConnectionException;
import io.nrtcluster.common.ConnectionRefusedException;
import io.nrtcluster.common.Durations;
import io.nrtcluster.common.ElasticPool;
import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.Experimental;
import io.nrtcluster.common.NodeClosedException;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.ProtocolException;
import io.nrtcluster.common.RequestTimeoutException;
import io.nrtcluster.common.TlsConfigException;
import io.nrtcluster.common.TlsHandshakeException;
import java.io.Closeable;
import java.net.ConnectException;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The process-wide networking of nrtcluster: named event loops, the request threads, the codec
 * instances, and at most one {@link TransportServer}. Every index (shard) of a process shares one
 * transport. Thread-safe; close it last.
 */
@Experimental
public final class Transport implements Closeable {
  static final Logger LOG = LoggerFactory.getLogger(Transport.class);
  static final ChannelFutureListener CLOSE_ON_WRITE_FAILURE = f -> {
    if (!f.isSuccess() && f.channel().isActive()) {
      LOG.debug("write to {} failed; closing", f.channel().remoteAddress(), f.cause());
      f.channel().close();
    }
  };

  private final String name;
  private final TransportConfig config;
  private final EventLoopGroup ioGroup;
  private final EventLoopGroup acceptGroup;
  private final ElasticPool requestExecutor;
  private final MessageEncoder encoder;
  private final MessageDecoder decoder = new MessageDecoder();
  private final FaultStats faultStats;
  private final TlsContexts tls;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final TrafficCounter totalTraffic = new TrafficCounter();
  private final Map<String, Map<Integer, TrafficCounter>> peerTraffic = new ConcurrentHashMap<>();
  private volatile TransportServer server;

  private Transport(String name, TransportConfig config, TlsContexts tls) {
    this.name = name;
    this.config = config;
    this.tls = tls;
    this.encoder = new MessageEncoder(config.maxFrameBytes());
    this.faultStats = new FaultStats(config.faults());
    this.ioGroup = new MultiThreadIoEventLoopGroup(config.ioThreads(), new DefaultThreadFactory("nrt-io-" + name, true), NioIoHandler.newFactory());
    this.acceptGroup = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("nrt-accept-" + name, true), NioIoHandler.newFactory());
    // Grows only when every thread is busy and shrinks when idle: a ThreadPoolExecutor starts a
    // thread per task up to its core size and, handing tasks to its idle threads in turn, keeps
    // them all alive under any steady trickle of requests (pings, copy-state asks).
    this.requestExecutor = new ElasticPool("nrt-req-" + name, config.requestThreads(), Duration.ofSeconds(30),
        new DefaultThreadFactory("nrt-req-" + name, true));
  }

  /**
   * Starts a transport; {@code name} appears in its thread names. With TLS configured, loads the key
   * material first and fails with {@link TlsConfigException} naming the file it cannot use.
   */
  public static Transport create(String name, TransportConfig config) throws TlsConfigException {
    TlsContexts tls = config.tlsEnabled() ? TlsContexts.load(config.tls()) : null;
    return new Transport(name, config, tls);
  }

  public String name() {
    return name;
  }

  /** Every byte this transport's connections sent and received so far, handshakes included. */
  public Traffic traffic() {
    return totalTraffic.snapshot();
  }

  /**
   * The bytes sent to and received from node {@code peerNodeId} on connections for {@code index},
   * since this transport started (over every connection to it, closed ones included).
   */
  public Traffic traffic(String index, int peerNodeId) {
    Map<Integer, TrafficCounter> peers = peerTraffic.get(index);
    TrafficCounter c = peers == null ? null : peers.get(peerNodeId);
    return c == null ? Traffic.NONE : c.snapshot();
  }

  /** {@link #traffic(String, int)} for every peer this transport exchanged bytes with for {@code index}. */
  public Map<Integer, Traffic> trafficByPeer(String index) {
    Map<Integer, TrafficCounter> peers = peerTraffic.get(index);
    Map<Integer, Traffic> out = new TreeMap<>();
    if (peers != null) {
      peers.forEach((id, c) -> out.put(id, c.snapshot()));
    }
    return out;
  }

  TrafficCounter totalTraffic() {
    return totalTraffic;
  }

  TrafficCounter peerTraffic(String index, int peerNodeId) {
    return peerTraffic.computeIfAbsent(index == null ? "" : index, k -> new ConcurrentHashMap<>())
        .computeIfAbsent(peerNodeId, k -> new TrafficCounter());
  }

  public TransportConfig config() {
    return config;
  }

  /** What the fault-injection point has done so far on this transport's connections. */
  public FaultStats faultStats() {
    return faultStats;
  }

  /**
   * Changes the injected faults' rates on every connection, open or future. Only a transport whose
   * configured faults are {@link FaultInjection#switchable() switchable} has the handlers to obey.
   *
   * @throws IllegalStateException if the transport's faults are not switchable
   */
  public void updateFaults(double bitFlipProbability, long throttleBytesPerSecond) {
    FaultInjection current = faultStats.config();
    if (!current.switchable()) {
      throw new IllegalStateException("transport " + name + " was configured without switchable faults");
    }
    faultStats.update(current.withRates(bitFlipProbability, throttleBytesPerSecond));
  }

  /**
   * Switches the "dropAfterFileBytes" fault point on every connection, open or future: each drops
   * once it has received {@code dropAfterFileBytes} bytes of file data (0: off), at most
   * {@code maxDrops} drops in all from now on (0: no bound). Needs switchable faults, as
   * {@link #updateFaults} does.
   *
   * @throws IllegalStateException if the transport's faults are not switchable
   */
  public void updateDrops(long dropAfterFileBytes, int maxDrops) {
    FaultInjection current = faultStats.config();
    if (!current.switchable()) {
      throw new IllegalStateException("transport " + name + " was configured without switchable faults");
    }
    faultStats.updateDrops(current.withDrops(dropAfterFileBytes, maxDrops));
  }

  /**
   * Switches the "linkDelay" fault point on every connection, open or future: each frame sent from
   * now on leaves {@code millis} later (0: at once), never before a frame sent earlier. Needs
   * switchable faults, as {@link #updateFaults} does.
   *
   * @throws IllegalStateException if the transport's faults are not switchable
   */
  public void updateLinkDelay(long millis) {
    FaultInjection current = faultStats.config();
    if (!current.switchable()) {
      throw new IllegalStateException("transport " + name + " was configured without switchable faults");
    }
    faultStats.updateLinkDelay(current.withLinkDelay(millis));
  }

  /** The TLS contexts, or null in plaintext. */
  TlsContexts tls() {
    return tls;
  }

  MessageEncoder encoder() {
    return encoder;
  }

  MessageDecoder decoder() {
    return decoder;
  }

  Executor requestExecutor() {
    return requestExecutor;
  }

  EventLoopGroup ioGroup() {
    return ioGroup;
  }

  EventLoopGroup acceptGroup() {
    return acceptGroup;
  }

  /**
   * Binds this transport's server (one per transport) on {@code host:port} (port 0 picks a free
   * one) for cluster {@code cluster}; endpoints are registered on it per index.
   */
  public synchronized TransportServer bind(String host, int port, String cluster) throws NrtClusterException {
    ensureOpen();
    if (server != null) {
      throw new IllegalStateException("transport " + name + " is already bound to " + server.localAddress());
    }
    server = TransportServer.bind(this, host, port, cluster);
    return server;
  }

  /** The bound server, or null. */
  public TransportServer server() {
    return server;
  }

  /**
   * Connects to {@code address} and performs the handshake for {@code cluster}/{@code index}.
   * Requests the peer starts on this connection go to {@code handler}. Fails with {@link
   * ConnectionException} when unreachable within the connect timeout, with {@link RequestTimeoutException}
   * when the handshake (TLS and then the application's) does not complete within the handshake
   * timeout, with {@link TlsHandshakeException} when either side refuses the other's TLS session, or
   * with the peer's typed refusal: {@link ClusterMismatchException} with code {@code WRONG_CLUSTER},
   * {@code UNKNOWN_INDEX} or {@code PROTOCOL_VERSION}, the last naming the version this node announced
   * and the versions each side speaks.
   */
  public CompletableFuture<Connection> connect(
      NodeAddress address, String cluster, String index, int nodeId, PeerRole role, RequestHandler handler) {
    return connectFrom(address, cluster, index, nodeId, role, handler, WireFormat.PROTOCOL_VERSION);
  }

  /**
   * Announces {@code version} and, refused for it by a peer of an older release, the versions below
   * it down to {@link WireFormat#MIN_PROTOCOL_VERSION} (a new connection each): a node of release N
   * reaches a primary of release N-1 in a rolling upgrade and then speaks that release's protocol.
   */
  private CompletableFuture<Connection> connectFrom(NodeAddress address, String cluster, String index, int nodeId,
      PeerRole role, RequestHandler handler, int version) {
    return connect(address, cluster, index, nodeId, role, handler, version).exceptionallyCompose(err -> {
      if (version > WireFormat.MIN_PROTOCOL_VERSION && err instanceof ClusterMismatchException refused
          && refused.code() == ErrorCode.PROTOCOL_VERSION && !closed.get()) {
        LOG.info("{} refused protocol version {}; trying {}", address, version, version - 1);
        return connectFrom(address, cluster, index, nodeId, role, handler, version - 1);
      }
      return CompletableFuture.failedFuture(err);
    });
  }

  /** As {@link #connect(NodeAddress, String, String, int, PeerRole, RequestHandler)}, announcing {@code protocolVersion} (tests: a node of another release). */
  CompletableFuture<Connection> connect(NodeAddress address, String cluster, String index, int nodeId, PeerRole role,
      RequestHandler handler, int protocolVersion) {
    CompletableFuture<Connection> result = new CompletableFuture<>();
    if (closed.get()) {
      result.completeExceptionally(new NodeClosedException("transport " + name + " is closed"));
      return result;
    }
    Bootstrap b = new Bootstrap()
        .group(ioGroup)
        .channel(NioSocketChannel.class)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) config.connectTimeout().toMillis())
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.WRITE_BUFFER_WATER_MARK, TransportPipeline.waterMark(config))
        .option(ChannelOption.RCVBUF_ALLOCATOR, TransportPipeline.receiveBuffers())
        .handler(new ClientChannelInitializer(this, handler, address));
    b.connect(address.host(), address.port()).addListener((ChannelFutureListener) f -> {
      if (!f.isSuccess()) {
        String why = "cannot connect to " + address + ": " + f.cause().getMessage();
        // A timeout is a ConnectException too, but says nothing about whether the peer lives.
        boolean refused = f.cause() instanceof ConnectException && !(f.cause() instanceof ConnectTimeoutException);
        result.completeExceptionally(refused ? new ConnectionRefusedException(why, f.cause()) : new ConnectionException(why, f.cause()));
        return;
      }
      Channel ch = f.channel();
      long deadline = System.nanoTime() + config.handshakeTimeout().toNanos();
      SslHandler ssl = ch.pipeline().get(SslHandler.class);
      if (ssl == null) {
        hello(ch, address, cluster, index, nodeId, role, protocolVersion, deadline, result);
        return;
      }
      // The application handshake starts only on an established TLS session, in what is left of the deadline.
      ssl.handshakeFuture().addListener(hf -> {
        if (hf.isSuccess()) {
          hello(ch, address, cluster, index, nodeId, role, protocolVersion, deadline, result);
        } else {
          ch.close();
          result.completeExceptionally(hf.cause() instanceof SslHandshakeTimeoutException
              ? new RequestTimeoutException("no TLS handshake with " + address + " within "
                  + Durations.format(config.handshakeTimeout()), hf.cause())
              : new TlsHandshakeException("TLS handshake with " + address + " failed: " + hf.cause().getMessage(), hf.cause()));
        }
      });
    });
    return result;
  }

  private void hello(Channel ch, NodeAddress address, String cluster, String index, int nodeId, PeerRole role, int protocolVersion,
      long deadline, CompletableFuture<Connection> result) {
    Connection connection = ((ConnectionHandler) ch.pipeline().get(TransportPipeline.CONNECTION)).connection();
    Duration left = Duration.ofNanos(Math.max(1_000_000, deadline - System.nanoTime()));
    connection
        .request(id -> new Message.Hello(id, protocolVersion, cluster, index, nodeId, role), left)
        .whenComplete((reply, err) -> {
          if (err instanceof ClusterMismatchException refused && refused.code() == ErrorCode.PROTOCOL_VERSION) {
            ch.close();
            // The peer's text names the versions it speaks; this side adds its own and the address.
            result.completeExceptionally(new ClusterMismatchException(ErrorCode.PROTOCOL_VERSION, address + " refused protocol version "
                + protocolVersion + " (this node speaks " + WireFormat.MIN_PROTOCOL_VERSION + " to " + WireFormat.PROTOCOL_VERSION
                + "): " + refused.getMessage()));
          } else if (err != null) {
            ch.close();
            result.completeExceptionally(err);
          } else if (reply instanceof Message.HelloOk ok) {
            connection.setPeer(ok.nodeId(), ok.role(), ok.primaryGen(), index);
            connection.setPeerProtocolVersion(protocolVersion);
            ch.eventLoop().execute(() -> {
              if (ch.isActive()) {
                TransportPipeline.addIdleTimeout(ch.pipeline(), config);
              }
            });
            result.complete(connection);
          } else {
            ch.close();
            result.completeExceptionally(new ProtocolException("unexpected handshake reply " + reply));
          }
        });
  }

  private void ensureOpen() throws NodeClosedException {
    if (closed.get()) {
      throw new NodeClosedException("transport " + name + " is closed");
    }
  }

  /** Closes the server, every connection, and the threads, waiting a bounded time. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    TransportServer s = server;
    if (s != null) {
      s.close();
    }
    acceptGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    ioGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    requestExecutor.shutdownNow();
    try {
      requestExecutor.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

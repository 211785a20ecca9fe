package io.nrtcluster.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.nrtcluster.common.Checks;
import io.nrtcluster.common.ConnectionException;
import io.nrtcluster.common.Internal;
import io.nrtcluster.common.NrtClusterException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The listening side of a {@link Transport}: accepts connections for one cluster and routes each,
 * by the index named in its handshake, to that index's {@link Endpoint}.
 */
@Internal
public final class TransportServer {
  private final Transport transport;
  private final String cluster;
  private volatile Channel serverChannel;
  private final ChannelGroup channels = new DefaultChannelGroup("nrt-server", GlobalEventExecutor.INSTANCE);
  private final Map<String, Endpoint> endpoints = new ConcurrentHashMap<>();

  private TransportServer(Transport transport, String cluster) {
    this.transport = transport;
    this.cluster = cluster;
  }

  static TransportServer bind(Transport transport, String host, int port, String cluster) throws NrtClusterException {
    Checks.notBlank("cluster", cluster);
    // The server object exists before the socket accepts anything, so no child channel can see it unset.
    TransportServer server = new TransportServer(transport, cluster);
    ServerBootstrap b = new ServerBootstrap()
        .group(transport.acceptGroup(), transport.ioGroup())
        .channel(NioServerSocketChannel.class)
        .option(ChannelOption.SO_BACKLOG, 128)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, TransportPipeline.waterMark(transport.config()))
        .childOption(ChannelOption.RCVBUF_ALLOCATOR, TransportPipeline.receiveBuffers())
        .childHandler(new ServerChannelInitializer(server));
    ChannelFuture f = b.bind(host, port).awaitUninterruptibly();
    if (!f.isSuccess()) {
      throw new ConnectionException("cannot listen on " + host + ":" + port + ": " + f.cause().getMessage(), f.cause());
    }
    server.serverChannel = f.channel();
    return server;
  }

  Transport transport() {
    return transport;
  }

  /** The protocol versions this server accepts in HELLO: {@link WireFormat}'s unless a test narrows them. */
  private volatile int minProtocolVersion = WireFormat.MIN_PROTOCOL_VERSION;
  private volatile int maxProtocolVersion = WireFormat.PROTOCOL_VERSION;

  /** Tests: accept only {@code min} to {@code max}, as a server of another release would. */
  void acceptProtocolVersions(int min, int max) {
    minProtocolVersion = min;
    maxProtocolVersion = max;
  }

  int minProtocolVersion() {
    return minProtocolVersion;
  }

  int maxProtocolVersion() {
    return maxProtocolVersion;
  }

  public String cluster() {
    return cluster;
  }

  /** The address actually bound (resolves port 0). */
  public NodeAddress localAddress() {
    InetSocketAddress a = (InetSocketAddress) serverChannel.localAddress();
    return new NodeAddress(a.getHostString(), a.getPort());
  }

  /** Makes {@code endpoint} answer handshakes for {@code index}. */
  public void register(String index, Endpoint endpoint) {
    if (endpoints.putIfAbsent(index, endpoint) != null) {
      throw new IllegalStateException("index '" + index + "' already has an endpoint on this server");
    }
  }

  /** Stops routing new connections to {@code endpoint} and closes the connections it has. */
  public void unregister(String index, Endpoint endpoint) {
    if (endpoints.remove(index, endpoint)) {
      for (Channel ch : channels) {
        ConnectionHandler h = ch.pipeline().get(ConnectionHandler.class);
        if (h != null && index.equals(h.connection().index())) {
          ch.close();
        }
      }
    }
  }

  Endpoint endpoint(String index) {
    return endpoints.get(index);
  }

  /** Connections accepted and not yet closed, handshaken or not (closed ones leave by themselves). */
  public int openConnections() {
    return channels.size();
  }

  void track(Channel channel) {
    channels.add(channel);
  }

  void close() {
    serverChannel.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    channels.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
  }
}

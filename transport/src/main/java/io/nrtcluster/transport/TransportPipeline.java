package io.nrtcluster.transport;

import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;

/** The handler names and the shared part of both sides' pipelines. */
final class TransportPipeline {
  static final String TLS = "tls";
  static final String IDLE = "idle";
  static final String THROTTLE = "throttle";
  static final String FRAMES = "frames";
  static final String DECODER = "decoder";
  static final String ENCODER = "encoder";
  static final String BIT_FLIPS = "bitFlips";
  static final String DROPS = "dropAfterFileBytes";
  static final String LINK_DELAY = "linkDelay";
  static final String HANDSHAKE = "handshake";
  static final String CONNECTION = "connection";
  static final String TRAFFIC = "traffic";

  private TransportPipeline() {}

  /**
   * Adds the TLS handler first, nearest the socket, when the transport has TLS: everything after it
   * sees plaintext frames. Its handshake gets the handshake deadline (the application handshake
   * follows it within the same deadline).
   */
  static void addTls(SocketChannel ch, Transport transport, boolean server, NodeAddress peer) {
    TlsContexts tls = transport.tls();
    if (tls == null) {
      return;
    }
    SslContext context = server ? tls.server : tls.client;
    SslHandler handler = server ? context.newHandler(ch.alloc()) : context.newHandler(ch.alloc(), peer.host(), peer.port());
    handler.setHandshakeTimeoutMillis(transport.config().handshakeTimeout().toMillis());
    ch.pipeline().addLast(TLS, handler);
  }

  /** Counts the connection's bytes nearest the socket: call last when building a pipeline. */
  static void addTrafficCount(ChannelPipeline p, Transport transport) {
    p.addFirst(TRAFFIC, new TrafficCountingHandler(transport.totalTraffic()));
  }

  /**
   * Once the handshake is done: closes the connection when no whole frame arrived for {@code
   * idleTimeout}, and has the connection handler ping when it sent nothing for a third of it.
   * Placed after the decoder, so a peer trickling a frame byte by byte does not count as alive.
   */
  static void addIdleTimeout(ChannelPipeline p, TransportConfig config) {
    long millis = config.idleTimeout().toMillis();
    p.addBefore(CONNECTION, IDLE, new IdleStateHandler(millis, Math.max(1, millis / 3), 0, TimeUnit.MILLISECONDS));
  }

  /**
   * The outbound backlog bounds of every connection: above the high mark a channel is not writable,
   * and {@link ConnectionHandler} stops reading from it until the backlog is below the low mark.
   */
  static WriteBufferWaterMark waterMark(TransportConfig config) {
    return new WriteBufferWaterMark(config.writeBufferLowBytes(), config.writeBufferHighBytes());
  }

  /** The most one socket read takes (Netty's default: 64 KiB), the size of a file-data frame by default. */
  static final int MAX_READ_BYTES = 256 * 1024;

  /**
   * Sizes each socket read's buffer to what the previous reads filled, as Netty does by default, but
   * up to {@link #MAX_READ_BYTES} instead of 64 KiB. File data reaches the copying thread as slices of
   * these buffers ({@link FrameDecoder}) and goes to disk with one write call per slice, so a merged
   * segment streamed at full speed took four times as many reads, queue hand-offs and file writes at
   * 64 KiB. The buffer grows only while reads fill it, so a connection carrying small requests stays
   * at small buffers.
   */
  static RecvByteBufAllocator receiveBuffers() {
    return new AdaptiveRecvByteBufAllocator(64, 2048, MAX_READ_BYTES);
  }

  /**
   * Adds throttle, framing, codec, bit flips and connection drops (the faults if configured), in that
   * order, and the link delay (if configured) first of all, nearest the socket.
   */
  static void addCodec(ChannelPipeline p, Transport transport) {
    TransportConfig config = transport.config();
    FaultInjection faults = config.faults();
    if (faults.delaysLinks() || faults.switchable()) {
      p.addFirst(LINK_DELAY, new LinkDelayHandler(transport.faultStats()));
    }
    if (faults.throttles() || faults.switchable()) {
      p.addLast(THROTTLE, transport.faultStats().newThrottle());
    }
    p.addLast(FRAMES, frameDecoder(config.maxFrameBytes()));
    p.addLast(ENCODER, transport.encoder());
    p.addLast(DECODER, transport.decoder());
    if (faults.flipsBits() || faults.switchable()) {
      p.addLast(BIT_FLIPS, new BitFlipHandler(transport.faultStats()));
    }
    if (faults.dropsConnections() || faults.switchable()) {
      p.addLast(DROPS, new ConnectionDropHandler(transport.faultStats()));
    }
  }

  /**
   * Splits the inbound byte stream into frames and strips their 4-byte length prefix, passing file
   * data on as it arrives ({@link FrameDecoder}). Accepts a length prefix of up to {@code
   * maxFrameBytes}, the same bound {@link MessageEncoder} enforces.
   */
  static FrameDecoder frameDecoder(int maxFrameBytes) {
    return new FrameDecoder(maxFrameBytes);
  }
}

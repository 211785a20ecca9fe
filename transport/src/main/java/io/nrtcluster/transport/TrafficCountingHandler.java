package io.nrtcluster.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.FileRegion;

/**
 * First in every connection's pipeline, nearest the socket: counts the bytes written to it and read
 * from it into the transport's totals and, once the handshake named the peer, into that peer's
 * counter for the index ({@link Transport#traffic(String, int)}). A write is counted when it is
 * handed to the socket's outbound buffer: a connection that dies with bytes unsent counts them.
 */
final class TrafficCountingHandler extends ChannelDuplexHandler {
  private final TrafficCounter totals;
  // Touched on the channel's event loop only.
  private TrafficCounter peer;
  /** What passed before the handshake named the peer: added to its counter then, so both sides agree. */
  private long sentBefore;
  private long receivedBefore;

  TrafficCountingHandler(TrafficCounter totals) {
    this.totals = totals;
  }

  /** Counts this connection's bytes (those of its handshake too) for the peer, from the event loop. */
  void attribute(ChannelHandlerContext ctx, TrafficCounter peerCounter) {
    if (!ctx.executor().inEventLoop()) {
      ctx.executor().execute(() -> attribute(ctx, peerCounter));
      return;
    }
    if (peer == null) {
      peer = peerCounter;
      peerCounter.sent(sentBefore);
      peerCounter.received(receivedBefore);
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    long n = size(msg);
    if (n > 0) {
      totals.received(n);
      if (peer != null) {
        peer.received(n);
      } else {
        receivedBefore += n;
      }
    }
    ctx.fireChannelRead(msg);
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
    long n = size(msg);
    if (n > 0) {
      totals.sent(n);
      if (peer != null) {
        peer.sent(n);
      } else {
        sentBefore += n;
      }
    }
    ctx.write(msg, promise);
  }

  private static long size(Object msg) {
    if (msg instanceof ByteBuf b) {
      return b.readableBytes();
    }
    if (msg instanceof ByteBufHolder h) {
      return h.content().readableBytes();
    }
    if (msg instanceof FileRegion r) {
      return r.count() - r.transferred();
    }
    return 0;
  }
}

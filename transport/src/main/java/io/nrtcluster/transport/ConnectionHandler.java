package io.nrtcluster.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import io.nrtcluster.common.Durations;
import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.ProtocolException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLException;

/**
 * Routes the messages of an established connection: replies and file data to the request that
 * waits for them, flow-control to the outbound streams, and new requests to the application's
 * {@link RequestHandler} on the request threads, at most {@code maxRequestsInFlight} of them and
 * {@code maxRequestBytesInFlight} of their encoded bytes at a time. Replies to requests this side
 * never sent (or no longer waits for) are dropped and counted. Keeps an idle connection alive with
 * pings and closes one on which nothing arrives for {@code idleTimeout}. Reads nothing more from a
 * peer while the connection's outbound backlog is above the high water mark, so a peer that does
 * not read stalls (and is eventually closed) alone. Protocol violations close this connection only.
 */
final class ConnectionHandler extends ChannelInboundHandlerAdapter {
  private static final AttributeKey<Boolean> CLOSING = AttributeKey.valueOf(ConnectionHandler.class, "closing");
  private final Connection connection;
  private final RequestHandler handler;
  private final Semaphore inFlight;
  private final long maxRequestBytes;
  /** Encoded bytes of the requests dispatched and not yet handled; freed by the request threads. */
  private final AtomicLong requestBytes = new AtomicLong();

  ConnectionHandler(Connection connection, RequestHandler handler) {
    this.connection = connection;
    this.handler = handler;
    this.inFlight = new Semaphore(connection.transport().config().maxRequestsInFlight());
    this.maxRequestBytes = connection.transport().config().maxRequestBytesInFlight();
  }

  Connection connection() {
    return connection;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (closing(ctx.channel())) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (!ctx.channel().isWritable() && ctx.channel().config().isAutoRead()) {
      // Replies written by the request threads announce unwritability a task later: stop reading
      // now, after the bytes at hand, rather than after the rest of this read loop.
      ctx.channel().config().setAutoRead(false);
    }
    if (!(msg instanceof Message m)) {
      ReferenceCountUtil.release(msg);
      return;
    }
    connection.frameRead();
    switch (m) {
      case Message.Credit c -> connection.outbound.credit(c.requestId(), c.bytes());
      case Message.Cancel c -> {
        connection.outbound.cancel(c.requestId());
      }
      case Message.Hello h -> {
        // A second handshake on an established connection.
        protocolError(ctx, new ProtocolException("unexpected second handshake"));
      }
      default -> {
        if (MessageType.of(m).request) {
          dispatch(m);
        } else {
          deliverReply(m);
        }
      }
    }
  }

  private void deliverReply(Message m) {
    ReplySink sink = connection.pendingSink(m.requestId());
    if (sink == null) {
      connection.ignoredReply(m);
      ReferenceCountUtil.release(m);
      if (m instanceof Message.FileHeader) {
        // A stream nobody reads (cancelled before the sender started it, so the sender missed the
        // Cancel): stop it, or it would hold a file and a stream slot until the connection closes.
        connection.send(new Message.Cancel(m.requestId()));
      }
      return;
    }
    boolean done;
    try {
      done = sink.accept(m);
    } catch (RuntimeException e) {
      ReferenceCountUtil.release(m);
      done = true;
      sink.fail(e);
    }
    if (done) {
      connection.removePending(m.requestId());
    }
  }

  private void dispatch(Message request) {
    if (!inFlight.tryAcquire()) {
      connection.reply(new Message.ErrorReply(request.requestId(), ErrorCode.TOO_MANY_REQUESTS,
          "more than " + connection.transport().config().maxRequestsInFlight() + " requests in flight"));
      return;
    }
    long bytes = FrameSize.of(request);
    if (requestBytes.addAndGet(bytes) > maxRequestBytes) {
      requestBytes.addAndGet(-bytes);
      inFlight.release();
      connection.reply(new Message.ErrorReply(request.requestId(), ErrorCode.TOO_MANY_REQUESTS,
          "requests in flight would hold more than " + maxRequestBytes + " bytes"));
      return;
    }
    try {
      connection.transport().requestExecutor().execute(() -> {
        try {
          handler.onRequest(connection, request);
        } catch (NrtClusterException e) {
          connection.reply(new Message.ErrorReply(request.requestId(), e.code(), e.getMessage()));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          connection.reply(new Message.ErrorReply(request.requestId(), ErrorCode.NODE_CLOSED, "interrupted"));
        } catch (Exception | AssertionError e) {
          Transport.LOG.warn("{}: request {} failed", connection, request.getClass().getSimpleName(), e);
          connection.reply(new Message.ErrorReply(request.requestId(), ErrorCode.INTERNAL, String.valueOf(e)));
        } finally {
          requestBytes.addAndGet(-bytes);
          inFlight.release();
        }
      });
    } catch (RejectedExecutionException e) {
      requestBytes.addAndGet(-bytes);
      inFlight.release();
      connection.reply(new Message.ErrorReply(request.requestId(), ErrorCode.NODE_CLOSED, "transport is shutting down"));
    }
  }

  /**
   * Backpressure: while the outbound backlog is above the high water mark nothing more is read from
   * the peer, so a peer that sends requests and never reads the replies cannot grow the backlog
   * without bound; it stalls only itself, and the idle timeout closes it if it stays stalled.
   */
  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (closing(ctx.channel())) {
      return;
    }
    boolean writable = ctx.channel().isWritable();
    ctx.channel().config().setAutoRead(writable);
    if (writable) {
      connection.outbound.pumpAll();
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof IdleStateEvent idle) {
      if (idle.state() == IdleState.READER_IDLE) {
        String timeout = Durations.format(connection.transport().config().idleTimeout());
        if (ctx.channel().isWritable()) {
          Transport.LOG.warn("{}: no frame received for {} (idle timeout); closing", connection, timeout);
        } else {
          // Not reading was this side's choice (backpressure): the peer is the one that stopped reading.
          Transport.LOG.warn("{}: peer has not read what this side sent for {} (idle timeout); closing", connection, timeout);
        }
        ctx.close();
      } else if (idle.state() == IdleState.WRITER_IDLE) {
        // Keep-alive: the peer reads this ping and we read its answer, so neither side idles out.
        connection.request(Message.Ping::new).exceptionally(t -> null);
      }
      return;
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    connection.outbound.closeAll();
    try {
      connection.transport().requestExecutor().execute(() -> handler.onClose(connection));
    } catch (RejectedExecutionException e) {
      handler.onClose(connection);
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    SSLException tls = sslCause(cause);
    if (tls != null) {
      // The peer ended the TLS session (TLS 1.3 servers check the client certificate after the
      // client has finished its side of the handshake): pending requests fail with this cause.
      connection.tlsFailed(tls);
      Transport.LOG.debug("{}: TLS failure, closing: {}", connection, tls.getMessage());
      ctx.close();
      return;
    }
    handleException(ctx, connection.toString(), cause);
  }

  /** The {@link SSLException} in {@code cause}'s chain, or null. */
  static SSLException sslCause(Throwable cause) {
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (t instanceof SSLException e) {
        return e;
      }
    }
    return null;
  }

  /** True once the connection is closing after a violation or refusal: nothing it sends is handled. */
  static boolean closing(Channel channel) {
    return Boolean.TRUE.equals(channel.attr(CLOSING).get());
  }

  /**
   * Marks the connection closing and stops reading from it; false if it already was. What was read
   * already (the rest of the bytes at hand) is then dropped undispatched by both handlers, so frames
   * after a violation cannot run requests or queue more errors.
   */
  static boolean startClosing(Channel channel) {
    if (channel.attr(CLOSING).setIfAbsent(Boolean.TRUE) != null) {
      return false;
    }
    channel.config().setAutoRead(false);
    return true;
  }

  /** Sends {@code error}, the connection's last frame, and closes it once written. */
  static void closeWith(ChannelHandlerContext ctx, Message.ErrorReply error) {
    if (ctx.channel().isActive()) {
      ctx.writeAndFlush(error).addListener(f -> ctx.close());
    }
  }

  /** Answers the first protocol violation of a connection with one {@code ERROR} and closes it. */
  static void protocolError(ChannelHandlerContext ctx, ProtocolException e) {
    if (!startClosing(ctx.channel())) {
      Transport.LOG.debug("{}: further protocol violation while closing: {}", ctx.channel().remoteAddress(), e.getMessage());
      return;
    }
    Transport.LOG.warn("{}: protocol violation, closing: {}", ctx.channel().remoteAddress(), e.getMessage());
    closeWith(ctx, new Message.ErrorReply(0, ErrorCode.PROTOCOL, e.getMessage()));
  }

  /** Shared by the handshake handler: protocol violations are answered, other failures just close. */
  static void handleException(ChannelHandlerContext ctx, String who, Throwable cause) {
    Throwable root = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
    if (root instanceof ProtocolException pe) {
      protocolError(ctx, pe);
    } else if (root instanceof TooLongFrameException) {
      protocolError(ctx, new ProtocolException("frame too long: " + root.getMessage()));
    } else {
      Transport.LOG.debug("{}: closing after error", who, cause);
      ctx.close();
    }
  }
}

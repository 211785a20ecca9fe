package io.nrtcluster.transport;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.util.ReferenceCountUtil;
import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.ProtocolException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;

/**
 * Routes the messages of an established connection: replies and file data to the request that
 * waits for them, flow-control to the outbound streams, and new requests to the application's
 * {@link RequestHandler} on the request threads, at most {@code maxRequestsInFlight} at a time.
 * Protocol violations close this connection only.
 */
final class ConnectionHandler extends ChannelInboundHandlerAdapter {
  private final Connection connection;
  private final RequestHandler handler;
  private final Semaphore inFlight;

  ConnectionHandler(Connection connection, RequestHandler handler) {
    this.connection = connection;
    this.handler = handler;
    this.inFlight = new Semaphore(connection.transport().config().maxRequestsInFlight());
  }

  Connection connection() {
    return connection;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof Message m)) {
      ReferenceCountUtil.release(msg);
      return;
    }
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
      Transport.LOG.debug("{}: ignoring {} for unknown request id {}", connection, m.getClass().getSimpleName(), m.requestId());
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
          inFlight.release();
        }
      });
    } catch (RejectedExecutionException e) {
      inFlight.release();
      connection.reply(new Message.ErrorReply(request.requestId(), ErrorCode.NODE_CLOSED, "transport is shutting down"));
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (ctx.channel().isWritable()) {
      connection.outbound.pumpAll();
    }
    ctx.fireChannelWritabilityChanged();
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
    handleException(ctx, connection.toString(), cause);
  }

  static void protocolError(ChannelHandlerContext ctx, ProtocolException e) {
    Transport.LOG.warn("{}: protocol violation, closing: {}", ctx.channel().remoteAddress(), e.getMessage());
    if (ctx.channel().isActive()) {
      ctx.writeAndFlush(new Message.ErrorReply(0, ErrorCode.PROTOCOL, e.getMessage()))
          .addListener(f -> ctx.close());
    }
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

package io.nrtcluster.transport;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.ProtocolException;
import java.util.concurrent.TimeUnit;

/**
 * First handler of every accepted connection: accepts exactly one {@link Message.Hello} within the
 * handshake deadline, checks protocol version, cluster and index, and then hands the connection to
 * the chosen {@link Endpoint}. Anything else closes the connection with a typed error. With TLS the
 * deadline, which starts when the TCP connection is accepted, covers the TLS handshake too; a failed
 * TLS handshake (no or untrusted client certificate, plaintext) is logged and closes the connection.
 */
final class ServerHandshakeHandler extends ChannelInboundHandlerAdapter {
  private final TransportServer server;
  private ScheduledFuture<?> deadline;

  ServerHandshakeHandler(TransportServer server) {
    this.server = server;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    long millis = server.transport().config().handshakeTimeout().toMillis();
    deadline = ctx.executor().schedule(() -> {
      Transport.LOG.warn("{}: no handshake within {} ms; closing", ctx.channel().remoteAddress(), millis);
      ctx.close();
    }, millis, TimeUnit.MILLISECONDS);
    ctx.fireChannelActive();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    cancelDeadline();
    ctx.fireChannelInactive();
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof SslHandshakeCompletionEvent tls && !tls.isSuccess()) {
      Transport.LOG.warn("{}: TLS handshake failed, refusing the connection: {}", ctx.channel().remoteAddress(),
          String.valueOf(tls.cause().getMessage()));
      ctx.close();
      return;
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (ConnectionHandler.closing(ctx.channel())) {
      // After a violation even a valid handshake in the same bytes is dropped.
      ReferenceCountUtil.release(msg);
      return;
    }
    if (!(msg instanceof Message.Hello hello)) {
      ReferenceCountUtil.release(msg);
      ConnectionHandler.protocolError(ctx, new ProtocolException("expected a handshake first"));
      return;
    }
    cancelDeadline();
    ErrorCode refusal = null;
    String why = null;
    Endpoint endpoint = null;
    if (hello.protocolVersion() < server.minProtocolVersion() || hello.protocolVersion() > server.maxProtocolVersion()) {
      refusal = ErrorCode.PROTOCOL_VERSION;
      why = "protocol version " + hello.protocolVersion() + " is not supported (this node speaks "
          + server.minProtocolVersion() + " to " + server.maxProtocolVersion() + ")";
    } else if (!server.cluster().equals(hello.cluster())) {
      refusal = ErrorCode.WRONG_CLUSTER;
      why = "this node belongs to cluster '" + server.cluster() + "', not '" + hello.cluster() + "'";
    } else {
      endpoint = server.endpoint(hello.index());
      if (endpoint == null) {
        refusal = ErrorCode.UNKNOWN_INDEX;
        why = "index '" + hello.index() + "' is not hosted here";
      }
    }
    if (refusal != null) {
      if (refusal == ErrorCode.UNKNOWN_INDEX) {
        // Normal for a moment while a node switches roles: the index is not served here yet.
        Transport.LOG.info("{}: refusing node {}: {}", ctx.channel().remoteAddress(), hello.nodeId(), why);
      } else {
        Transport.LOG.warn("{}: refusing node {}: {}", ctx.channel().remoteAddress(), hello.nodeId(), why);
      }
      ConnectionHandler.startClosing(ctx.channel());
      ConnectionHandler.closeWith(ctx, new Message.ErrorReply(hello.requestId(), refusal, why));
      return;
    }
    Connection connection = new Connection(ctx.channel(), server.transport());
    connection.setPeer(hello.nodeId(), hello.role(), -1, hello.index());
    connection.setPeerProtocolVersion(hello.protocolVersion());
    ctx.pipeline().replace(this, TransportPipeline.CONNECTION, new ConnectionHandler(connection, endpoint));
    TransportPipeline.addIdleTimeout(ctx.pipeline(), server.transport().config());
    connection.reply(new Message.HelloOk(hello.requestId(), endpoint.nodeId(), endpoint.primaryGeneration(), endpoint.role()));
    endpoint.onConnect(connection);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (ConnectionHandler.sslCause(cause) != null) {
      // Already reported by the handshake completion event (or a TLS session breaking later).
      Transport.LOG.debug("{}: TLS failure, closing", ctx.channel().remoteAddress(), cause);
      ctx.close();
      return;
    }
    ConnectionHandler.handleException(ctx, String.valueOf(ctx.channel().remoteAddress()), cause);
  }

  private void cancelDeadline() {
    if (deadline != null) {
      deadline.cancel(false);
      deadline = null;
    }
  }
}

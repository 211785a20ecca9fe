package io.nrtcluster.transport;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;

/**
 * Pipeline of an outgoing connection: TLS (if configured, verifying the server against {@code peer}),
 * codec, then the connection handler for the caller's handler.
 */
final class ClientChannelInitializer extends ChannelInitializer<SocketChannel> {
  private final Transport transport;
  private final RequestHandler handler;
  private final NodeAddress peer;

  ClientChannelInitializer(Transport transport, RequestHandler handler, NodeAddress peer) {
    this.transport = transport;
    this.handler = handler;
    this.peer = peer;
  }

  @Override
  protected void initChannel(SocketChannel ch) {
    TransportPipeline.addTls(ch, transport, false, peer);
    TransportPipeline.addCodec(ch.pipeline(), transport);
    Connection connection = new Connection(ch, transport);
    ch.pipeline().addLast(TransportPipeline.CONNECTION, new ConnectionHandler(connection, handler));
    TransportPipeline.addTrafficCount(ch.pipeline(), transport);
  }
}

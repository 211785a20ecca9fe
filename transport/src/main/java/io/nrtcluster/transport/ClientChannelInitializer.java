package io.nrtcluster.transport;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;

/** Pipeline of an outgoing connection: codec, then the connection handler for the caller's handler. */
final class ClientChannelInitializer extends ChannelInitializer<SocketChannel> {
  private final Transport transport;
  private final RequestHandler handler;

  ClientChannelInitializer(Transport transport, RequestHandler handler) {
    this.transport = transport;
    this.handler = handler;
  }

  @Override
  protected void initChannel(SocketChannel ch) {
    TransportPipeline.addCodec(ch.pipeline(), transport);
    Connection connection = new Connection(ch, transport);
    ch.pipeline().addLast(TransportPipeline.CONNECTION, new ConnectionHandler(connection, handler));
  }
}

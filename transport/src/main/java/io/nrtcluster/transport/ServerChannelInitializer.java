package io.nrtcluster.transport;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;

/** Pipeline of an accepted connection: TLS (if configured), codec, then the handshake, which installs the rest. */
final class ServerChannelInitializer extends ChannelInitializer<SocketChannel> {
  private final TransportServer server;

  ServerChannelInitializer(TransportServer server) {
    this.server = server;
  }

  @Override
  protected void initChannel(SocketChannel ch) {
    server.track(ch);
    TransportPipeline.addTls(ch, server.transport(), true, null);
    TransportPipeline.addCodec(ch.pipeline(), server.transport());
    ch.pipeline().addLast(TransportPipeline.HANDSHAKE, new ServerHandshakeHandler(server));
    TransportPipeline.addTrafficCount(ch.pipeline(), server.transport());
  }
}

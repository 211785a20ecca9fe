package io.nrtcluster.transport;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.traffic.ChannelTrafficShapingHandler;
import java.util.Set;

/**
 * Fault-injection point: limits one connection's read and write rate (0 = unlimited). While its
 * channel is open it sits in a registry, so {@link Transport#updateFaults} can change the rate of
 * every open connection at once.
 */
final class SwitchableThrottle extends ChannelTrafficShapingHandler {
  private static final long CHECK_INTERVAL_MS = 100;
  private final Set<ChannelTrafficShapingHandler> registry;

  SwitchableThrottle(long bytesPerSecond, Set<ChannelTrafficShapingHandler> registry) {
    super(bytesPerSecond, bytesPerSecond, CHECK_INTERVAL_MS);
    this.registry = registry;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
    super.handlerAdded(ctx);
    registry.add(this);
    ctx.channel().closeFuture().addListener(f -> registry.remove(this));
  }
}

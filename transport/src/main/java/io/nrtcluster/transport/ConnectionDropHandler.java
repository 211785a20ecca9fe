package io.nrtcluster.transport;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;

/**
 * Fault-injection point "dropAfterFileBytes": closes its connection once it has received the
 * configured number of file-data bytes, as a link that drops in the middle of a copy. The chunk
 * that crosses the mark and everything after it are discarded, so the receiver sees exactly what a
 * dropped TCP connection delivers: a prefix of the stream, then the close. Only in the pipeline when
 * configured ({@link FaultInjection#dropAfterFileBytes()}).
 */
final class ConnectionDropHandler extends ChannelInboundHandlerAdapter {
  private final FaultStats faults;
  private long received;
  private boolean dropped;

  ConnectionDropHandler(FaultStats faults) {
    this.faults = faults;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof FileChunk chunk) {
      faults.fileBytesArrived(chunk.content().readableBytes());
    }
    if (dropped) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (msg instanceof FileChunk chunk) {
      int bytes = chunk.content().readableBytes();
      if (faults.dropNow(received + bytes)) {
        dropped = true;
        ReferenceCountUtil.release(msg);
        Transport.LOG.info("fault injection: dropping connection to {} after {} bytes of file data",
            ctx.channel().remoteAddress(), received);
        ctx.close();
        return;
      }
      received += bytes;
    }
    ctx.fireChannelRead(msg);
  }
}

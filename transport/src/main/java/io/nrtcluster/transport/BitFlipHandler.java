package io.nrtcluster.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Fault-injection point: flips one random bit in some received file-data frames, with the
 * probability configured in {@link FaultInjection}. Sits right after the decoder, so the copy job
 * sees exactly what a corrupting link would deliver. The chunk is marked with the flipped byte's
 * offset so the flip's fate is accounted for ({@link FaultStats#flipCounts()}). Only in the pipeline
 * when configured.
 */
final class BitFlipHandler extends ChannelInboundHandlerAdapter {
  private final FaultStats faults;

  BitFlipHandler(FaultStats faults) {
    this.faults = faults;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof FileChunk chunk) {
      ByteBuf data = chunk.content();
      long bit = faults.nextFlip(data.readableBytes());
      if (bit >= 0) {
        int index = data.readerIndex() + (int) (bit >>> 3);
        data.setByte(index, data.getByte(index) ^ (1 << (int) (bit & 7)));
        chunk.flipped(faults, chunk.offset() + (bit >>> 3));
      }
    }
    ctx.fireChannelRead(msg);
  }
}

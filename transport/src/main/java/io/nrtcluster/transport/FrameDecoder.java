package io.nrtcluster.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.TooLongFrameException;
import java.util.List;

/**
 * Splits the inbound byte stream into frames (a 4-byte unsigned length prefix, then the body) and
 * strips the prefix, like Netty's length-field frame decoder, with one difference: the data of a
 * {@link MessageType#FILE_CHUNK} frame is not gathered into one buffer first. As soon as the chunk's
 * header (type, request id, offset) is in, every received piece of its data goes on at once as a
 * {@link FileChunk} of its own, a slice of the buffer the socket read filled, with its offset in the
 * file. The pieces of one frame are consecutive and together hold exactly the frame's data.
 *
 * <p>Why: gathering a 256 KiB frame from 64 KiB socket reads copied every byte of file data once or
 * twice more on the event loop (growing the gathering buffer), the busiest thread of a replica while
 * it copies a merged segment.
 *
 * <p>Guarantees: every other frame is passed on whole, as a buffer, for {@link MessageDecoder}; a
 * length prefix above {@code maxFrameBytes} (read unsigned) fails with {@link
 * TooLongFrameException} before any of its body is awaited, and everything after it is discarded; a
 * file-chunk frame too short for its header is passed on whole, so {@link MessageDecoder} refuses it;
 * memory held is what the peer sent and nobody consumed yet, never what a prefix announces.
 */
final class FrameDecoder extends ByteToMessageDecoder {
  private static final int PREFIX_BYTES = 4;
  /** Type, request id and offset: what a file chunk's body starts with. */
  private static final int CHUNK_HEADER_BYTES = 1 + Long.BYTES + Long.BYTES;

  private final int maxFrameBytes;
  /** Bytes of the current file chunk's data still to come; 0 between frames. */
  private long chunkRemaining;
  private long chunkRequestId;
  private long chunkOffset;
  private boolean discarding;

  FrameDecoder(int maxFrameBytes) {
    this.maxFrameBytes = maxFrameBytes;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws TooLongFrameException {
    if (discarding) {
      in.skipBytes(in.readableBytes());
      return;
    }
    while (true) {
      if (chunkRemaining > 0) {
        int n = (int) Math.min(chunkRemaining, in.readableBytes());
        if (n == 0) {
          return;
        }
        out.add(new FileChunk(chunkRequestId, chunkOffset, in.readRetainedSlice(n)));
        chunkOffset += n;
        chunkRemaining -= n;
        continue;
      }
      if (in.readableBytes() < PREFIX_BYTES) {
        return;
      }
      int start = in.readerIndex();
      long length = in.getUnsignedInt(start);
      if (length > maxFrameBytes) {
        discarding = true;
        in.skipBytes(in.readableBytes());
        throw new TooLongFrameException("frame of " + length + " bytes exceeds the limit of " + maxFrameBytes);
      }
      int available = in.readableBytes() - PREFIX_BYTES;
      boolean chunk = length >= CHUNK_HEADER_BYTES && available > 0 && in.getByte(start + PREFIX_BYTES) == MessageType.FILE_CHUNK.code;
      if (chunk) {
        if (available < CHUNK_HEADER_BYTES) {
          return;
        }
        in.skipBytes(PREFIX_BYTES + 1);
        chunkRequestId = in.readLong();
        chunkOffset = in.readLong();
        chunkRemaining = length - CHUNK_HEADER_BYTES;
        if (chunkRemaining == 0) {
          out.add(new FileChunk(chunkRequestId, chunkOffset, in.readRetainedSlice(0)));
        }
        continue;
      }
      if (available < length) {
        return;
      }
      in.skipBytes(PREFIX_BYTES);
      out.add(in.readRetainedSlice((int) length));
    }
  }
}

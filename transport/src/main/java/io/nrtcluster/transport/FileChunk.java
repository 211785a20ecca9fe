package io.nrtcluster.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.DefaultByteBufHolder;

/**
 * One frame of file data of a {@link Message.FetchFile} stream, starting at {@code offset} in the
 * file. Reference counted: whoever takes it from the pipeline releases it.
 */
public final class FileChunk extends DefaultByteBufHolder implements Message {
  private final long requestId;
  private final long offset;

  public FileChunk(long requestId, long offset, ByteBuf data) {
    super(data);
    this.requestId = requestId;
    this.offset = offset;
  }

  @Override
  public long requestId() {
    return requestId;
  }

  public long offset() {
    return offset;
  }

  @Override
  public FileChunk replace(ByteBuf content) {
    return new FileChunk(requestId, offset, content);
  }

  @Override
  public String toString() {
    return "FileChunk(requestId=" + requestId + ", offset=" + offset + ", bytes=" + content().readableBytes() + ")";
  }
}

package io.nrtcluster.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.DefaultByteBufHolder;
import io.nrtcluster.common.Internal;

/**
 * One frame of file data of a {@link Message.FetchFile} stream, starting at {@code offset} in the
 * file. Reference counted: whoever takes it from the pipeline releases it.
 *
 * <p>A chunk the bit-flip fault point corrupted remembers where (never on the wire: only the
 * receiving side marks it), so that every injected flip is accounted for exactly once in its
 * transport's {@link FaultStats}: handed to a reader ({@link #takeFlip}) or released unread, which
 * counts it as discarded.
 */
@Internal
public final class FileChunk extends DefaultByteBufHolder implements Message {
  private final long requestId;
  private final long offset;
  /** The transport that flipped a bit in this chunk, or null. Receiving side only. */
  private FaultStats flipLedger;
  /** File offset of the byte holding the flipped bit. */
  private long flipOffset = -1;

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

  /** The bit-flip fault point flipped a bit in the byte at file offset {@code fileOffset}. */
  void flipped(FaultStats ledger, long fileOffset) {
    this.flipLedger = ledger;
    this.flipOffset = fileOffset;
  }

  /**
   * Bytes {@code [from, from + n)} of the file are handed to a reader: when they hold this chunk's
   * flipped byte, the flip is counted as delivered and true returned (once).
   */
  boolean takeFlip(long from, int n) {
    FaultStats ledger = flipLedger;
    if (ledger == null || flipOffset < from || flipOffset >= from + n) {
      return false;
    }
    flipLedger = null;
    ledger.flipDelivered();
    return true;
  }

  /** Releasing a chunk whose flipped byte was never handed to a reader discards the flip. */
  private void settleUnread() {
    FaultStats ledger = flipLedger;
    if (ledger != null) {
      flipLedger = null;
      ledger.flipDropped();
    }
  }

  @Override
  public boolean release() {
    settleUnread();
    return super.release();
  }

  @Override
  public boolean release(int decrement) {
    settleUnread();
    return super.release(decrement);
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

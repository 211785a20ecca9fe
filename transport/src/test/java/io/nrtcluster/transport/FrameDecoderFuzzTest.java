package io.nrtcluster.transport;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;

/**
 * Arbitrary bytes into the inbound half of the real pipeline (the length-field frame decoder and
 * {@link MessageDecoder}, as {@link TransportPipeline#addCodec} installs them) on an {@link
 * EmbeddedChannel}. Guarantees checked on every input:
 *
 * <ul>
 *   <li>the only failures are typed ones ({@link FuzzContract#isTyped}); the first one ends the input,
 *       as the real handlers then close the connection;
 *   <li>no buffer is asked for more than the frame limit allows (Netty's cumulation grows in powers
 *       of two, hence the factor 2), and the thread allocates no more heap than {@link
 *       FuzzContract#requireBoundedAllocation} allows, whatever lengths and counts the bytes claim;
 *   <li>every buffer is released once the channel is closed, decoded messages included.
 * </ul>
 *
 * <p>The stream is fed in chunks of {@code 1 + length % 61} bytes so frames also arrive split. The
 * committed seed corpus ({@code FrameDecoderFuzzTestInputs/frameStream/}) holds real frames of every
 * type from {@link MessageEncoder} and edge cases; {@code mvn test} replays it (regression mode), and
 * {@code JAZZER_FUZZ=1} fuzzes (see docs/testing.md, "Fuzzing").
 *
 * <p>No {@code @Timeout} of its own: Jazzer would apply it to a whole fuzzing session; in regression
 * mode the suite's default per-test timeout applies to each input.
 */
class FrameDecoderFuzzTest {
  /** Small enough that the fuzzer reaches both sides of the limit with short inputs. */
  static final int MAX_FRAME = 1024;

  private static final int MAX_CHUNK = 61;

  @FuzzTest(maxDuration = "30s")
  void frameStream(byte[] stream) throws Throwable {
    feed(stream);
    FuzzContract.requireBoundedAllocation(stream.length, "the frame decoder", () -> feed(stream));
  }

  /** Feeds {@code stream} to a fresh pipeline, closes it and checks that nothing leaked. */
  private static void feed(byte[] stream) throws Throwable {
    TrackingAllocator alloc = new TrackingAllocator();
    Outcome outcome = new Outcome();
    EmbeddedChannel ch = new EmbeddedChannel();
    ch.config().setAllocator(alloc);
    ch.pipeline().addLast(TransportPipeline.frameDecoder(MAX_FRAME), new MessageDecoder(), outcome);
    try {
      int chunk = 1 + stream.length % MAX_CHUNK;
      for (int at = 0; at < stream.length && outcome.refusal == null; at += chunk) {
        int n = Math.min(chunk, stream.length - at);
        ch.writeInbound(alloc.heapBuffer(n).writeBytes(stream, at, n));
      }
    } finally {
      // Closing decodes what is left in the cumulation once more; the same contract holds.
      ch.finishAndReleaseAll();
    }
    if (outcome.finding != null) {
      throw outcome.finding;
    }
    alloc.requireAllReleased();
  }

  /**
   * Last handler, in place of the connection's own: releases what is decoded and sorts failures
   * into the typed refusal that ends the connection and findings. Handling them here keeps
   * EmbeddedChannel from logging (and allocating for) every later failure of the same input.
   */
  private static final class Outcome extends ChannelInboundHandlerAdapter {
    Throwable refusal;
    Throwable finding;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (!(msg instanceof Message) && finding == null) {
        finding = new AssertionError("the decoder produced " + msg.getClass() + ", not a Message");
      }
      ReferenceCountUtil.release(msg);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      if (!FuzzContract.isTyped(cause)) {
        if (finding == null) {
          finding = cause;
        }
      } else if (refusal == null) {
        refusal = cause;
      }
    }
  }

  /**
   * Heap-only allocator that remembers every buffer it hands out and refuses (as a finding)
   * capacities beyond what one frame plus one chunk can need.
   */
  static final class TrackingAllocator extends AbstractByteBufAllocator {
    static final int MAX_CAPACITY = 2 * (MAX_FRAME + 4 + MAX_CHUNK);

    private final List<ByteBuf> handedOut = new ArrayList<>();

    TrackingAllocator() {
      super(false);
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
      if (initialCapacity > MAX_CAPACITY) {
        throw new AssertionError("asked for a " + initialCapacity + "-byte buffer; frames are at most " + MAX_FRAME);
      }
      ByteBuf b = UnpooledByteBufAllocator.DEFAULT.heapBuffer(initialCapacity, maxCapacity);
      handedOut.add(b);
      return b;
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
      return newHeapBuffer(initialCapacity, maxCapacity);
    }

    @Override
    public boolean isDirectBufferPooled() {
      return false;
    }

    void requireAllReleased() {
      for (ByteBuf b : handedOut) {
        if (b.refCnt() != 0) {
          throw new AssertionError("leaked a buffer of " + b.capacity() + " bytes");
        }
      }
    }
  }
}

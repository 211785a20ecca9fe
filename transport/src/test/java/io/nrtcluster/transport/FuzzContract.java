package io.nrtcluster.transport;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.nrtcluster.common.NrtClusterException;
import java.lang.management.ManagementFactory;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.Objects;

/**
 * What the fuzz tests accept from code that reads hostile bytes, and nothing else.
 *
 * <p>Accepted failures are exactly the project's typed errors: an {@link NrtClusterException} (any
 * subtype), Netty's {@link TooLongFrameException} from the frame decoder, or a {@link
 * DecoderException} whose cause is one of those (how {@code MessageToMessageDecoder} wraps what a
 * decoder throws). Every other {@link Throwable}, checked or not, is a finding and is rethrown
 * unchanged so that Jazzer reports (and deduplicates) it by its own stack trace.
 */
final class FuzzContract {
  /**
   * Heap a decoder may allocate on one input: a fixed allowance for Netty's and the JDK's own
   * bookkeeping plus a multiple of the bytes really received. A decoder that believes a length,
   * count or capacity written in the input (up to 2^31) blows through it at once.
   */
  static final long FIXED_ALLOWANCE = 1 << 20;

  static final long PER_INPUT_BYTE = 64;

  private static final com.sun.management.ThreadMXBean THREADS = threads();

  private FuzzContract() {}

  /** Returns normally when {@code t} is a typed refusal; rethrows anything else as a finding. */
  static void requireTyped(Throwable t) throws Throwable {
    if (!isTyped(t)) {
      throw t;
    }
  }

  static boolean isTyped(Throwable t) {
    if (t instanceof NrtClusterException || t instanceof TooLongFrameException) {
      return true;
    }
    return t instanceof DecoderException
        && (t.getCause() instanceof NrtClusterException || t.getCause() instanceof TooLongFrameException);
  }

  /** Bytes the current thread has allocated so far, or -1 where the JVM cannot tell. */
  static long allocatedBytes() {
    return THREADS == null ? -1 : THREADS.getCurrentThreadAllocatedBytes();
  }

  /** Code under measurement; may throw whatever the code under test throws. */
  interface Run {
    void run() throws Throwable;
  }

  /**
   * Runs {@code run} (typed failures allowed) and fails when the current thread allocated more heap
   * than {@code inputBytes} allow. The caller runs the same input once before, unmeasured, so that
   * class loading and Jazzer's lazy instrumentation are not counted: a deterministic parser
   * allocates the same on a rerun.
   */
  static void requireBoundedAllocation(int inputBytes, String what, Run run) throws Throwable {
    long before = allocatedBytes();
    try {
      run.run();
    } catch (Throwable t) {
      requireTyped(t);
    }
    if (before < 0) {
      return;
    }
    long used = allocatedBytes() - before;
    long bound = FIXED_ALLOWANCE + PER_INPUT_BYTE * inputBytes;
    if (used > bound) {
      throw new AssertionError(what + " allocated " + used + " bytes for a " + inputBytes + "-byte input (bound " + bound + ")");
    }
  }

  /**
   * Fails unless {@code a} and {@code b} carry the same fields: records component by component
   * (arrays by content), file chunks by id, offset and data bytes.
   */
  static void requireSameMessage(Message a, Message b) {
    if (a.getClass() != b.getClass() || a.requestId() != b.requestId()) {
      throw new AssertionError("round trip changed " + a + " into " + b);
    }
    if (a instanceof FileChunk ca) {
      FileChunk cb = (FileChunk) b;
      if (ca.offset() != cb.offset() || !Arrays.equals(bytes(ca.content()), bytes(cb.content()))) {
        throw new AssertionError("round trip changed " + a + " into " + b);
      }
      return;
    }
    for (RecordComponent c : a.getClass().getRecordComponents()) {
      Object va = get(c, a);
      Object vb = get(c, b);
      if (va instanceof Message ma && vb instanceof Message mb) {
        // A message inside a message (an NRT point's copy-state): compared the same way.
        requireSameMessage(ma, mb);
        continue;
      }
      if (!Objects.deepEquals(va, vb)) {
        throw new AssertionError("round trip changed " + c.getName() + " of " + a + ": " + va + " became " + vb);
      }
    }
  }

  private static Object get(RecordComponent c, Object record) {
    try {
      return c.getAccessor().invoke(record);
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(e);
    }
  }

  private static byte[] bytes(ByteBuf b) {
    byte[] out = new byte[b.readableBytes()];
    b.getBytes(b.readerIndex(), out);
    return out;
  }

  private static com.sun.management.ThreadMXBean threads() {
    if (ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean t
        && t.isThreadAllocatedMemorySupported()) {
      t.setThreadAllocatedMemoryEnabled(true);
      return t;
    }
    return null;
  }
}

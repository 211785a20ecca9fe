package io.nrtcluster.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.nrtcluster.common.ErrorCode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The fault-injection point that corrupts received file data. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BitFlipHandlerTest {
  private static final int CHUNKS = 200;

  @RegisterExtension final TestSeed seed = new TestSeed();

  private static FaultStats stats(double probability, long faultSeed) {
    return new FaultStats(FaultInjection.builder().bitFlipProbability(probability).seed(faultSeed).build());
  }

  /** Sends {@link #CHUNKS} random chunks through a handler; returns the flipped bit per chunk, -1 for none. */
  private List<Long> run(FaultStats stats, long dataSeed) {
    EmbeddedChannel ch = new EmbeddedChannel(new BitFlipHandler(stats));
    Random random = new Random(dataSeed);
    List<Long> flipped = new ArrayList<>();
    try {
      for (int i = 0; i < CHUNKS; i++) {
        byte[] original = new byte[1 + random.nextInt(4096)];
        random.nextBytes(original);
        ch.writeInbound(new FileChunk(i, i * 4096L, Unpooled.copiedBuffer(original)));
        FileChunk out = ch.readInbound();
        assertThat(out.requestId()).isEqualTo(i);
        assertThat(out.offset()).isEqualTo(i * 4096L);
        byte[] received = WireTestUtil.bytesOf(out);
        assertThat(received).hasSameSizeAs(original);
        flipped.add(singleFlippedBit(original, received));
      }
    } finally {
      assertThat(ch.finishAndReleaseAll()).isFalse();
    }
    return flipped;
  }

  /** The index of the one bit that differs, -1 if none; fails if more than one differs. */
  private static long singleFlippedBit(byte[] a, byte[] b) {
    long found = -1;
    int differing = 0;
    for (int i = 0; i < a.length; i++) {
      int x = (a[i] ^ b[i]) & 0xFF;
      differing += Integer.bitCount(x);
      if (x != 0) {
        found = i * 8L + Integer.numberOfTrailingZeros(x);
      }
    }
    assertThat(differing).as("bits differing in one chunk").isLessThanOrEqualTo(1);
    return found;
  }

  @Test
  void probabilityOneFlipsExactlyOneBitPerChunk() {
    FaultStats stats = stats(1.0, seed.seed());
    List<Long> flipped = run(stats, seed.seed());
    assertThat(flipped).as("seed=%d", seed.seed()).doesNotContain(-1L);
    assertThat(stats.bitFlipsInjected()).isEqualTo(CHUNKS);
  }

  @Test
  void probabilityZeroChangesNothing() {
    FaultStats stats = stats(0.0, seed.seed());
    List<Long> flipped = run(stats, seed.seed());
    assertThat(flipped).containsOnly(-1L);
    assertThat(stats.bitFlipsInjected()).isZero();
  }

  @Test
  void partialProbabilityFlipsAsManyBitsAsItCounts() {
    FaultStats stats = stats(0.3, seed.seed());
    List<Long> flipped = run(stats, seed.seed());
    long corrupted = flipped.stream().filter(b -> b >= 0).count();
    assertThat(stats.bitFlipsInjected()).as("seed=%d", seed.seed()).isEqualTo(corrupted);
    // 200 draws at p=0.3: at least one flip and at least one clean chunk, except with odds of ~1e-31.
    assertThat(corrupted).as("seed=%d", seed.seed()).isBetween(1L, (long) CHUNKS - 1);
  }

  @Test
  void sameSeedFlipsTheSameBits() {
    long faultSeed = seed.seed();
    List<Long> first = run(stats(1.0, faultSeed), 1234);
    List<Long> second = run(stats(1.0, faultSeed), 1234);
    assertThat(second).as("fault seed=%d", faultSeed).isEqualTo(first);

    List<Long> half1 = run(stats(0.5, faultSeed), 99);
    List<Long> half2 = run(stats(0.5, faultSeed), 99);
    assertThat(half2).as("fault seed=%d", faultSeed).isEqualTo(half1);

    List<Long> other = run(stats(1.0, faultSeed + 1), 1234);
    assertThat(other).as("another seed gives another schedule").isNotEqualTo(first);
  }

  @Test
  void flipsOnlyInsideTheReadableBytesOfTheChunk() {
    FaultStats stats = stats(1.0, seed.seed());
    EmbeddedChannel ch = new EmbeddedChannel(new BitFlipHandler(stats));
    for (int i = 0; i < 100; i++) {
      ByteBuf backing = Unpooled.buffer(64).writeZero(64);
      backing.readerIndex(20).writerIndex(24);
      ch.writeInbound(new FileChunk(1, 0, backing));
      FileChunk out = ch.readInbound();
      assertThat(out.content()).isSameAs(backing);
      int outside = 0;
      int inside = 0;
      for (int b = 0; b < 64; b++) {
        int bits = Integer.bitCount(backing.getByte(b) & 0xFF);
        if (b >= 20 && b < 24) {
          inside += bits;
        } else {
          outside += bits;
        }
      }
      assertThat(outside).as("seed=%d", seed.seed()).isZero();
      assertThat(inside).isEqualTo(1);
      out.release();
    }
    assertThat(ch.finishAndReleaseAll()).isFalse();
  }

  @Test
  void emptyChunkIsLeftAloneAndNotCounted() {
    FaultStats stats = stats(1.0, seed.seed());
    EmbeddedChannel ch = new EmbeddedChannel(new BitFlipHandler(stats));
    ch.writeInbound(new FileChunk(1, 0, Unpooled.EMPTY_BUFFER));
    FileChunk out = ch.readInbound();
    assertThat(out.content().readableBytes()).isZero();
    assertThat(stats.bitFlipsInjected()).isZero();
    assertThat(ch.finishAndReleaseAll()).isFalse();
  }

  @Test
  void otherMessagesPassUntouched() {
    FaultStats stats = stats(1.0, seed.seed());
    EmbeddedChannel ch = new EmbeddedChannel(new BitFlipHandler(stats));
    byte[] infos = {1, 2, 3, 4};
    List<Object> messages =
        List.of(
            new Message.Ping(1),
            new Message.FileHeader(2, 100, 0),
            new Message.ErrorReply(3, ErrorCode.INTERNAL, "x"),
            new Message.CopyStateReply(4, 1, 1, 1, 1, infos, Map.of(), Set.of()),
            new Message.Credit(5, 10),
            "not a message at all");
    for (Object m : messages) {
      ch.writeInbound(m);
      assertThat(ch.<Object>readInbound()).isSameAs(m);
    }
    assertThat(infos).containsExactly(1, 2, 3, 4);
    assertThat(stats.bitFlipsInjected()).isZero();
    assertThat(ch.finishAndReleaseAll()).isFalse();
  }
}

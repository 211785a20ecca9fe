package io.nrtcluster.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.TooLongFrameException;
import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.ProtocolException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hostile and broken frames: each must be refused with {@link ProtocolException} (or {@link
 * TooLongFrameException} from the frame decoder), quickly and without allocating what the frame
 * claims.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MalformedFrameTest {
  @RegisterExtension final TestSeed seed = new TestSeed();

  /** Builds a frame body: type code, request id, then whatever {@code fields} writes. */
  private static byte[] frame(MessageType type, Consumer<ByteBuf> fields) {
    ByteBuf b = Unpooled.buffer();
    b.writeByte(type.code);
    b.writeLong(1);
    fields.accept(b);
    byte[] bytes = new byte[b.readableBytes()];
    b.readBytes(bytes);
    return bytes;
  }

  private static void assertRefused(byte[] body, String messagePart) {
    ByteBuf in = Unpooled.wrappedBuffer(body);
    try {
      assertThatThrownBy(() -> MessageDecoder.decode(in))
          .isInstanceOf(ProtocolException.class)
          .hasMessageContaining(messagePart)
          .satisfies(e -> assertThat(((ProtocolException) e).code()).isEqualTo(ErrorCode.PROTOCOL));
    } finally {
      in.release();
    }
  }

  @Test
  void unknownTypeCode() {
    for (int code : new int[] {0, 6, 9, 18, 19, 28, 127, 128, 255}) {
      byte[] body = new byte[9];
      body[0] = (byte) code;
      assertRefused(body, "unknown message type " + code);
    }
  }

  @Test
  void frameShorterThanItsHeader() {
    assertRefused(new byte[0], "frame header");
    assertRefused(new byte[] {MessageType.PING.code}, "frame header");
    assertRefused(Arrays.copyOf(new byte[] {MessageType.PING.code}, 8), "frame header");
  }

  static Stream<Arguments> validMessages() {
    Map<String, FileMeta> files = Map.of("_0.cfs", MessageCodecTest.meta(1, 10), "_0.si", MessageCodecTest.meta(2, 20));
    return Stream.of(
            new Message.Hello(1, 1, "cluster", "index", 3, PeerRole.REPLICA),
            new Message.HelloOk(1, 7, 42, PeerRole.PRIMARY),
            new Message.ErrorReply(1, ErrorCode.INTERNAL, "boom"),
            new Message.Ack(1),
            new Message.Ping(1),
            new Message.GetCopyState(1, 2),
            new Message.CopyStateReply(1, 2, 3, 4, 5, new byte[] {9, 9, 9}, files, Set.of("_1.cfs", "_1.si")),
            new Message.ReleaseCopyState(1, 2),
            new Message.FetchFile(1, Message.SourceKind.MERGE_PRECOPY, 2, "_0.cfs", 3, 4),
            new Message.FileHeader(1, 2, 3),
            new Message.Credit(1, 2),
            new Message.Cancel(1),
            new Message.NrtPoint(1, 2, 3),
            new Message.NewReplica(1, 2, 3),
            new Message.PreCopyMerge(1, 2, 3, files),
            new Message.PreCopyProgress(1, 2),
            new Message.PreCopyDone(1, true),
            new Message.ReportCorruptFile(1, 2, "_0.cfs", 3, 4, 5),
            new Message.FileVerdict(1, Message.Verdict.INTACT, "fine"))
        .map(m -> Arguments.of(m.getClass().getSimpleName(), m));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("validMessages")
  void everyTruncationIsRefused(String kind, Message m) throws Exception {
    byte[] body = WireTestUtil.body(m);
    assertThat(WireTestUtil.decode(body)).as("the untouched frame decodes").isNotNull();
    for (int len = 0; len < body.length; len++) {
      byte[] cut = Arrays.copyOf(body, len);
      ByteBuf in = Unpooled.wrappedBuffer(cut);
      try {
        assertThatThrownBy(() -> MessageDecoder.decode(in))
            .as("%s cut to %d of %d bytes", kind, len, body.length)
            .isInstanceOf(ProtocolException.class);
      } finally {
        in.release();
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("validMessages")
  void trailingBytesAreRefused(String kind, Message m) {
    byte[] body = WireTestUtil.body(m);
    for (int extra = 1; extra <= 3; extra++) {
      assertRefused(Arrays.copyOf(body, body.length + extra), "trailing bytes");
    }
  }

  @Test
  void corruptFileReportWithImpossibleFieldsIsRefused() {
    assertRefused(frame(MessageType.REPORT_CORRUPT_FILE, b -> {
      b.writeLong(1);
      WireFormat.writeString(b, "_0.cfs");
      b.writeLong(-1).writeLong(0).writeInt(3);
    }), "bad reported length -1");
    assertRefused(frame(MessageType.REPORT_CORRUPT_FILE, b -> {
      b.writeLong(1);
      WireFormat.writeString(b, "_0.cfs");
      b.writeLong(10).writeLong(0).writeInt(0);
    }), "failure count 0");
    assertRefused(frame(MessageType.FILE_VERDICT, b -> {
      b.writeByte(3);
      WireFormat.writeString(b, "");
    }), "unknown verdict 3");
  }

  @Test
  void fileChunkTakesTheWholeRestOfTheFrameAndNeedsAnOffset() throws Exception {
    assertRefused(frame(MessageType.FILE_CHUNK, b -> b.writeInt(7)), "chunk offset");
    ByteBuf in = Unpooled.wrappedBuffer(frame(MessageType.FILE_CHUNK, b -> b.writeLong(5).writeZero(10)));
    FileChunk c = (FileChunk) MessageDecoder.decode(in);
    assertThat(c.offset()).isEqualTo(5);
    assertThat(c.content().readableBytes()).isEqualTo(10);
    assertThat(in.refCnt()).as("chunk retains a slice of the frame").isEqualTo(2);
    c.release();
    in.release();
    assertThat(in.refCnt()).isZero();
  }

  private static void copyStateHeader(ByteBuf b) {
    b.writeLong(1).writeLong(2).writeLong(3).writeLong(4);
  }

  @Test
  void copyStateClaimingTwoBillionFilesInASmallFrameFailsFast() {
    byte[] body =
        frame(
            MessageType.COPY_STATE,
            b -> {
              copyStateHeader(b);
              b.writeInt(0); // no infos
              b.writeInt(Integer.MAX_VALUE); // file count
              b.writeZero(100 - b.readableBytes());
            });
    assertThat(body).hasSize(100);
    long before = System.nanoTime();
    assertRefused(body, "file count " + Integer.MAX_VALUE);
    assertThat(System.nanoTime() - before).as("refused without work").isLessThan(TimeUnit.SECONDS.toNanos(1));
  }

  @Test
  void copyStateCountsThatDoNotFitAreRefused() {
    for (int count : new int[] {-1, Integer.MIN_VALUE, 5, 1 << 20, Integer.MAX_VALUE}) {
      assertRefused(
          frame(MessageType.COPY_STATE, b -> { copyStateHeader(b); b.writeInt(0); b.writeInt(count); b.writeZero(40); }),
          "file count " + count);
      assertRefused(
          frame(MessageType.COPY_STATE, b -> { copyStateHeader(b); b.writeInt(0); b.writeInt(0); b.writeInt(count); b.writeZero(4); }),
          "name count " + count);
    }
  }

  @Test
  void negativeOrHugeByteArrayLengthIsRefused() {
    assertRefused(
        frame(MessageType.COPY_STATE, b -> { copyStateHeader(b); b.writeInt(-1); b.writeZero(50); }),
        "negative byte array length");
    assertRefused(
        frame(MessageType.COPY_STATE, b -> { copyStateHeader(b); b.writeInt(Integer.MAX_VALUE); b.writeZero(50); }),
        "truncated frame reading bytes");
  }

  @Test
  void preCopyMergeWithHugeFileCountIsRefused() {
    assertRefused(
        frame(MessageType.PRE_COPY_MERGE, b -> b.writeLong(1).writeLong(2).writeInt(Integer.MAX_VALUE).writeZero(60)),
        "file count");
    assertRefused(
        frame(MessageType.PRE_COPY_MERGE, b -> b.writeLong(1).writeLong(2).writeInt(-7)),
        "file count -7");
  }

  private static void fileEntry(ByteBuf b, String name, long length) {
    WireFormat.writeString(b, name);
    WireFormat.writeShortBytes(b, new byte[] {1});
    WireFormat.writeShortBytes(b, new byte[] {2});
    b.writeLong(length).writeLong(0);
  }

  @Test
  void negativeFileLengthIsRefused() {
    assertRefused(
        frame(MessageType.PRE_COPY_MERGE, b -> { b.writeLong(1).writeLong(2).writeInt(1); fileEntry(b, "_0.cfs", -1); }),
        "negative file length");
  }

  @Test
  void duplicateFileNameIsRefused() {
    assertRefused(
        frame(MessageType.PRE_COPY_MERGE, b -> {
          b.writeLong(1).writeLong(2).writeInt(2);
          fileEntry(b, "_0.cfs", 1);
          fileEntry(b, "_0.cfs", 2);
        }),
        "duplicate file name");
  }

  @Test
  void stringLongerThanTheFrameIsRefused() {
    assertRefused(
        frame(MessageType.HELLO, b -> b.writeInt(1).writeShort(65535).writeBytes(new byte[10])),
        "truncated frame reading string");
    assertRefused(
        frame(MessageType.FETCH_FILE, b -> b.writeByte(1).writeLong(1).writeShort(200).writeBytes(new byte[20])),
        "truncated frame reading string");
  }

  @Test
  void shortByteFieldLongerThanTheFrameIsRefused() {
    assertRefused(
        frame(MessageType.PRE_COPY_MERGE, b -> {
          b.writeLong(1).writeLong(2).writeInt(1);
          WireFormat.writeString(b, "_0.cfs");
          b.writeShort(60000).writeZero(30);
        }),
        "truncated frame reading bytes");
  }

  @Test
  void nonPositiveCreditIsRefused() {
    for (int credit : new int[] {0, -1, Integer.MIN_VALUE}) {
      assertRefused(frame(MessageType.CREDIT, b -> b.writeInt(credit)), "non-positive credit " + credit);
    }
  }

  @Test
  void fetchWithNegativeOffsetOrNonPositiveWindowIsRefused() {
    assertRefused(
        frame(MessageType.FETCH_FILE, b -> { b.writeByte(1).writeLong(1); WireFormat.writeString(b, "_0.cfs"); b.writeLong(-1).writeInt(10); }),
        "bad fetch offset -1");
    assertRefused(
        frame(MessageType.FETCH_FILE, b -> { b.writeByte(1).writeLong(1); WireFormat.writeString(b, "_0.cfs"); b.writeLong(Long.MIN_VALUE).writeInt(10); }),
        "bad fetch offset");
    assertRefused(
        frame(MessageType.FETCH_FILE, b -> { b.writeByte(2).writeLong(1); WireFormat.writeString(b, "_0.cfs"); b.writeLong(0).writeInt(0); }),
        "window 0");
    assertRefused(
        frame(MessageType.FETCH_FILE, b -> { b.writeByte(2).writeLong(1); WireFormat.writeString(b, "_0.cfs"); b.writeLong(0).writeInt(-5); }),
        "window -5");
  }

  @Test
  void unknownFetchSourceKindIsRefused() {
    for (int kind : new int[] {0, 4, -1}) {
      assertRefused(
          frame(MessageType.FETCH_FILE, b -> { b.writeByte(kind).writeLong(1); WireFormat.writeString(b, "x"); b.writeLong(0).writeInt(1); }),
          "unknown fetch source kind");
    }
  }

  @Test
  void unknownPeerRoleIsRefused() {
    assertRefused(
        frame(MessageType.HELLO, b -> { b.writeInt(1); WireFormat.writeString(b, "c"); WireFormat.writeString(b, "i"); b.writeInt(1).writeByte(0); }),
        "unknown peer role 0");
    assertRefused(frame(MessageType.HELLO_OK, b -> b.writeInt(1).writeLong(1).writeByte(9)), "unknown peer role 9");
  }

  /**
   * Random garbage and randomly damaged valid frames: the decoder either returns a message or
   * throws ProtocolException, never any other exception.
   */
  @Test
  void fuzzedFramesOnlyEverRaiseProtocolException() {
    Random random = seed.random();
    List<byte[]> valid = validMessages().map(a -> WireTestUtil.body((Message) a.get()[1])).toList();
    for (int i = 0; i < 50_000; i++) {
      byte[] body;
      if (i % 2 == 0) {
        body = new byte[random.nextInt(80)];
        random.nextBytes(body);
        if (body.length > 0) {
          body[0] = (byte) (1 + random.nextInt(24)); // mostly known types
        }
      } else {
        byte[] base = valid.get(random.nextInt(valid.size()));
        body = Arrays.copyOf(base, Math.max(0, base.length + random.nextInt(9) - 4));
        for (int flips = random.nextInt(4); flips > 0 && body.length > 0; flips--) {
          body[random.nextInt(body.length)] = (byte) random.nextInt(256);
        }
      }
      // Not wrappedBuffer: an empty array would wrap to EMPTY_BUFFER, which is not reference counted.
      ByteBuf in = Unpooled.buffer(body.length).writeBytes(body);
      try {
        Message m = MessageDecoder.decode(in);
        if (m instanceof FileChunk c) {
          c.release();
        }
      } catch (ProtocolException expected) {
        // fine
      } catch (RuntimeException e) {
        throw new AssertionError("seed=" + seed.seed() + " frame=" + Arrays.toString(body), e);
      } finally {
        in.release();
      }
      assertThat(in.refCnt()).as("seed=%d: frame leaked", seed.seed()).isZero();
    }
  }

  @Test
  void oversizedFrameIsRefusedByTheFrameDecoder() {
    int max = 64 * 1024;
    EmbeddedChannel ch = WireTestUtil.codecChannel(max);
    ByteBuf frame = Unpooled.buffer().writeInt(max + 1).writeByte(MessageType.FILE_CHUNK.code).writeLong(1).writeLong(0);
    assertThatThrownBy(() -> ch.writeInbound(frame)).isInstanceOf(TooLongFrameException.class);
    assertThat(frame.refCnt()).isZero();

    EmbeddedChannel huge = WireTestUtil.codecChannel(max);
    ByteBuf hugePrefix = Unpooled.buffer().writeInt(Integer.MAX_VALUE);
    assertThatThrownBy(() -> huge.writeInbound(hugePrefix)).isInstanceOf(TooLongFrameException.class);
    assertThat(ch.<Object>readInbound()).isNull();
    assertThat(huge.<Object>readInbound()).isNull();
    ch.finishAndReleaseAll();
    huge.finishAndReleaseAll();
  }

  @Test
  void lengthPrefixWithTheSignBitSetIsRefusedAsTooLong() {
    // The prefix is read unsigned: 0xFFFFFFFF is a 4 GiB frame, not a negative one.
    EmbeddedChannel ch = WireTestUtil.codecChannel(64 * 1024);
    ByteBuf frame = Unpooled.buffer().writeInt(-1).writeLong(0);
    assertThatThrownBy(() -> ch.writeInbound(frame)).isInstanceOf(TooLongFrameException.class);
    assertThat(ch.<Object>readInbound()).isNull();
    ch.finishAndReleaseAll();
  }

  @Test
  void malformedFrameInThePipelineRaisesProtocolException() {
    EmbeddedChannel ch = WireTestUtil.codecChannel(64 * 1024);
    ByteBuf frame = Unpooled.buffer().writeInt(9).writeByte(99).writeLong(1);
    assertThatThrownBy(() -> ch.writeInbound(frame))
        .isInstanceOf(io.netty.handler.codec.DecoderException.class)
        .hasCauseInstanceOf(ProtocolException.class)
        .hasStackTraceContaining("unknown message type 99");
    assertThat(frame.refCnt()).isZero();
    assertThat(ch.finishAndReleaseAll()).isFalse();
  }
}

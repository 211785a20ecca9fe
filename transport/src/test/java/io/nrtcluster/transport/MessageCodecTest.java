package io.nrtcluster.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.FileRegion;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.EncoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.ProtocolException;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Round trips of every message through the real codec pieces (frame decoder, {@link
 * MessageEncoder}, {@link MessageDecoder}) on embedded channels, including reference counting of
 * file data and zero-copy {@link FileRegionChunk}s.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MessageCodecTest {
  private static final int MAX_FRAME = 64 * 1024;

  @RegisterExtension final TestSeed seed = new TestSeed();

  @TempDir Path dir;

  private EmbeddedChannel sender;
  private EmbeddedChannel receiver;

  @BeforeEach
  void setUp() {
    sender = WireTestUtil.codecChannel(MAX_FRAME);
    receiver = WireTestUtil.codecChannel(MAX_FRAME);
  }

  @AfterEach
  void tearDown() {
    assertThat(sender.finishAndReleaseAll()).as("sender left over messages").isFalse();
    assertThat(receiver.finishAndReleaseAll()).as("receiver left over messages").isFalse();
  }

  static FileMeta meta(int seed, long length) {
    byte[] header = new byte[10 + seed];
    byte[] footer = new byte[16];
    Arrays.fill(header, (byte) seed);
    Arrays.fill(footer, (byte) (seed * 7));
    return new FileMeta(header, footer, length, 0xCAFEBABEL + seed);
  }

  static Map<String, FileMeta> files() {
    Map<String, FileMeta> files = new LinkedHashMap<>();
    files.put("_0.cfs", meta(1, 12345));
    files.put("_0.si", meta(2, 0));
    files.put("_1_Lucene90_0.dvd", meta(3, Long.MAX_VALUE));
    files.put("ünïcödé_名前", meta(4, 1));
    return files;
  }

  /** One sample of every message kind except file data, which has its own tests. */
  static Stream<Arguments> simpleMessages() {
    return Stream.of(
            new Message.Hello(1, WireFormat.PROTOCOL_VERSION, "cluster-a", "index_1", 3, PeerRole.REPLICA),
            new Message.Hello(Long.MAX_VALUE, -1, "", "", Integer.MIN_VALUE, PeerRole.CLIENT),
            new Message.HelloOk(1, 7, 42, PeerRole.PRIMARY),
            new Message.HelloOk(2, 0, -1, PeerRole.REPLICA),
            new Message.ErrorReply(9, ErrorCode.FILE_NOT_SERVABLE, "no such file: _3.cfs"),
            new Message.ErrorReply(0, ErrorCode.PROTOCOL, ""),
            new Message.ErrorReply(5, ErrorCode.STORAGE, "disk full ∅"),
            new Message.Ack(17),
            new Message.Installed(18, 4, 1234, -7L),
            new Message.CopySource(19, 5, 3, "10.0.0.7:9301"),
            new Message.CopySource(20, 5, -1, ""),
            new Message.FetchFile(21, Message.SourceKind.PEER, 0xFFFFFFFFL, "_2.cfs", 0, 65536),
            new Message.Ping(Long.MIN_VALUE),
            new Message.GetCopyState(3, 12),
            new Message.ReleaseCopyState(4, 99),
            new Message.FetchFile(5, Message.SourceKind.COPY_STATE, 99, "_0.cfs", 0, 65536),
            new Message.FetchFile(6, Message.SourceKind.MERGE_PRECOPY, 7, "_5.cfe", 123456789012L, 1),
            new Message.FileHeader(5, 1L << 40, 4096),
            new Message.Credit(5, Integer.MAX_VALUE),
            new Message.Cancel(5),
            new Message.NrtPoint(8, 3, 1L << 33),
            new Message.NewReplica(9, 2, -1),
            new Message.PreCopyProgress(10, 1L << 35),
            new Message.PreCopyDone(10, true),
            new Message.PreCopyDone(11, false),
            new Message.ReportCorruptFile(12, 4, "_3_Lucene90_0.dvd", 1L << 34, 0xFFFFFFFFL, 3),
            new Message.ReportCorruptFile(13, -1, "segments_9", 0, 0, Integer.MAX_VALUE),
            new Message.FileVerdict(12, Message.Verdict.CORRUPT, "checksum failed (hardware problem?)"),
            new Message.FileVerdict(13, Message.Verdict.INTACT, ""))
        .map(m -> Arguments.of(m.getClass().getSimpleName(), m));
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("simpleMessages")
  void roundTripsSimpleMessages(String kind, Message m) {
    Message decoded = roundTrip(m);
    assertThat(decoded).isEqualTo(m);
  }

  @Test
  void everyMessageTypeHasARoundTripSample() {
    List<MessageType> covered = new ArrayList<>();
    simpleMessages().forEach(a -> covered.add(MessageType.of((Message) a.get()[1])));
    covered.add(MessageType.COPY_STATE);
    covered.add(MessageType.NRT_POINT_COPY_STATE);
    covered.add(MessageType.PRE_COPY_MERGE);
    covered.add(MessageType.FILE_CHUNK);
    assertThat(covered).containsAll(List.of(MessageType.values()));
  }

  @Test
  void roundTripsCopyStateReply() {
    byte[] infos = new byte[3000];
    seed.random().nextBytes(infos);
    Map<String, FileMeta> files = files();
    Set<String> merged = Set.of("_4.cfs", "_4.cfe", "_4.si");
    Message.CopyStateReply m = new Message.CopyStateReply(21, 77, 5, 1234, 9, infos, files, merged, "kafka:3:88812");

    Message.CopyStateReply d = (Message.CopyStateReply) roundTrip(m);

    assertThat(d.requestId()).isEqualTo(21);
    assertThat(d.copyStateId()).isEqualTo(77);
    assertThat(d.primaryGen()).isEqualTo(5);
    assertThat(d.version()).isEqualTo(1234);
    assertThat(d.gen()).isEqualTo(9);
    assertThat(d.infosBytes()).isEqualTo(infos);
    assertFilesEqual(d.files(), files);
    assertThat(d.completedMergeFiles()).containsExactlyInAnyOrderElementsOf(merged);
    assertThat(d.replayPosition()).isEqualTo("kafka:3:88812");
  }

  @Test
  void roundTripsNrtPointWithItsCopyState() {
    byte[] infos = new byte[500];
    seed.random().nextBytes(infos);
    Map<String, FileMeta> files = files();
    Message.NrtPointCopyState m = new Message.NrtPointCopyState(22,
        new Message.CopyStateReply(22, 78, 5, 1235, 9, infos, files, Set.of("_4.cfs"), null));

    Message.NrtPointCopyState d = (Message.NrtPointCopyState) roundTrip(m);

    assertThat(d.requestId()).isEqualTo(22);
    assertThat(d.state().requestId()).isEqualTo(22);
    assertThat(d.state().copyStateId()).isEqualTo(78);
    assertThat(d.state().version()).isEqualTo(1235);
    assertThat(d.state().infosBytes()).isEqualTo(infos);
    assertFilesEqual(d.state().files(), files);
    assertThat(d.state().completedMergeFiles()).containsExactly("_4.cfs");
    assertThat(d.state().replayPosition()).isNull();
  }

  @Test
  void roundTripsEmptyCopyStateReply() {
    Message.CopyStateReply m =
        new Message.CopyStateReply(1, 2, 3, 4, 5, new byte[0], Map.of(), Set.of());
    Message.CopyStateReply d = (Message.CopyStateReply) roundTrip(m);
    assertThat(d.infosBytes()).isEmpty();
    assertThat(d.files()).isEmpty();
    assertThat(d.completedMergeFiles()).isEmpty();
    assertThat(d.copyStateId()).isEqualTo(2);
    assertThat(d.replayPosition()).isNull();
  }

  @Test
  void roundTripsPreCopyMerge() {
    Map<String, FileMeta> files = files();
    Message.PreCopyMerge m = new Message.PreCopyMerge(31, 8, 4, files);
    Message.PreCopyMerge d = (Message.PreCopyMerge) roundTrip(m);
    assertThat(d.requestId()).isEqualTo(31);
    assertThat(d.preCopyId()).isEqualTo(8);
    assertThat(d.primaryGen()).isEqualTo(4);
    assertFilesEqual(d.files(), files);
  }

  private static void assertFilesEqual(Map<String, FileMeta> actual, Map<String, FileMeta> expected) {
    assertThat(actual.keySet()).containsExactlyInAnyOrderElementsOf(expected.keySet());
    for (Map.Entry<String, FileMeta> e : expected.entrySet()) {
      FileMeta a = actual.get(e.getKey());
      FileMeta x = e.getValue();
      assertThat(a.header()).as("header of %s", e.getKey()).isEqualTo(x.header());
      assertThat(a.footer()).as("footer of %s", e.getKey()).isEqualTo(x.footer());
      assertThat(a.length()).as("length of %s", e.getKey()).isEqualTo(x.length());
      assertThat(a.checksum()).as("checksum of %s", e.getKey()).isEqualTo(x.checksum());
    }
    assertThat(actual).isEqualTo(expected);
  }

  @Test
  void roundTripsFileChunkAndReleasesEveryBuffer() {
    byte[] data = new byte[20_000];
    seed.random().nextBytes(data);
    ByteBuf content = Unpooled.buffer(data.length).writeBytes(data);
    FileChunk chunk = new FileChunk(12, 1L << 32, content);

    assertThat(sender.writeOutbound(chunk)).isTrue();
    // The encoder consumed the message: the content is held only by the outbound queue now.
    assertThat(chunk.refCnt()).isEqualTo(1);
    List<ByteBuf> wire = new ArrayList<>();
    Object o;
    while ((o = sender.readOutbound()) != null) {
      wire.add((ByteBuf) o);
    }
    assertThat(wire).hasSize(2);
    assertThat(wire.get(1)).isSameAs(content);
    assertThat(wire.get(0).getInt(0)).as("length prefix").isEqualTo(1 + 8 + 8 + data.length);

    for (ByteBuf b : wire) {
      receiver.writeInbound(b);
    }
    FileChunk decoded = receiver.readInbound();
    assertThat(decoded.requestId()).isEqualTo(12);
    assertThat(decoded.offset()).isEqualTo(1L << 32);
    assertThat(decoded.refCnt()).isEqualTo(1);
    assertThat(WireTestUtil.bytesOf(decoded)).isEqualTo(data);
    assertThat(decoded.refCnt()).isZero();
    for (ByteBuf b : wire) {
      assertThat(b.refCnt()).as("wire buffer leaked").isZero();
    }
  }

  @Test
  void roundTripsEmptyFileChunk() {
    FileChunk decoded = (FileChunk) roundTrip(new FileChunk(3, 100, Unpooled.EMPTY_BUFFER));
    assertThat(decoded.offset()).isEqualTo(100);
    assertThat(WireTestUtil.bytesOf(decoded)).isEmpty();
  }

  @Test
  void fileChunkOfASliceSendsOnlyTheReadableBytes() {
    ByteBuf backing = Unpooled.buffer(100);
    for (int i = 0; i < 100; i++) {
      backing.writeByte(i);
    }
    backing.readerIndex(10).writerIndex(60);
    FileChunk decoded = (FileChunk) roundTrip(new FileChunk(1, 10, backing));
    byte[] expected = new byte[50];
    for (int i = 0; i < 50; i++) {
      expected[i] = (byte) (i + 10);
    }
    assertThat(WireTestUtil.bytesOf(decoded)).isEqualTo(expected);
    assertThat(backing.refCnt()).isZero();
  }

  @Test
  void fileRegionChunkIsAHeaderFollowedByTheRegionAndDecodesAsAFileChunk() throws Exception {
    byte[] data = new byte[50_000];
    seed.random().nextBytes(data);
    Path file = dir.resolve("data.bin");
    Files.write(file, data);
    int position = 1_000;
    int count = 30_000;
    DefaultFileRegion region = new DefaultFileRegion(file.toFile(), position, count);

    assertThat(sender.writeOutbound(new FileRegionChunk(77, position, region))).isTrue();
    Object header = sender.readOutbound();
    Object body = sender.readOutbound();
    assertThat(sender.<Object>readOutbound()).isNull();
    assertThat(header).isInstanceOf(ByteBuf.class);
    assertThat(body).isSameAs(region);

    ByteBuf h = (ByteBuf) header;
    assertThat(h.readableBytes()).isEqualTo(4 + 1 + 8 + 8);
    assertThat(h.getInt(0)).as("length prefix covers the region").isEqualTo(1 + 8 + 8 + count);
    assertThat(h.getByte(4)).isEqualTo(MessageType.FILE_CHUNK.code);
    assertThat(h.getLong(5)).isEqualTo(77);
    assertThat(h.getLong(13)).isEqualTo(position);

    ByteArrayOutputStream wire = new ByteArrayOutputStream();
    wire.writeBytes(WireTestUtil.drain(header));
    wire.writeBytes(WireTestUtil.drain(body));
    assertThat(region.refCnt()).as("region released after transfer").isZero();

    receiver.writeInbound(Unpooled.wrappedBuffer(wire.toByteArray()));
    FileChunk decoded = receiver.readInbound();
    assertThat(decoded.requestId()).isEqualTo(77);
    assertThat(decoded.offset()).isEqualTo(position);
    assertThat(WireTestUtil.bytesOf(decoded)).isEqualTo(Arrays.copyOfRange(data, position, position + count));
  }

  @Test
  void framesSplitAtEveryByteBoundaryDecodeInOrder() {
    Random random = seed.random();
    byte[] data = new byte[5000];
    random.nextBytes(data);
    List<Message> messages =
        List.of(
            new Message.Ping(1),
            new Message.CopyStateReply(2, 3, 4, 5, 6, data, files(), Set.of("a")),
            new Message.FileHeader(7, 5000, 0),
            new Message.Credit(7, 100),
            new Message.PreCopyDone(8, true));
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    for (Message m : messages) {
      all.writeBytes(WireTestUtil.encode(m));
    }
    all.writeBytes(WireTestUtil.encode(new FileChunk(7, 0, Unpooled.wrappedBuffer(data))));
    byte[] bytes = all.toByteArray();

    // One byte at a time, then random-sized pieces.
    for (int round = 0; round < 2; round++) {
      int pos = 0;
      while (pos < bytes.length) {
        int n = round == 0 ? 1 : Math.min(bytes.length - pos, 1 + random.nextInt(700));
        receiver.writeInbound(Unpooled.copiedBuffer(bytes, pos, n));
        pos += n;
      }
      assertThat((Message) receiver.readInbound()).isEqualTo(messages.get(0));
      Message.CopyStateReply cs = receiver.readInbound();
      assertThat(cs.infosBytes()).isEqualTo(data);
      assertFilesEqual(cs.files(), files());
      assertThat((Message) receiver.readInbound()).isEqualTo(messages.get(2));
      assertThat((Message) receiver.readInbound()).isEqualTo(messages.get(3));
      assertThat((Message) receiver.readInbound()).isEqualTo(messages.get(4));
      // File data goes on as it arrives: consecutive pieces that together are exactly the frame's data.
      ByteArrayOutputStream received = new ByteArrayOutputStream();
      Object next;
      while ((next = receiver.readInbound()) != null) {
        FileChunk piece = (FileChunk) next;
        assertThat(piece.requestId()).isEqualTo(7);
        assertThat(piece.offset()).as("seed=%d", seed.seed()).isEqualTo(received.size());
        assertThat(piece.content().readableBytes()).isPositive();
        received.writeBytes(WireTestUtil.bytesOf(piece));
      }
      assertThat(received.toByteArray()).as("seed=%d", seed.seed()).isEqualTo(data);
    }
  }

  @Test
  void fileDataArrivingWithTheWholeFrameIsOnePieceAndAPartialFrameGoesOnAtOnce() {
    byte[] data = new byte[10_000];
    seed.random().nextBytes(data);
    byte[] frame = WireTestUtil.encode(new FileChunk(9, 1_000, Unpooled.wrappedBuffer(data)));
    receiver.writeInbound(Unpooled.wrappedBuffer(frame));
    FileChunk whole = receiver.readInbound();
    assertThat(whole.offset()).isEqualTo(1_000);
    assertThat(WireTestUtil.bytesOf(whole)).isEqualTo(data);

    // The header and 100 bytes of data: those 100 bytes are delivered without waiting for the rest.
    int header = 4 + 17;
    receiver.writeInbound(Unpooled.copiedBuffer(frame, 0, header + 100));
    FileChunk first = receiver.readInbound();
    assertThat(first.offset()).isEqualTo(1_000);
    assertThat(WireTestUtil.bytesOf(first)).isEqualTo(Arrays.copyOfRange(data, 0, 100));
    receiver.writeInbound(Unpooled.copiedBuffer(frame, header + 100, frame.length - header - 100));
    FileChunk rest = receiver.readInbound();
    assertThat(rest.offset()).isEqualTo(1_100);
    assertThat(WireTestUtil.bytesOf(rest)).isEqualTo(Arrays.copyOfRange(data, 100, data.length));
    assertThat(receiver.<Object>readInbound()).isNull();
  }

  @Test
  void fileDataIsNotCopiedOnTheWay() {
    byte[] frame = WireTestUtil.encode(new FileChunk(3, 0, Unpooled.wrappedBuffer(new byte[50_000])));
    ByteBuf headerRead = Unpooled.copiedBuffer(frame, 0, 4 + 17);
    ByteBuf dataRead = Unpooled.directBuffer(frame.length).writeBytes(frame, 4 + 17, frame.length - 4 - 17);
    receiver.writeInbound(headerRead);
    receiver.writeInbound(dataRead);
    FileChunk chunk = receiver.readInbound();
    // A slice of the very buffer the socket read filled, not a gathered copy. Compared below any
    // wrapper: leak detection wraps a sampled allocation (1 in 128 at Netty's default level).
    assertThat(root(chunk.content())).isSameAs(root(dataRead));
    chunk.release();
    assertThat(dataRead.refCnt()).isZero();
  }

  /** The buffer under every derived or leak-tracking wrapper. */
  private static ByteBuf root(ByteBuf b) {
    ByteBuf inner = b;
    while (inner.unwrap() != null) {
      inner = inner.unwrap();
    }
    return inner;
  }

  @Test
  void aFrameOfExactlyMaxFrameBytesIsAcceptedByBothSides() {
    // Frame length (the value of the length prefix) = type + id + offset + data = maxFrameBytes.
    byte[] data = new byte[MAX_FRAME - 17];
    seed.random().nextBytes(data);
    FileChunk decoded = (FileChunk) roundTrip(new FileChunk(1, 0, Unpooled.wrappedBuffer(data)));
    assertThat(WireTestUtil.bytesOf(decoded)).isEqualTo(data);
  }

  @Test
  void encoderRefusesAFrameAboveMaxFrameBytesAndReleasesTheData() {
    ByteBuf content = Unpooled.buffer(MAX_FRAME).writeZero(MAX_FRAME - 16);
    assertThatThrownBy(() -> sender.writeOutbound(new FileChunk(1, 0, content)))
        .isInstanceOf(EncoderException.class)
        .hasCauseInstanceOf(ProtocolException.class)
        .hasMessageContaining("maxFrameBytes");
    assertThat(content.refCnt()).isZero();
    assertThat(sender.<Object>readOutbound()).isNull();
  }

  @Test
  void encoderRefusesAnOversizedFileRegionAndReleasesIt() throws Exception {
    Path file = dir.resolve("big.bin");
    Files.write(file, new byte[MAX_FRAME]);
    FileRegion region = new DefaultFileRegion(file.toFile(), 0, MAX_FRAME);
    assertThatThrownBy(() -> sender.writeOutbound(new FileRegionChunk(1, 0, region)))
        .isInstanceOf(EncoderException.class)
        .hasCauseInstanceOf(ProtocolException.class);
    assertThat(region.refCnt()).isZero();
    assertThat(sender.<Object>readOutbound()).isNull();
  }

  @Test
  void encoderRefusesAStringLongerThanTheWireAllows() {
    String name = "x".repeat(WireFormat.MAX_STRING_BYTES + 1);
    assertThatThrownBy(
            () -> sender.writeOutbound(new Message.FetchFile(1, Message.SourceKind.COPY_STATE, 1, name, 0, 1)))
        .isInstanceOf(EncoderException.class)
        .hasCauseInstanceOf(IllegalArgumentException.class);
    assertThat(sender.<Object>readOutbound()).isNull();
  }

  @Test
  void errorReplyTextIsCappedAndNullBecomesEmpty() {
    Message.ErrorReply longText = (Message.ErrorReply) roundTrip(new Message.ErrorReply(1, ErrorCode.INTERNAL, "e".repeat(10_000)));
    assertThat(longText.message()).isEqualTo("e".repeat(4096));
    Message.ErrorReply nullText = (Message.ErrorReply) roundTrip(new Message.ErrorReply(2, ErrorCode.INTERNAL, null));
    assertThat(nullText.message()).isEmpty();
  }

  @Test
  void unknownErrorCodeDecodesAsInternal() throws Exception {
    byte[] body = WireTestUtil.body(new Message.ErrorReply(1, ErrorCode.TIMEOUT, "x"));
    body[9 + 3] = 99; // low byte of the big-endian code
    Message.ErrorReply d = (Message.ErrorReply) WireTestUtil.decode(body);
    assertThat(d.code()).isEqualTo(ErrorCode.INTERNAL);
    assertThat(d.message()).isEqualTo("x");
  }

  @Test
  void frameDecoderRefusesALengthPrefixAboveMaxFrameBytesWithoutWaitingForTheBody() {
    ByteBuf prefix = Unpooled.buffer(4).writeInt(MAX_FRAME + 1);
    assertThatThrownBy(() -> receiver.writeInbound(prefix)).isInstanceOf(TooLongFrameException.class);
    assertThat(prefix.refCnt()).isZero();
    assertThat(receiver.<Object>readInbound()).isNull();
  }

  @Test
  void emptyFrameIsAProtocolError() {
    assertThatThrownBy(() -> receiver.writeInbound(Unpooled.buffer(4).writeInt(0)))
        .isInstanceOf(DecoderException.class)
        .hasCauseInstanceOf(ProtocolException.class);
  }

  @Test
  void decodedCollectionsAreImmutable() {
    Message.CopyStateReply d =
        (Message.CopyStateReply)
            roundTrip(new Message.CopyStateReply(1, 2, 3, 4, 5, new byte[1], new HashMap<>(files()), Set.of("x")));
    assertThatThrownBy(() -> d.files().clear()).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> d.completedMergeFiles().clear()).isInstanceOf(UnsupportedOperationException.class);
  }

  /** Encodes on the sender, moves every outbound byte to the receiver, returns the one decoded message. */
  private Message roundTrip(Message m) {
    assertThat(sender.writeOutbound(m)).isTrue();
    Object o;
    while ((o = sender.readOutbound()) != null) {
      ByteBuf b = o instanceof ByteBuf buf ? buf : Unpooled.wrappedBuffer(WireTestUtil.drain(o));
      receiver.writeInbound(b);
    }
    Message decoded = receiver.readInbound();
    assertThat(decoded).as("decoded message").isNotNull();
    assertThat(receiver.<Object>readInbound()).as("exactly one message").isNull();
    return decoded;
  }
}

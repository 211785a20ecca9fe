package io.nrtcluster.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.nrtcluster.common.ErrorCode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;

/**
 * The committed seed corpus of the transport fuzz tests, made by the real {@link MessageEncoder}:
 * one valid frame of every message type plus edge cases (limits, lies, truncations). {@link
 * FuzzSeedCorpusTest} checks the committed files still equal what this class makes, so a change to
 * the wire format shows up as a failing test until the corpus is rewritten with
 *
 * <pre>{@code mvn -q -B test -pl transport -am -Dtest=FuzzSeedCorpusTest -Dsurefire.failIfNoSpecifiedTests=false \
 *   -Dnrt.fuzz.writeSeeds=src/test/resources}</pre>
 */
final class FuzzSeedCorpus {
  static final String FRAME_STREAM = "io/nrtcluster/transport/FrameDecoderFuzzTestInputs/frameStream";
  static final String FRAME_BODY = "io/nrtcluster/transport/MessageParsersFuzzTestInputs/frameBody";
  static final String FILE_LIST = "io/nrtcluster/transport/MessageParsersFuzzTestInputs/fileListPayload";

  private FuzzSeedCorpus() {}

  /** One valid message of every type, with deterministic contents. */
  static List<Message> samples() {
    Map<String, FileMeta> files = new LinkedHashMap<>();
    files.put("_0.cfs", meta(1, 1000));
    files.put("_0.si", meta(2, 400));
    files.put("segments_2", meta(3, 160));
    Map<String, FileMeta> merged = new LinkedHashMap<>();
    merged.put("_1.cfs", meta(4, 2000));
    return List.of(
        new Message.Hello(1, WireFormat.PROTOCOL_VERSION, "mini", "docs", 1, PeerRole.REPLICA),
        new Message.HelloOk(1, 0, 3, PeerRole.PRIMARY),
        new Message.ErrorReply(7, ErrorCode.FILE_NOT_SERVABLE, "file '_9.cfs' is not in copy-state 4"),
        new Message.Ack(8),
        new Message.Ping(9),
        new Message.GetCopyState(10, 1),
        new Message.CopyStateReply(10, 4, 3, 17, 2, new byte[] {0x3f, (byte) 0xd7, 0x6c, 0x17, 1, 2, 3}, files,
            new LinkedHashSet<>(List.of("_0.cfs")), "offset-1234"),
        new Message.CopyStateReply(11, 5, 3, 18, 2, new byte[0], Map.of(), java.util.Set.of()),
        new Message.ReleaseCopyState(12, 4),
        new Message.FetchFile(13, Message.SourceKind.COPY_STATE, 4, "_0.cfs", 0, 256 * 1024),
        new Message.FetchFile(14, Message.SourceKind.MERGE_PRECOPY, 2, "_1.cfs", 512, 65536),
        new Message.FileHeader(13, 1000, 0),
        new FileChunk(13, 0, Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})),
        new Message.Credit(13, 65536),
        new Message.Cancel(14),
        new Message.NrtPoint(15, 3, 18),
        new Message.NrtPointCopyState(19, new Message.CopyStateReply(19, 6, 3, 19, 2, new byte[] {1, 2}, files,
            new LinkedHashSet<>(List.of("_0.cfs")), "offset-1235")),
        new Message.NewReplica(16, 1, 17),
        new Message.PreCopyMerge(17, 2, 3, merged),
        new Message.PreCopyProgress(17, 4096),
        new Message.PreCopyDone(17, true),
        new Message.ReportCorruptFile(18, 3, "_0.cfs", 1000, 0xC0FFEEL, 3),
        new Message.FileVerdict(18, Message.Verdict.CORRUPT, "checksum failed"),
        new Message.Installed(20, 3, 19, 0x5EED_1234L),
        new Message.CopySource(21, 3, 2, "127.0.0.1:9302"));
  }

  private static FileMeta meta(int seed, long length) {
    byte[] header = new byte[24];
    byte[] footer = new byte[16];
    Arrays.fill(header, (byte) seed);
    Arrays.fill(footer, (byte) -seed);
    return new FileMeta(header, footer, length, 0xC0FFEEL * seed);
  }

  /** File name (without directory) to contents, for the frame decoder's stream corpus. */
  static Map<String, byte[]> frameStreamSeeds() {
    Map<String, byte[]> out = new LinkedHashMap<>();
    List<Message> samples = samples();
    for (int i = 0; i < samples.size(); i++) {
      out.put(String.format("valid-%02d-%s", i, MessageType.of(samples.get(i)).name().toLowerCase()), WireTestUtil.encode(samples.get(i)));
    }
    ByteArrayOutputStream session = new ByteArrayOutputStream();
    for (Message m : List.of(samples.get(0), samples.get(5), samples.get(9), samples.get(13), samples.get(14), samples.get(4))) {
      session.writeBytes(WireTestUtil.encode(m));
    }
    out.put("stream-replica-session", session.toByteArray());
    byte[] hello = WireTestUtil.encode(samples.get(0));
    out.put("edge-truncated-prefix", new byte[] {0, 0});
    out.put("edge-truncated-body", Arrays.copyOf(hello, hello.length / 2));
    out.put("edge-zero-length", new byte[] {0, 0, 0, 0});
    out.put("edge-header-only-length", prefixed(9, new byte[] {4, 0, 0, 0, 0, 0, 0, 0, 1}));
    out.put("edge-length-above-max", prefixed(FrameDecoderFuzzTest.MAX_FRAME + 1, new byte[32]));
    out.put("edge-length-sign-bit", prefixed(-1, new byte[16]));
    out.put("edge-length-int-max", prefixed(Integer.MAX_VALUE, new byte[16]));
    ByteBuf chunk = Unpooled.buffer().writeByte(MessageType.FILE_CHUNK.code).writeLong(1).writeLong(0);
    chunk.writeZero(FrameDecoderFuzzTest.MAX_FRAME - chunk.readableBytes());
    out.put("edge-exactly-max-frame", prefixed(chunk.readableBytes(), toArray(chunk)));
    byte[] trailing = bodyOf(samples.get(3), new byte[] {1, 2, 3});
    out.put("edge-trailing-bytes", prefixed(trailing.length, trailing));
    frameBodyEdgeCases().forEach((name, body) -> out.put("body-" + name, prefixed(body.length, body)));
    return out;
  }

  /** Frame bodies (no length prefix) for the message parser corpus. */
  static Map<String, byte[]> frameBodySeeds() {
    Map<String, byte[]> out = new LinkedHashMap<>();
    List<Message> samples = samples();
    for (int i = 0; i < samples.size(); i++) {
      out.put(String.format("valid-%02d-%s", i, MessageType.of(samples.get(i)).name().toLowerCase()), WireTestUtil.body(samples.get(i)));
    }
    out.putAll(frameBodyEdgeCases());
    return out;
  }

  /** FuzzedDataProvider inputs: deterministic random bytes, which it shapes into file lists. */
  static Map<String, byte[]> fileListSeeds() {
    Map<String, byte[]> out = new LinkedHashMap<>();
    Random random = new Random(20_260_101L);
    for (int i = 0; i < 12; i++) {
      byte[] b = new byte[64 + random.nextInt(448)];
      random.nextBytes(b);
      out.put(String.format("random-%02d", i), b);
    }
    return out;
  }

  private static Map<String, byte[]> frameBodyEdgeCases() {
    Map<String, byte[]> out = new LinkedHashMap<>();
    out.put("empty", new byte[0]);
    out.put("unknown-type-0", body(0, b -> {}));
    out.put("unknown-type-255", body(255, b -> {}));
    out.put("copy-state-file-count-int-max", body(MessageType.COPY_STATE.code, b -> {
      b.writeLong(1).writeLong(2).writeLong(3).writeLong(4).writeInt(0).writeInt(Integer.MAX_VALUE).writeZero(64);
    }));
    out.put("copy-state-name-count-negative", body(MessageType.COPY_STATE.code, b -> {
      b.writeLong(1).writeLong(2).writeLong(3).writeLong(4).writeInt(0).writeInt(0).writeInt(-1).writeZero(8);
    }));
    out.put("copy-state-infos-length-int-max", body(MessageType.COPY_STATE.code, b -> {
      b.writeLong(1).writeLong(2).writeLong(3).writeLong(4).writeInt(Integer.MAX_VALUE).writeZero(32);
    }));
    out.put("copy-state-infos-length-negative", body(MessageType.COPY_STATE.code, b -> {
      b.writeLong(1).writeLong(2).writeLong(3).writeLong(4).writeInt(-1).writeZero(32);
    }));
    out.put("pre-copy-duplicate-name", body(MessageType.PRE_COPY_MERGE.code, b -> {
      b.writeLong(1).writeLong(2).writeInt(2);
      fileEntry(b, "_0.cfs", 100);
      fileEntry(b, "_0.cfs", 200);
    }));
    out.put("pre-copy-negative-length", body(MessageType.PRE_COPY_MERGE.code, b -> {
      b.writeLong(1).writeLong(2).writeInt(1);
      fileEntry(b, "_0.cfs", -1);
    }));
    out.put("pre-copy-header-longer-than-frame", body(MessageType.PRE_COPY_MERGE.code, b -> {
      b.writeLong(1).writeLong(2).writeInt(1);
      WireFormat.writeString(b, "_0.cfs");
      b.writeShort(65535).writeZero(30);
    }));
    out.put("hello-string-longer-than-frame", body(MessageType.HELLO.code, b -> b.writeInt(1).writeShort(65535).writeZero(10)));
    out.put("hello-unknown-role", body(MessageType.HELLO.code, b -> {
      b.writeInt(1);
      WireFormat.writeString(b, "mini");
      WireFormat.writeString(b, "docs");
      b.writeInt(1).writeByte(0);
    }));
    out.put("hello-invalid-utf8", body(MessageType.HELLO.code, b -> {
      b.writeInt(1).writeShort(4).writeBytes(new byte[] {(byte) 0xC3, (byte) 0x28, (byte) 0xFF, (byte) 0x80});
      WireFormat.writeString(b, "docs");
      b.writeInt(1).writeByte(2);
    }));
    out.put("fetch-path-traversal", body(MessageType.FETCH_FILE.code, b -> {
      b.writeByte(1).writeLong(4);
      WireFormat.writeString(b, "../../../../etc/passwd");
      b.writeLong(0).writeInt(65536);
    }));
    out.put("fetch-unknown-source-kind", body(MessageType.FETCH_FILE.code, b -> {
      b.writeByte(3).writeLong(4);
      WireFormat.writeString(b, "_0.cfs");
      b.writeLong(0).writeInt(65536);
    }));
    out.put("fetch-negative-offset-zero-window", body(MessageType.FETCH_FILE.code, b -> {
      b.writeByte(1).writeLong(4);
      WireFormat.writeString(b, "_0.cfs");
      b.writeLong(Long.MIN_VALUE).writeInt(0);
    }));
    out.put("credit-zero", body(MessageType.CREDIT.code, b -> b.writeInt(0)));
    out.put("credit-int-min", body(MessageType.CREDIT.code, b -> b.writeInt(Integer.MIN_VALUE)));
    out.put("error-unknown-code", body(MessageType.ERROR.code, b -> {
      b.writeInt(9999);
      WireFormat.writeString(b, "?");
    }));
    out.put("chunk-without-offset", body(MessageType.FILE_CHUNK.code, b -> b.writeInt(7)));
    return out;
  }

  private static void fileEntry(ByteBuf b, String name, long length) {
    WireFormat.writeString(b, name);
    WireFormat.writeShortBytes(b, new byte[] {1, 2, 3});
    WireFormat.writeShortBytes(b, new byte[] {4, 5, 6});
    b.writeLong(length).writeLong(42);
  }

  private static byte[] body(int type, Consumer<ByteBuf> fields) {
    ByteBuf b = Unpooled.buffer().writeByte(type).writeLong(1);
    fields.accept(b);
    return toArray(b);
  }

  private static byte[] bodyOf(Message m, byte[] extra) {
    byte[] body = WireTestUtil.body(m);
    byte[] out = Arrays.copyOf(body, body.length + extra.length);
    System.arraycopy(extra, 0, out, body.length, extra.length);
    return out;
  }

  private static byte[] prefixed(int length, byte[] rest) {
    return toArray(Unpooled.buffer().writeInt(length).writeBytes(rest));
  }

  private static byte[] toArray(ByteBuf b) {
    try {
      byte[] out = new byte[b.readableBytes()];
      b.readBytes(out);
      return out;
    } finally {
      b.release();
    }
  }

  /** Every corpus directory (relative to the test resources) with the files it should hold. */
  static Map<String, Map<String, byte[]>> all() {
    Map<String, Map<String, byte[]>> out = new LinkedHashMap<>();
    out.put(FRAME_STREAM, frameStreamSeeds());
    out.put(FRAME_BODY, frameBodySeeds());
    out.put(FILE_LIST, fileListSeeds());
    return out;
  }

  /** Writes the corpus under {@code resources} (a test resources folder). */
  static void write(Path resources) throws IOException {
    for (Map.Entry<String, Map<String, byte[]>> dir : all().entrySet()) {
      Path d = resources.resolve(dir.getKey());
      Files.createDirectories(d);
      for (Map.Entry<String, byte[]> f : dir.getValue().entrySet()) {
        Files.write(d.resolve(f.getKey()), f.getValue());
      }
    }
  }
}

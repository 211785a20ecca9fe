package io.nrtcluster.transport;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.ReferenceCountUtil;
import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.ProtocolException;
import java.util.Map;

/**
 * The message and payload parsers ({@link MessageDecoder#decode} and the {@link WireFormat} field
 * readers: strings, byte arrays, file lists, name sets) on one frame body at a time, below the
 * frame decoder. Guarantees checked on every input, beyond the typed-failure and allocation bounds
 * of {@link FuzzContract}:
 *
 * <ul>
 *   <li>a body that decodes is a fixed point of the codec: the real encoder can send the message
 *       again and decoding that gives the same fields (nothing a node accepts is something it could
 *       not forward or answer with);
 *   <li>a body that is refused yields the {@code ERROR} reply the node sends back, and that reply
 *       itself encodes and decodes with the same code;
 *   <li>a decoded file list never holds a negative length; the frame's bytes are released.
 * </ul>
 *
 * <p>{@link #frameBody} takes raw bytes (seeds: the real encoder's bodies of every type and edge
 * cases); {@link #fileListPayload} builds {@code COPY_STATE} and {@code PRE_COPY_MERGE} bodies with
 * a {@link FuzzedDataProvider}, telling the truth or lying about every count and length, to reach
 * deep into the file-list parser quickly.
 *
 * <p>No {@code @Timeout} of its own: Jazzer would apply it to a whole fuzzing session; in regression
 * mode the suite's default per-test timeout applies to each input.
 */
class MessageParsersFuzzTest {
  private static final String[] NAMES = {
    "_0.cfs", "_0.si", "segments_2", "../x", "..", ".", "", "a/b", "a\\b", "/etc/passwd", "_0.cfs\u0000", "\u00e9", "\uFFFD"
  };

  @FuzzTest(maxDuration = "30s")
  void frameBody(byte[] body) throws Throwable {
    check(body);
  }

  @FuzzTest(maxDuration = "30s")
  void fileListPayload(FuzzedDataProvider data) throws Throwable {
    ByteBuf b = Unpooled.buffer();
    boolean preCopy = data.consumeBoolean();
    b.writeByte(preCopy ? MessageType.PRE_COPY_MERGE.code : MessageType.COPY_STATE.code);
    b.writeLong(data.consumeLong());
    b.writeLong(data.consumeLong()).writeLong(data.consumeLong());
    if (!preCopy) {
      b.writeLong(data.consumeLong()).writeLong(data.consumeLong());
      byte[] infos = data.consumeBytes(data.consumeInt(0, 64));
      b.writeInt(data.consumeBoolean() ? infos.length : data.consumeInt());
      b.writeBytes(infos);
    }
    int files = data.consumeInt(0, 6);
    b.writeInt(data.consumeBoolean() ? files : data.consumeInt());
    for (int i = 0; i < files; i++) {
      writeString(b, data);
      writeShortBytes(b, data);
      writeShortBytes(b, data);
      b.writeLong(data.consumeBoolean() ? data.consumeLong(0, 1L << 40) : data.consumeLong());
      b.writeLong(data.consumeLong());
    }
    if (!preCopy) {
      int names = data.consumeInt(0, 6);
      b.writeInt(data.consumeBoolean() ? names : data.consumeInt());
      for (int i = 0; i < names; i++) {
        writeString(b, data);
      }
      boolean position = data.consumeBoolean();
      b.writeByte(position ? 1 : 0);
      if (position) {
        writeString(b, data);
      }
    }
    b.writeBytes(data.consumeRemainingAsBytes());
    byte[] body = new byte[b.readableBytes()];
    b.readBytes(body);
    b.release();
    check(body);
  }

  /** A string field whose length prefix is true, or whatever the fuzzer says. */
  private static void writeString(ByteBuf b, FuzzedDataProvider data) {
    byte[] s =
        data.consumeBoolean()
            ? data.pickValue(NAMES).getBytes(java.nio.charset.StandardCharsets.UTF_8)
            : data.consumeBytes(data.consumeInt(0, 40));
    b.writeShort(data.consumeBoolean() ? s.length : data.consumeInt(0, 65535));
    b.writeBytes(s);
  }

  private static void writeShortBytes(ByteBuf b, FuzzedDataProvider data) {
    byte[] s = data.consumeBytes(data.consumeInt(0, 40));
    b.writeShort(data.consumeBoolean() ? s.length : data.consumeInt(0, 65535));
    b.writeBytes(s);
  }

  private static void check(byte[] body) throws Throwable {
    ByteBuf in = buffer(body);
    Message m;
    try {
      m = decode(in);
    } finally {
      in.release();
    }
    if (m != null) {
      try {
        requireSane(m);
        // The encoder releases what it sends: keep m for the comparison.
        Message again = WireTestUtil.decode(WireTestUtil.body(ReferenceCountUtil.retain(m)));
        try {
          FuzzContract.requireSameMessage(m, again);
        } finally {
          release(again);
        }
      } finally {
        release(m);
      }
    }
    if (in.refCnt() != 0) {
      throw new AssertionError("the frame was not released");
    }
    FuzzContract.requireBoundedAllocation(body.length, "MessageDecoder.decode", () -> {
      ByteBuf again = buffer(body);
      try {
        release(decode(again));
      } finally {
        again.release();
      }
    });
  }

  /** Not wrappedBuffer: an empty array would wrap to EMPTY_BUFFER, which is not reference counted. */
  private static ByteBuf buffer(byte[] body) {
    return Unpooled.buffer(body.length).writeBytes(body);
  }

  /** Decodes {@code in}; null when it was refused (with a typed error whose reply reaches the peer). */
  private static Message decode(ByteBuf in) throws Throwable {
    try {
      return MessageDecoder.decode(in);
    } catch (Throwable t) {
      FuzzContract.requireTyped(t);
      if (t instanceof NrtClusterException e) {
        requireAnswerable(e);
      }
      return null;
    }
  }

  private static void release(Message m) {
    if (m instanceof FileChunk c) {
      c.release();
    }
  }

  /** The reply {@code ConnectionHandler.protocolError} would send must reach the peer intact. */
  private static void requireAnswerable(NrtClusterException e) throws ProtocolException {
    Message reply = WireTestUtil.decode(WireTestUtil.body(new Message.ErrorReply(0, e.code(), e.getMessage())));
    if (!(reply instanceof Message.ErrorReply r) || r.code() != e.code() || e.code() != ErrorCode.PROTOCOL) {
      throw new AssertionError("a refused frame yields " + reply + " for " + e);
    }
  }

  private static void requireSane(Message m) {
    Map<String, FileMeta> files =
        switch (m) {
          case Message.CopyStateReply c -> c.files();
          case Message.PreCopyMerge p -> p.files();
          default -> Map.of();
        };
    files.forEach((name, meta) -> {
      if (meta.length() < 0) {
        throw new AssertionError("decoded a negative length for " + name);
      }
    });
  }
}

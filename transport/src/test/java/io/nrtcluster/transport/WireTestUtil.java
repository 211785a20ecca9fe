package io.nrtcluster.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.FileRegion;
import io.netty.channel.embedded.EmbeddedChannel;
import io.nrtcluster.common.ProtocolException;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Byte-level helpers shared by the transport tests. */
final class WireTestUtil {
  static final int MAX_FRAME = 1024 * 1024;

  private WireTestUtil() {}

  /** The pipeline pieces of {@link TransportPipeline#addCodec}, without a transport. */
  static EmbeddedChannel codecChannel(int maxFrameBytes) {
    return new EmbeddedChannel(
        TransportPipeline.frameDecoder(maxFrameBytes), new MessageEncoder(maxFrameBytes), new MessageDecoder());
  }

  /** Everything the encoder writes for {@code m}, length prefix included. */
  static byte[] encode(Message m) {
    EmbeddedChannel ch = new EmbeddedChannel(new MessageEncoder(MAX_FRAME));
    try {
      ch.writeOutbound(m);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      Object o;
      while ((o = ch.readOutbound()) != null) {
        out.writeBytes(drain(o));
      }
      return out.toByteArray();
    } finally {
      ch.finishAndReleaseAll();
    }
  }

  /** The frame of {@code m} without its 4-byte length prefix: what {@link MessageDecoder#decode} takes. */
  static byte[] body(Message m) {
    byte[] all = encode(m);
    byte[] body = new byte[all.length - 4];
    System.arraycopy(all, 4, body, 0, body.length);
    return body;
  }

  /** Copies out and releases an outbound ByteBuf or FileRegion. */
  static byte[] drain(Object o) {
    try {
      if (o instanceof ByteBuf b) {
        byte[] bytes = new byte[b.readableBytes()];
        b.getBytes(b.readerIndex(), bytes);
        return bytes;
      }
      if (o instanceof FileRegion r) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        WritableByteChannel sink = Channels.newChannel(out);
        while (r.transferred() < r.count()) {
          r.transferTo(sink, r.transferred());
        }
        return out.toByteArray();
      }
      throw new AssertionError("unexpected outbound object " + o);
    } catch (IOException e) {
      throw new AssertionError(e);
    } finally {
      io.netty.util.ReferenceCountUtil.release(o);
    }
  }

  /** Decodes a frame body; a returned {@link FileChunk} must be released by the caller. */
  static Message decode(byte[] body) throws ProtocolException {
    ByteBuf in = Unpooled.wrappedBuffer(body);
    try {
      return MessageDecoder.decode(in);
    } finally {
      in.release();
    }
  }

  /** Reads one length-prefixed frame from a raw socket and decodes it. */
  static Message readFrame(InputStream in) throws IOException {
    DataInputStream data = new DataInputStream(in);
    int length = data.readInt();
    byte[] body = new byte[length];
    data.readFully(body);
    Message m = decode(body);
    if (m instanceof FileChunk c) {
      c.release();
    }
    return m;
  }

  /** Copies a FileChunk's readable bytes and releases it. */
  /**
   * A test's teardown: closes what it opened on top of its transports, then the transports, newest
   * first (a server outlives the clients that connected to it).
   */
  static void closeAll(List<AutoCloseable> closeables, List<Transport> transports) throws Exception {
    for (AutoCloseable c : closeables) {
      c.close();
    }
    List<Transport> newestFirst = new ArrayList<>(transports);
    Collections.reverse(newestFirst);
    for (Transport t : newestFirst) {
      t.close();
    }
  }

  static byte[] bytesOf(FileChunk chunk) {
    try {
      byte[] b = new byte[chunk.content().readableBytes()];
      chunk.content().getBytes(chunk.content().readerIndex(), b);
      return b;
    } finally {
      chunk.release();
    }
  }
}

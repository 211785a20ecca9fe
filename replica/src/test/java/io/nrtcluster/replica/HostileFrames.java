package io.nrtcluster.replica;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Random;

/**
 * Raw bytes that a hostile or broken peer might send to a node, written by hand from the layout in
 * {@code docs/protocol.md} (a test outside the transport cannot borrow its encoder, and should not:
 * these frames must not depend on the encoder being right).
 *
 * <p>Three kinds: {@link #fatal} frames break the protocol itself (the server must answer with a
 * protocol error and close that connection only), {@link #garbage} may or may not be a whole frame,
 * and {@link #hostile} frames are well formed but ask for what must be refused (unknown or unsafe
 * files, unknown copy-states, replies to nothing), so the connection survives them and many can be
 * sent on one connection.
 */
final class HostileFrames {
  static final int TYPE_HELLO = 1;
  private static final int[] UNKNOWN_TYPES = {0, 6, 7, 8, 9, 18, 19, 25, 99, 127, 128, 200, 255};
  private static final int[] KNOWN_TYPES = {1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15, 16, 17, 20, 21, 22, 23, 24};
  private static final String[] BAD_NAMES = {
    "../p0/node.state", "../../../../etc/passwd", "/etc/passwd", "_0.cfs/../x", "sub/dir", "..", ".", "",
    "write.lock", "segments_1", "no_such_file.bin", "a\u0000b", "\\windows", "_0.cfs\n", "CON", "~/.ssh/id_rsa",
    "%2e%2e%2fsecret", "\u00e9t\u00e9.cfs", "x".repeat(300)
  };

  private final Random random;
  private final int maxFrameBytes;

  HostileFrames(Random random, int maxFrameBytes) {
    this.random = random;
    this.maxFrameBytes = maxFrameBytes;
  }

  /** A valid handshake for {@code cluster}/{@code index} from node {@code nodeId}, as a replica. */
  static byte[] hello(int version, String cluster, String index, int nodeId) {
    return frame(TYPE_HELLO, 1, out -> {
      out.writeInt(version);
      writeString(out, cluster);
      writeString(out, index);
      out.writeInt(nodeId);
      out.writeByte(2);
    });
  }

  /** A handshake that must be refused: another cluster, another index, another protocol version. */
  byte[] refusedHello(String cluster, String index) {
    return switch (random.nextInt(3)) {
      case 0 -> hello(1, cluster + "-other", index, 900 + random.nextInt(100));
      case 1 -> hello(1, cluster, "no-such-index-" + random.nextInt(10), 900);
      default -> hello(random.nextBoolean() ? 0 : 2 + random.nextInt(1000), cluster, index, 900);
    };
  }

  /**
   * A complete frame that breaks the protocol on any connection: the primary must answer with a
   * protocol error and close the connection by itself.
   */
  byte[] fatal() {
    return switch (random.nextInt(5)) {
      case 0 -> prefixed(maxFrameBytes + 1 + random.nextInt(1 << 20), randomBytes(random.nextInt(32)));
      case 1 -> prefixed(random.nextBoolean() ? -1 - random.nextInt(1 << 30) : Integer.MAX_VALUE, randomBytes(8));
      case 2 -> frame(UNKNOWN_TYPES[random.nextInt(UNKNOWN_TYPES.length)], random.nextLong(), out -> out.write(randomBytes(random.nextInt(40))));
      case 3 -> {
        // A length too short for the type and request id.
        byte[] hello = hello(1, "c", "i", 1);
        yield prefixed(random.nextInt(9), java.util.Arrays.copyOfRange(hello, 4, hello.length));
      }
      default -> frame(5, random.nextLong(), out -> out.write(randomBytes(1 + random.nextInt(16)))); // trailing bytes
    };
  }

  /**
   * Bytes that may or may not be a complete or valid frame: random bytes, or a known type with a
   * random payload (truncated fields, lying counts, trailing bytes). The primary refuses what it can
   * parse and waits for the rest of what it cannot; the sender then closes its side.
   */
  byte[] garbage() {
    return random.nextBoolean() ? randomBytes(1 + random.nextInt(64)) : garbagePayload();
  }

  /** Known type, valid header, random payload: truncated fields, lying counts, trailing bytes. */
  private byte[] garbagePayload() {
    int type = KNOWN_TYPES[random.nextInt(KNOWN_TYPES.length)];
    if (type == 11 || type == 22) {
      // Copy-state and pre-copy bodies with counts far larger than the frame.
      return frame(type, random.nextLong(), out -> {
        for (int i = 0; i < (type == 11 ? 4 : 2); i++) {
          out.writeLong(random.nextLong());
        }
        if (type == 11) {
          out.writeInt(random.nextBoolean() ? Integer.MAX_VALUE : -random.nextInt(1000));
        }
        out.writeInt(random.nextInt());
        out.write(randomBytes(random.nextInt(64)));
      });
    }
    int len = random.nextInt(48);
    return frame(type, random.nextLong(), out -> out.write(randomBytes(len)));
  }

  /**
   * A well-formed frame the primary must refuse or ignore without closing: fetches of unknown and
   * unsafe names or copy-states, releases of copy-states it never gave out, credits and cancels and
   * replies for requests that do not exist, and pings.
   */
  byte[] hostile(String knownFile) {
    long id = 1 + random.nextInt(1 << 20);
    return switch (random.nextInt(10)) {
      case 0, 1, 2 -> fetch(id, 1, random.nextInt(1000) + 1_000_000L, pickName(knownFile));
      case 3 -> fetch(id, 2, random.nextInt(1000), pickName(knownFile));
      case 4 -> frame(12, id, out -> out.writeLong(random.nextLong()));
      case 5 -> frame(16, id, out -> out.writeInt(1 + random.nextInt(1 << 20)));
      case 6 -> frame(17, id, out -> {});
      case 7 -> frame(5, id, out -> {});
      case 8 -> frame(3, id, out -> {
        out.writeInt(random.nextInt(40));
        writeString(out, "from nobody");
      });
      default -> switch (random.nextInt(5)) {
        case 0 -> frame(4, id, out -> {});
        case 1 -> frame(14, id, out -> {
          out.writeLong(random.nextInt(1 << 20));
          out.writeLong(0);
        });
        case 2 -> frame(15, id, out -> {
          out.writeLong(0);
          out.write(randomBytes(random.nextInt(256)));
        });
        case 3 -> frame(23, id, out -> out.writeLong(random.nextInt(1 << 20)));
        default -> frame(24, id, out -> out.writeBoolean(random.nextBoolean()));
      };
    };
  }

  /** A request for the current copy-state (which pins files on the primary until released). */
  static byte[] getCopyState(long id) {
    return frame(10, id, out -> out.writeInt(900));
  }

  private String pickName(String knownFile) {
    // A real file name, but asked for under a copy-state or pre-copy the primary never handed out.
    return random.nextInt(4) == 0 ? knownFile : BAD_NAMES[random.nextInt(BAD_NAMES.length)];
  }

  private byte[] fetch(long id, int kind, long sourceId, String name) {
    return frame(13, id, out -> {
      out.writeByte(kind);
      out.writeLong(sourceId);
      writeString(out, name);
      out.writeLong(random.nextInt(1 << 16));
      out.writeInt(1 + random.nextInt(1 << 20));
    });
  }

  private byte[] randomBytes(int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }

  interface Fields {
    void write(DataOutputStream out) throws IOException;
  }

  static byte[] frame(int type, long requestId, Fields fields) {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(body)) {
      out.writeByte(type);
      out.writeLong(requestId);
      fields.write(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return prefixed(body.size(), body.toByteArray());
  }

  static byte[] prefixed(int declaredLength, byte[] rest) {
    byte[] out = new byte[4 + rest.length];
    out[0] = (byte) (declaredLength >>> 24);
    out[1] = (byte) (declaredLength >>> 16);
    out[2] = (byte) (declaredLength >>> 8);
    out[3] = (byte) declaredLength;
    System.arraycopy(rest, 0, out, 4, rest.length);
    return out;
  }

  private static void writeString(DataOutputStream out, String s) throws IOException {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    out.writeShort(b.length);
    out.write(b);
  }
}

package io.nrtcluster.transport;

import io.netty.buffer.ByteBuf;
import io.nrtcluster.common.ProtocolException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Field encodings shared by the encoder and decoder. Every read checks bounds against what the
 * frame really holds before allocating, so a hostile length cannot make a node allocate memory.
 */
final class WireFormat {
  /**
   * The protocol version this node speaks and announces in HELLO; bumped on any change. Version 2
   * adds NRT_POINT_COPY_STATE, which a primary sends only to a peer that announced 2 or more;
   * version 3 adds INSTALLED, which a replica sends only to a primary that accepted 3 or more;
   * version 4 adds COPY_SOURCE and the PEER fetch source, which a primary uses only with replicas
   * that announced 4 or more (older ones copy every file from it, as before).
   */
  static final int PROTOCOL_VERSION = 4;

  /** The oldest version a server still accepts: a version-1 peer simply never gets version-2 messages. */
  static final int MIN_PROTOCOL_VERSION = 1;

  static final int MAX_STRING_BYTES = 65535;
  private static final int MIN_FILE_ENTRY_BYTES = 2 + 2 + 2 + 8 + 8;

  private WireFormat() {}

  /** A free-text field (error message, verdict detail) as sent: null as empty, at most 4096 chars. */
  static String capped(String text) {
    String t = text == null ? "" : text;
    return t.length() > 4096 ? t.substring(0, 4096) : t;
  }

  static void writeString(ByteBuf out, String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    if (b.length > MAX_STRING_BYTES) {
      throw new IllegalArgumentException("string too long for the wire: " + b.length + " bytes");
    }
    out.writeShort(b.length);
    out.writeBytes(b);
  }

  static String readString(ByteBuf in) throws ProtocolException {
    need(in, 2, "string length");
    int len = in.readUnsignedShort();
    need(in, len, "string");
    String s = in.toString(in.readerIndex(), len, StandardCharsets.UTF_8);
    in.skipBytes(len);
    return s;
  }

  static void writeShortBytes(ByteBuf out, byte[] b) {
    if (b.length > 65535) {
      throw new IllegalArgumentException("byte field too long: " + b.length);
    }
    out.writeShort(b.length);
    out.writeBytes(b);
  }

  static byte[] readShortBytes(ByteBuf in) throws ProtocolException {
    need(in, 2, "bytes length");
    int len = in.readUnsignedShort();
    need(in, len, "bytes");
    byte[] b = new byte[len];
    in.readBytes(b);
    return b;
  }

  static void writeBytes(ByteBuf out, byte[] b) {
    out.writeInt(b.length);
    out.writeBytes(b);
  }

  static byte[] readBytes(ByteBuf in) throws ProtocolException {
    need(in, 4, "bytes length");
    int len = in.readInt();
    if (len < 0) {
      throw new ProtocolException("negative byte array length " + len);
    }
    need(in, len, "bytes");
    byte[] b = new byte[len];
    in.readBytes(b);
    return b;
  }

  static void writeFiles(ByteBuf out, Map<String, FileMeta> files) {
    out.writeInt(files.size());
    for (Map.Entry<String, FileMeta> e : files.entrySet()) {
      writeString(out, e.getKey());
      FileMeta m = e.getValue();
      writeShortBytes(out, m.header());
      writeShortBytes(out, m.footer());
      out.writeLong(m.length());
      out.writeLong(m.checksum());
    }
  }

  static Map<String, FileMeta> readFiles(ByteBuf in) throws ProtocolException {
    int count = readCount(in, MIN_FILE_ENTRY_BYTES, "file count");
    Map<String, FileMeta> files = HashMap.newHashMap(count);
    for (int i = 0; i < count; i++) {
      String name = readString(in);
      byte[] header = readShortBytes(in);
      byte[] footer = readShortBytes(in);
      need(in, 16, "file length and checksum");
      long length = in.readLong();
      long checksum = in.readLong();
      if (length < 0) {
        throw new ProtocolException("negative file length for " + name);
      }
      if (files.put(name, new FileMeta(header, footer, length, checksum)) != null) {
        throw new ProtocolException("duplicate file name " + name);
      }
    }
    return Collections.unmodifiableMap(files);
  }

  static void writeNames(ByteBuf out, Set<String> names) {
    out.writeInt(names.size());
    for (String n : names) {
      writeString(out, n);
    }
  }

  static Set<String> readNames(ByteBuf in) throws ProtocolException {
    int count = readCount(in, 2, "name count");
    Set<String> names = HashSet.newHashSet(count);
    for (int i = 0; i < count; i++) {
      names.add(readString(in));
    }
    return Collections.unmodifiableSet(names);
  }

  private static int readCount(ByteBuf in, int minEntryBytes, String what) throws ProtocolException {
    need(in, 4, what);
    int count = in.readInt();
    if (count < 0 || (long) count * minEntryBytes > in.readableBytes()) {
      throw new ProtocolException(what + " " + count + " does not fit the frame");
    }
    return count;
  }

  static void need(ByteBuf in, int bytes, String what) throws ProtocolException {
    if (in.readableBytes() < bytes) {
      throw new ProtocolException("truncated frame reading " + what);
    }
  }
}

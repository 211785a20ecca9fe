package io.nrtcluster.common;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.Properties;

/** Small records kept in ZooKeeper as UTF-8 {@code key=value} text, readable with any ZooKeeper shell. */
@Internal
public final class PropertiesCodec {
  private PropertiesCodec() {}

  public static byte[] encode(Properties p) {
    StringWriter w = new StringWriter();
    try {
      p.store(w, null);
    } catch (IOException e) {
      throw new IllegalStateException("writing to a string cannot fail", e);
    }
    return w.toString().getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Reads a record; anything that is not one (a malformed unicode escape, or one that leaves half
   * of a UTF-16 surrogate pair, which {@link #encode} could not write back) is a {@link
   * ProtocolException}.
   */
  public static Properties decode(byte[] data) throws ProtocolException {
    Properties p = new Properties();
    try {
      p.load(new StringReader(new String(data, StandardCharsets.UTF_8)));
    } catch (IOException | IllegalArgumentException e) {
      throw new ProtocolException("malformed record: " + e);
    }
    for (String key : p.stringPropertyNames()) {
      requireWellFormed(key);
      requireWellFormed(p.getProperty(key));
    }
    return p;
  }

  private static void requireWellFormed(String s) throws ProtocolException {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        throw new ProtocolException("malformed record: unpaired UTF-16 surrogate at character " + i);
      }
    }
  }
}

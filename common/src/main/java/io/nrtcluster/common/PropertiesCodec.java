package io.nrtcluster.common;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.Properties;

/** Small records kept in ZooKeeper as UTF-8 {@code key=value} text, readable with any ZooKeeper shell. */
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

  public static Properties decode(byte[] data) throws ProtocolException {
    Properties p = new Properties();
    try {
      p.load(new StringReader(new String(data, StandardCharsets.UTF_8)));
    } catch (IOException | IllegalArgumentException e) {
      throw new ProtocolException("malformed record: " + e);
    }
    return p;
  }
}

package io.nrtcluster.election;

import io.nrtcluster.common.Internal;
import io.nrtcluster.common.ProtocolException;
import java.nio.charset.StandardCharsets;

/**
 * The current primary of an index as recorded in its ephemeral primary znode.
 *
 * <p>Format: UTF-8 lines {@code nodeId}, {@code address}, {@code primaryGen}, then {@code key=value}
 * lines, the first {@code format=1} (the format version; records written before it existed have no
 * such line and are format 1 too). Readers take the first three lines and ignore lines they do not
 * know, so a later format only adds lines.
 *
 * @param nodeId the primary's node id
 * @param address {@code host:port} replicas connect to
 * @param primaryGen the fencing epoch it won
 */
@Internal
public record PrimaryInfo(int nodeId, String address, long primaryGen) {
  byte[] encode() {
    return (nodeId + "\n" + address + "\n" + primaryGen + "\n" + RecordFormat.KEY + "=" + RecordFormat.CURRENT)
        .getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Reads the primary znode's data (for tools that read ZooKeeper's records directly, such as the
   * chaos test's audit of its transaction logs).
   *
   * @throws ProtocolException when it is not a primary record
   */
  public static PrimaryInfo decode(byte[] data) throws ProtocolException {
    String[] parts = new String(data, StandardCharsets.UTF_8).split("\n");
    try {
      for (int i = 3; i < parts.length; i++) {
        if (parts[i].startsWith(RecordFormat.KEY + "=")) {
          RecordFormat.parse(parts[i].substring(RecordFormat.KEY.length() + 1));
        }
      }
      return new PrimaryInfo(Integer.parseInt(parts[0]), parts[1], Long.parseLong(parts[2]));
    } catch (RuntimeException e) {
      throw new ProtocolException("malformed primary data: " + e);
    }
  }
}

package io.nrtcluster.election;

import io.nrtcluster.common.Internal;
import io.nrtcluster.common.ProtocolException;
import java.nio.charset.StandardCharsets;

/**
 * The current primary of an index as recorded in its ephemeral primary znode.
 *
 * @param nodeId the primary's node id
 * @param address {@code host:port} replicas connect to
 * @param primaryGen the fencing epoch it won
 */
@Internal
public record PrimaryInfo(int nodeId, String address, long primaryGen) {
  byte[] encode() {
    return (nodeId + "\n" + address + "\n" + primaryGen).getBytes(StandardCharsets.UTF_8);
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
      return new PrimaryInfo(Integer.parseInt(parts[0]), parts[1], Long.parseLong(parts[2]));
    } catch (RuntimeException e) {
      throw new ProtocolException("malformed primary data: " + e);
    }
  }
}

package io.nrtcluster.election;

import io.nrtcluster.common.Internal;
import io.nrtcluster.common.PropertiesCodec;
import io.nrtcluster.common.ProtocolException;
import java.util.Properties;

/**
 * An operator's request to move the primary role to {@code target}, and how it is going, as stored in
 * the index's {@code handoff} znode. The primary writes the status; the operator's tool reads it.
 *
 * @param requestId identifies the request (a tool only trusts statuses of its own request)
 * @param target node that should become primary
 * @param timeoutMillis how long the primary waits for the target to catch up
 * @param status where the hand-off stands
 * @param finalVersion the last version the old primary published (the target must search it), or -1
 * @param message why it failed, or empty
 */
@Internal
public record Handoff(String requestId, int target, long timeoutMillis, Status status, long finalVersion, String message) {
  /** Progress of a hand-off. */
  public enum Status {
    /** Written by the operator; the primary has not picked it up yet. */
    REQUESTED,
    /** The primary stopped writes and waits for the target to search its final version. */
    CATCHING_UP,
    /** The primary committed, designated the target and resigned. */
    HANDED_OFF,
    /** Nothing changed: the old primary resumed writes. See the message. */
    FAILED
  }

  /** The same request at {@code newStatus}, with the final version and why it failed (null: none). */
  public Handoff with(Status newStatus, long version, String why) {
    return new Handoff(requestId, target, timeoutMillis, newStatus, version, why == null ? "" : why);
  }

  byte[] encode() {
    Properties p = new Properties();
    RecordFormat.stamp(p);
    p.setProperty("requestId", requestId);
    p.setProperty("target", Integer.toString(target));
    p.setProperty("timeoutMillis", Long.toString(timeoutMillis));
    p.setProperty("status", status.name());
    p.setProperty("finalVersion", Long.toString(finalVersion));
    p.setProperty("message", message);
    return PropertiesCodec.encode(p);
  }

  static Handoff decode(byte[] data) throws ProtocolException {
    Properties p = PropertiesCodec.decode(data);
    try {
      RecordFormat.of(p);
      return new Handoff(p.getProperty("requestId"), Integer.parseInt(p.getProperty("target")),
          Long.parseLong(p.getProperty("timeoutMillis")), Status.valueOf(p.getProperty("status")),
          Long.parseLong(p.getProperty("finalVersion", "-1")), p.getProperty("message", ""));
    } catch (RuntimeException e) {
      throw new ProtocolException("malformed hand-off request: " + e);
    }
  }
}

package io.nrtcluster.election;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.Experimental;
import io.nrtcluster.common.PropertiesCodec;
import io.nrtcluster.common.ProtocolException;
import java.util.Properties;

/**
 * One node's answer to an {@link OperatorCommand}, as stored in an {@code ack-<nodeId>} child of
 * the command's znode (or made up by the operator's tool when a node did not answer in time).
 *
 * @param status whether the node carried the command out
 * @param commitVersion the node's commit version after a commit, or -1
 * @param message why it failed, or empty
 */
@Experimental
public record CommandAck(Status status, long commitVersion, String message) {
  /** Outcome of a command on one node. */
  public enum Status {
    /** Carried out. */
    OK,
    /** Not carried out (or not answered in time): see the message. */
    FAILED
  }

  public CommandAck {
    Checks.notNull("status", status);
    message = message == null ? "" : message;
  }

  /** Carried out; the node's commit version is now {@code commitVersion}. */
  public static CommandAck ok(long commitVersion) {
    return new CommandAck(Status.OK, commitVersion, "");
  }

  /** Not carried out, because of {@code why}. */
  public static CommandAck failed(String why) {
    return new CommandAck(Status.FAILED, -1, why);
  }

  public boolean isOk() {
    return status == Status.OK;
  }

  /** For operators: {@code ok <commitVersion>} or {@code error <message>}. */
  @Override
  public String toString() {
    return isOk() ? "ok " + commitVersion : "error " + message;
  }

  byte[] encode() {
    Properties p = new Properties();
    RecordFormat.stamp(p);
    p.setProperty("status", status.name());
    p.setProperty("commitVersion", Long.toString(commitVersion));
    p.setProperty("message", message);
    return PropertiesCodec.encode(p);
  }

  static CommandAck decode(byte[] data) throws ProtocolException {
    Properties p = PropertiesCodec.decode(data);
    try {
      RecordFormat.of(p);
      return new CommandAck(Status.valueOf(p.getProperty("status")), Long.parseLong(p.getProperty("commitVersion", "-1")),
          p.getProperty("message", ""));
    } catch (RuntimeException e) {
      throw new ProtocolException("malformed command acknowledgement: " + e);
    }
  }
}

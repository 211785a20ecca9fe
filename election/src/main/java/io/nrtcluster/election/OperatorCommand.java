package io.nrtcluster.election;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.Internal;
import io.nrtcluster.common.PropertiesCodec;
import io.nrtcluster.common.ProtocolException;
import java.util.Properties;

/**
 * An operator's command to the members of one index, as stored in a {@code commands/cmd-N} znode:
 * what to do and which node should do it (or every live member). Each node it addresses answers at
 * most once, with a {@link CommandAck} in a child znode.
 *
 * @param kind what to do
 * @param target node id that should act, or {@link #ALL_NODES}
 */
@Internal
public record OperatorCommand(Kind kind, int target) {
  /** The {@link #target} addressing every live member. */
  public static final int ALL_NODES = -1;

  /** What a command asks for. */
  public enum Kind {
    /** Durably commit what the node searches. */
    COMMIT
  }

  public OperatorCommand {
    Checks.notNull("kind", kind);
    if (target != ALL_NODES) {
      Checks.inRange("target", target, 0, 65535);
    }
  }

  /** A commit by every live member. */
  public static OperatorCommand commitAll() {
    return new OperatorCommand(Kind.COMMIT, ALL_NODES);
  }

  /** A commit by {@code nodeId} only. */
  public static OperatorCommand commit(int nodeId) {
    return new OperatorCommand(Kind.COMMIT, nodeId);
  }

  /** Whether node {@code nodeId} should act on this command. */
  public boolean addresses(int nodeId) {
    return target == ALL_NODES || target == nodeId;
  }

  byte[] encode() {
    Properties p = new Properties();
    RecordFormat.stamp(p);
    p.setProperty("kind", kind.name());
    p.setProperty("target", target == ALL_NODES ? "all" : Integer.toString(target));
    return PropertiesCodec.encode(p);
  }

  static OperatorCommand decode(byte[] data) throws ProtocolException {
    Properties p = PropertiesCodec.decode(data);
    try {
      RecordFormat.of(p);
      String target = p.getProperty("target");
      return new OperatorCommand(Kind.valueOf(p.getProperty("kind")), "all".equals(target) ? ALL_NODES : Integer.parseInt(target));
    } catch (RuntimeException e) {
      throw new ProtocolException("malformed operator command: " + e);
    }
  }
}

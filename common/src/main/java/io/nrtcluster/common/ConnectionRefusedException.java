package io.nrtcluster.common;

/**
 * A connection attempt the peer's host refused: nothing listens at the address (the process is gone
 * or has not bound its port yet). Unlike a timeout, it says the peer's process cannot be holding an
 * open connection to this node either, which is what a failure detector may rely on.
 */
@Stable
public class ConnectionRefusedException extends ConnectionException {
  private static final long serialVersionUID = 1L;

  /** Creates one with {@code message}, which says what failed, and the failure that caused it. */
  public ConnectionRefusedException(String message, Throwable cause) {
    super(message, cause);
  }
}

package io.nrtcluster.common;

/** Raised when an operation reaches a node that is closing or closed. */
@Stable
public class NodeClosedException extends NrtClusterException {
  private static final long serialVersionUID = 1L;

  /** Creates one with {@code message}, which says what failed. */
  public NodeClosedException(String message) {
    super(ErrorCode.NODE_CLOSED, message);
  }

  /** Creates one with {@code message}, which says what failed, and the failure that caused it. */
  public NodeClosedException(String message, Throwable cause) {
    super(ErrorCode.NODE_CLOSED, message, cause);
  }
}

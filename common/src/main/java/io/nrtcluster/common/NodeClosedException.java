package io.nrtcluster.common;

/** Raised when an operation reaches a node that is closing or closed. */
@Stable
public class NodeClosedException extends NrtClusterException {
  private static final long serialVersionUID = 1L;

  public NodeClosedException(String message) {
    super(ErrorCode.NODE_CLOSED, message);
  }

  public NodeClosedException(String message, Throwable cause) {
    super(ErrorCode.NODE_CLOSED, message, cause);
  }
}

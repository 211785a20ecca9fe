package io.nrtcluster.common;

/** Raised when the connection to a peer cannot be made, is lost, or stops delivering data within the configured read timeout. */
@Stable
public class ConnectionException extends NrtClusterException {
  private static final long serialVersionUID = 1L;

  /** Creates one with {@code message}, which says what failed. */
  public ConnectionException(String message) {
    super(ErrorCode.CONNECTION, message);
  }

  /** Creates one with {@code message}, which says what failed, and the failure that caused it. */
  public ConnectionException(String message, Throwable cause) {
    super(ErrorCode.CONNECTION, message, cause);
  }

  /** For subtypes that are connection failures of a more specific kind. */
  protected ConnectionException(ErrorCode code, String message, Throwable cause) {
    super(code, message, cause);
  }
}

package io.nrtcluster.common;

/** Raised when the connection to a peer cannot be made, is lost, or stops delivering data within the configured read timeout. */
@Stable
public class ConnectionException extends NrtClusterException {
  private static final long serialVersionUID = 1L;

  public ConnectionException(String message) {
    super(ErrorCode.CONNECTION, message);
  }

  public ConnectionException(String message, Throwable cause) {
    super(ErrorCode.CONNECTION, message, cause);
  }

  /** For subtypes that are connection failures of a more specific kind. */
  protected ConnectionException(ErrorCode code, String message, Throwable cause) {
    super(code, message, cause);
  }
}

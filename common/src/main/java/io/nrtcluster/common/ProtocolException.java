package io.nrtcluster.common;

/** Raised for a frame or message that breaks the wire protocol (oversized, truncated, unknown type, out-of-order handshake). The connection that sent it is closed; others are unaffected. */
@Stable
public class ProtocolException extends NrtClusterException {
  private static final long serialVersionUID = 1L;

  /** Creates one with {@code message}, which says what failed. */
  public ProtocolException(String message) {
    super(ErrorCode.PROTOCOL, message);
  }

  /** Creates one with {@code message}, which says what failed, and the failure that caused it. */
  public ProtocolException(String message, Throwable cause) {
    super(ErrorCode.PROTOCOL, message, cause);
  }
}

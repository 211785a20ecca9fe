package io.nrtcluster.common;

/** Raised for a frame or message that breaks the wire protocol (oversized, truncated, unknown type, out-of-order handshake). The connection that sent it is closed; others are unaffected. */
@Stable
public class ProtocolException extends NrtClusterException {
  private static final long serialVersionUID = 1L;

  public ProtocolException(String message) {
    super(ErrorCode.PROTOCOL, message);
  }

  public ProtocolException(String message, Throwable cause) {
    super(ErrorCode.PROTOCOL, message, cause);
  }
}

package io.nrtcluster.common;

/**
 * Raised on the side that could not establish a TLS session with its peer: the peer sent no
 * certificate, or one this node's trust anchors did not sign, or one whose names do not match the
 * peer's host (with hostname verification on), or one side does not speak TLS. It is a {@link
 * ConnectionException}, so whatever retries a lost connection retries this too; it is reported
 * loudly because it does not heal until the certificates are fixed.
 */
@Stable
public class TlsHandshakeException extends ConnectionException {
  private static final long serialVersionUID = 1L;

  /** Creates one with {@code message}, which says what failed, and the failure that caused it. */
  public TlsHandshakeException(String message, Throwable cause) {
    super(ErrorCode.TLS_HANDSHAKE, message, cause);
  }
}

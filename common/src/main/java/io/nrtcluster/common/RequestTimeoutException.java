package io.nrtcluster.common;

/**
 * Raised when a peer does not answer within a bounded wait: a request that got no reply within its
 * timeout, or a connection whose handshake (TLS or the application's) did not complete in time. Its
 * code is {@link ErrorCode#TIMEOUT}. Named apart from {@link java.util.concurrent.TimeoutException},
 * which is a checked wait on a future and not part of this hierarchy.
 */
@Stable
public class RequestTimeoutException extends NrtClusterException {
  private static final long serialVersionUID = 1L;

  /** Creates one with {@code message}, which says what failed. */
  public RequestTimeoutException(String message) {
    super(ErrorCode.TIMEOUT, message);
  }

  /** Creates one with {@code message}, which says what failed, and the failure that caused it. */
  public RequestTimeoutException(String message, Throwable cause) {
    super(ErrorCode.TIMEOUT, message, cause);
  }
}

package io.nrtcluster.common;

/** Raised when a bounded wait runs out (a request that got no reply, a close that could not drain in time). */
public class TimeoutException extends NrtClusterException {
  private static final long serialVersionUID = 1L;

  public TimeoutException(String message) {
    super(ErrorCode.TIMEOUT, message);
  }

  public TimeoutException(String message, Throwable cause) {
    super(ErrorCode.TIMEOUT, message, cause);
  }
}

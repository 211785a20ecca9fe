package io.nrtcluster.common;

/** Raised when a requested file name is unsafe (path traversal, separators, absolute) or not part of any copy-state or merge pre-copy the primary still holds. Nothing is read from disk for such a request. */
@Stable
public class FileNotServableException extends NrtClusterException {
  private static final long serialVersionUID = 1L;

  /** Creates one with {@code message}, which says what failed. */
  public FileNotServableException(String message) {
    super(ErrorCode.FILE_NOT_SERVABLE, message);
  }

  /** Creates one with {@code message}, which says what failed, and the failure that caused it. */
  public FileNotServableException(String message, Throwable cause) {
    super(ErrorCode.FILE_NOT_SERVABLE, message, cause);
  }
}

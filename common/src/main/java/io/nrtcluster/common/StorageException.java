package io.nrtcluster.common;

/** Raised when local storage fails while copying (disk full, I/O error); the copy is abandoned, its temp files removed, and the last good searcher keeps serving. */
@Stable
public class StorageException extends NrtClusterException {
  private static final long serialVersionUID = 1L;

  /** Creates one with {@code message}, which says what failed. */
  public StorageException(String message) {
    super(ErrorCode.STORAGE, message);
  }

  /** Creates one with {@code message}, which says what failed, and the failure that caused it. */
  public StorageException(String message, Throwable cause) {
    super(ErrorCode.STORAGE, message, cause);
  }
}

package io.nrtcluster.common;

/**
 * Raised when a primary could not publish a version: a refresh whose publication failed because
 * ZooKeeper could not record the version, or a replica asking a primary for a version whose
 * publication is still under way or failed. Unlike {@link NotPrimaryException} it says nothing about
 * the node's role: the node may still be the primary, and retrying (the refresh, or the copy) is the
 * answer. A primary that has lost its epoch raises {@link NotPrimaryException} instead. Code {@link
 * ErrorCode#NOT_PUBLISHED}.
 */
@Stable
public class NotPublishedException extends NrtClusterException {
  private static final long serialVersionUID = 1L;

  /** Creates one with {@code message}, which says what failed. */
  public NotPublishedException(String message) {
    super(ErrorCode.NOT_PUBLISHED, message);
  }

  /** Creates one with {@code message}, which says what failed, and the failure that caused it. */
  public NotPublishedException(String message, Throwable cause) {
    super(ErrorCode.NOT_PUBLISHED, message, cause);
  }
}

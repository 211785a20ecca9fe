package io.nrtcluster.common;

/**
 * Raised when an open index has no searcher to give right now (a replica between dropping its local
 * index and opening the resynchronized one, with no earlier searcher left to serve): retry shortly.
 * Unlike {@link NodeClosedException}, the index is open and will serve again by itself.
 */
@Stable
public class IndexUnavailableException extends NrtClusterException {
  private static final long serialVersionUID = 1L;

  /** Creates one with {@code message}, which says what failed. */
  public IndexUnavailableException(String message) {
    super(ErrorCode.INDEX_UNAVAILABLE, message);
  }
}

package io.nrtcluster.common;

/**
 * An operator's request could not be carried out: an unknown node ({@link ErrorCode#UNKNOWN_NODE}),
 * a request refused up front ({@link ErrorCode#REFUSED}), or a promotion that did not complete
 * ({@link ErrorCode#PROMOTION_FAILED}). In every case the cluster is as it was.
 */
@Stable
public class AdminException extends NrtClusterException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates one with its {@code code} (the one the wire carries) and {@code message}, which says what failed.
   */
  public AdminException(ErrorCode code, String message) {
    super(code, message);
  }
}

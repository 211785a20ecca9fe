package io.nrtcluster.common;

/**
 * Raised when a write, refresh or commit reaches a node that is not (or no longer) the primary of
 * the index. {@link #primaryAddress()} names the current primary when it is known, so a service can
 * forward the request there.
 */
@Stable
public class NotPrimaryException extends NrtClusterException {
  private static final long serialVersionUID = 1L;

  private final String primaryAddress;

  /**
   * Creates one naming the current primary ({@code host:port}), or with {@code primaryAddress} null
   * when none is known.
   */
  public NotPrimaryException(String message, String primaryAddress) {
    super(ErrorCode.NOT_PRIMARY, primaryAddress == null ? message + " (no primary known right now)"
        : message + " (the primary is at " + primaryAddress + ")");
    this.primaryAddress = primaryAddress;
  }

  /** {@code host:port} of the current primary, or null when none is known. */
  public String primaryAddress() {
    return primaryAddress;
  }
}

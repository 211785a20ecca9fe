package io.nrtcluster.common;

/**
 * Raised when the peer is not a member of this node's cluster: another cluster name, an index it
 * does not host, or an incompatible protocol version. The connection is refused during handshake.
 */
@Stable
public class ClusterMismatchException extends NrtClusterException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates one with its {@code code} (the one the wire carries) and {@code message}, which says what failed.
   */
  public ClusterMismatchException(ErrorCode code, String message) {
    super(code, message);
  }
}

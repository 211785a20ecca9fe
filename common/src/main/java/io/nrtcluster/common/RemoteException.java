package io.nrtcluster.common;

/** An error reported by a remote node whose code has no more specific local type. */
@Stable
public class RemoteException extends NrtClusterException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates one with its {@code code} (the one the wire carries) and {@code message}, which says what failed.
   */
  public RemoteException(ErrorCode code, String message) {
    super(code, message);
  }
}

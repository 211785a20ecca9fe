package io.nrtcluster.common;

/**
 * The cluster's state in ZooKeeper cannot be used safely with the configured credentials: ZooKeeper
 * denied an operation ({@link ErrorCode#ZOOKEEPER_ACCESS_DENIED}: no credentials, a wrong password,
 * another user's znodes) or authentication is on but some of the cluster's znodes are still readable
 * and writable by anyone ({@link ErrorCode#ZOOKEEPER_OPEN_ACL}). Raised before anything is changed,
 * so retrying cannot help: the credentials or the ACLs must be fixed.
 */
@Stable
public class ZooKeeperAccessException extends NrtClusterException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates one with its {@code code} (the one the wire carries) and {@code message}, which says what failed.
   */
  public ZooKeeperAccessException(ErrorCode code, String message) {
    super(checked(code), message);
  }

  /**
   * Creates one with its {@code code} (the one the wire carries), {@code message}, which says what
   * failed, and the failure that caused it.
   */
  public ZooKeeperAccessException(ErrorCode code, String message, Throwable cause) {
    super(checked(code), message, cause);
  }

  private static ErrorCode checked(ErrorCode code) {
    if (code != ErrorCode.ZOOKEEPER_ACCESS_DENIED && code != ErrorCode.ZOOKEEPER_OPEN_ACL) {
      throw new IllegalArgumentException("not a ZooKeeper access code: " + code);
    }
    return code;
  }
}

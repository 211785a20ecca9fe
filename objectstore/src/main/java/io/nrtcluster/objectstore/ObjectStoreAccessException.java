package io.nrtcluster.objectstore;

import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.Stable;

/**
 * The object store refused this identity for the bucket (wrong or missing credentials, no
 * permission) or the bucket does not exist ({@link ErrorCode#OBJECT_STORE_ACCESS}). Raised on the
 * first such answer, never retried: retrying with the same credentials cannot help. {@link #bucket()}
 * names the bucket.
 */
@Stable
public class ObjectStoreAccessException extends NrtClusterException {
  private static final long serialVersionUID = 1L;

  private final String bucket;

  /** Creates one naming the bucket, what the store refused, and the store client's error. */
  public ObjectStoreAccessException(String bucket, String message, Throwable cause) {
    super(ErrorCode.OBJECT_STORE_ACCESS, message, cause);
    this.bucket = bucket;
  }

  /** The bucket that was refused. */
  public String bucket() {
    return bucket;
  }
}

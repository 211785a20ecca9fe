package io.nrtcluster.objectstore;

import io.nrtcluster.common.ConnectionException;
import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.Stable;

/**
 * The object store could not be reached, or kept failing (5xx answers, throttling, dropped or timed
 * out connections) through every configured attempt ({@link ErrorCode#OBJECT_STORE_UNAVAILABLE}). It
 * is a {@link ConnectionException}: whoever handles lost peers handles a lost store the same way.
 * Nothing the failed call was writing became visible (a single PUT is atomic in S3 and an unfinished
 * multipart upload is aborted or never completed).
 */
@Stable
public class ObjectStoreUnavailableException extends ConnectionException {
  private static final long serialVersionUID = 1L;

  private final int attempts;

  /** Creates one saying what failed after {@code attempts} tries, with the last try's error. */
  public ObjectStoreUnavailableException(String message, int attempts, Throwable cause) {
    super(ErrorCode.OBJECT_STORE_UNAVAILABLE, message, cause);
    this.attempts = attempts;
  }

  /** How many attempts were made before giving up. */
  public int attempts() {
    return attempts;
  }
}

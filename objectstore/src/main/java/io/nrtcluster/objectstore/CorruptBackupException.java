package io.nrtcluster.objectstore;

import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.Stable;

/**
 * A backup object failed verification ({@link ErrorCode#BACKUP_CORRUPT}): a manifest that does not
 * parse, a stored file whose bytes do not match its Lucene checksum or length, or a file a manifest
 * names that is not in the store. {@link #objectKey()} names the object. Nothing of the refused object
 * was installed; retrying reads the same bytes, so a caller falls back to another manifest or to a
 * primary.
 */
@Stable
public class CorruptBackupException extends NrtClusterException {
  private static final long serialVersionUID = 1L;

  private final String objectKey;

  /** Creates one naming the damaged object's key and what is wrong with it. */
  public CorruptBackupException(String objectKey, String message) {
    super(ErrorCode.BACKUP_CORRUPT, message);
    this.objectKey = objectKey;
  }

  /** Creates one naming the damaged object's key, what is wrong with it and the failure that showed it. */
  public CorruptBackupException(String objectKey, String message, Throwable cause) {
    super(ErrorCode.BACKUP_CORRUPT, message, cause);
    this.objectKey = objectKey;
  }

  /** The store key of the object that failed. */
  public String objectKey() {
    return objectKey;
  }
}

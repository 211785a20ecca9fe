package io.nrtcluster.objectstore;

import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.Stable;

/** No backup manifest matches the request: the index has none, or not the version asked for ({@link ErrorCode#BACKUP_NOT_FOUND}). */
@Stable
public class BackupNotFoundException extends NrtClusterException {
  private static final long serialVersionUID = 1L;

  /** Creates one with {@code message}, which says what failed. */
  public BackupNotFoundException(String message) {
    super(ErrorCode.BACKUP_NOT_FOUND, message);
  }
}

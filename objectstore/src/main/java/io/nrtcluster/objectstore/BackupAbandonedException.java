package io.nrtcluster.objectstore;

import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.Stable;

/**
 * A backup gave up before writing its manifest ({@link ErrorCode#BACKUP_ABANDONED}): it outlived its
 * lease (see {@link RetentionSweeper} for why a lease exists), a newer point replaced it while it
 * waited, or the service closed. No manifest names what it uploaded; retention removes those files.
 * The one manifest the store may still apply is that of a PUT attempt started within the lease and
 * cut at its end: sent within the lease, it names only files retention keeps (see {@link
 * RetentionSweeper}), so it is whole.
 */
@Stable
public class BackupAbandonedException extends NrtClusterException {
  private static final long serialVersionUID = 1L;

  /** Creates one with {@code message}, which says what failed. */
  public BackupAbandonedException(String message) {
    super(ErrorCode.BACKUP_ABANDONED, message);
  }

  /** With the failure that made the backup give up (its manifest's write reached the lease). */
  public BackupAbandonedException(String message, Throwable cause) {
    super(ErrorCode.BACKUP_ABANDONED, message, cause);
  }
}

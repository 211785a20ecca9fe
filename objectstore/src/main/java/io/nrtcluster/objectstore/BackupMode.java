package io.nrtcluster.objectstore;

import io.nrtcluster.common.Stable;

/** Which points of a primary {@link PrimaryBackups} backs up. */
@Stable
public enum BackupMode {
  /** Each commit (the NRT point it covers): the default; a backup per durability point. */
  EVERY_COMMIT,
  /** Each published NRT point as well: the store follows searches closely, at the cost of more uploads of small segments. */
  EVERY_POINT
}

package io.nrtcluster.election;

import io.nrtcluster.common.Experimental;

/** Why a primary gave its epoch up by itself (not because it lost it or handed it off). */
@Experimental
public enum StepDownReason {
  /** Its Lucene writer found a corrupt index file (a {@code CorruptIndexException}), e.g. in a merge. */
  CORRUPT_INDEX,
  /** Its Lucene writer failed on I/O while the data directory was (nearly) out of space. */
  DISK_FULL,
  /** Its Lucene writer failed on any other I/O error. */
  IO_ERROR,
  /** Its Lucene writer hit a fatal error that is not I/O (for example {@code OutOfMemoryError}). */
  FATAL_ERROR
}

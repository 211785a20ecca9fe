package io.nrtcluster.stress;

/** Where chaos nodes keep their index: the report directory's file system, or a tmpfs each (root only). */
public enum StorageMode {
  /** The report directory's own file system: no disk faults. */
  PLAIN,
  /**
   * A size-limited tmpfs mounted on each node's index directory, which the harness fills from
   * outside (a real {@code No space left on device}) and frees again; needs root.
   */
  TMPFS
}

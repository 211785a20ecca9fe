package io.nrtcluster.cli;

/** Files and bytes replicas copied (the demo's counters). */
record Copied(long files, long bytes) {
  static final Copied NONE = new Copied(0, 0);

  Copied plus(Copied o) {
    return new Copied(files + o.files, bytes + o.bytes);
  }

  /** What was copied since {@code earlier}. */
  Copied since(Copied earlier) {
    return new Copied(files - earlier.files, bytes - earlier.bytes);
  }
}

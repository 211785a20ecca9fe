package io.nrtcluster.primary;

/**
 * Hears a primary's events as they happen, for metrics. Methods run on the thread doing the work
 * (the refreshing thread for publications, a merge thread for pre-copies): implementations must be quick, thread-safe and must not throw.
 * The defaults do nothing.
 */
public interface PrimaryObserver {
  /** Observes nothing. */
  PrimaryObserver NONE = new PrimaryObserver() {};

  /** The primary published {@code version}: searches here see it and replicas are told now. */
  default void versionPublished(long version) {}

  /** A merge pre-copy ended (every replica done, skipped or timed out); see {@link PreCopyResult}. */
  default void preCopyFinished(PreCopyResult result) {}
}

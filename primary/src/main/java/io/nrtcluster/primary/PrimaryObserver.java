package io.nrtcluster.primary;

import io.nrtcluster.common.Experimental;

/**
 * Hears a primary's events as they happen, for metrics. Methods run on the thread doing the work
 * (the refreshing thread for publications, a merge thread for pre-copies, a network or timer thread
 * for copy-state leases): implementations must be quick, thread-safe and must not throw.
 * The defaults do nothing.
 */
@Experimental
public interface PrimaryObserver {
  /** Observes nothing. */
  PrimaryObserver NONE = new PrimaryObserver() {};

  /** The primary published {@code version}: searches here see it and replicas are told now. */
  default void versionPublished(long version) {}

  /** A merge pre-copy ended (every replica done, skipped or timed out); see {@link PreCopyResult}. */
  default void preCopyFinished(PreCopyResult result) {}

  /** A replica that dropped mid-copy came back within its lease and resumes its copy. */
  default void copyStateResumed() {}

  /** A lease ran out before its replica came back: the replica's next copy starts afresh. */
  default void copyStateLeaseExpired() {}

  /** A lease was released early to stay within the bounds on leases and leased bytes. */
  default void copyStateLeaseEvicted() {}
}

package io.nrtcluster.primary;

import io.nrtcluster.common.Experimental;

/**
 * Hears each replica's report that it now searches a version this primary published: what a
 * replicated acknowledgement and the in-sync set are built from.
 *
 * <p>Guarantees: a report is passed on only for a version at or below the one this primary last
 * published (a replica never reports more than it was sent), from the node id the replica's
 * connection was opened with, with the incarnation the replica gave (a restarted replica's reports
 * carry another). Reports of one connection arrive in the order they were sent; {@link #installed}
 * runs on a transport thread and must return at once.
 */
@Experimental
@FunctionalInterface
public interface InstallListener {
  /** Replica {@code nodeId}, in run {@code incarnation}, searches {@code version} now. */
  void installed(int nodeId, long incarnation, long version);
}

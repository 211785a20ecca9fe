package io.nrtcluster.node;

import io.nrtcluster.election.StepDownReason;
import io.nrtcluster.primary.PrimaryObserver;
import io.nrtcluster.replica.ReplicaObserver;

/**
 * What one {@link ClusterNode} reports for metrics. {@link #NONE} (a host started without a meter
 * registry) does nothing and hands out the engine's no-op observers, so no meter exists and no
 * Micrometer code runs.
 */
interface IndexMetrics {
  IndexMetrics NONE = new IndexMetrics() {};

  /** A refresh on the primary succeeded after {@code nanos}. */
  default void refreshed(long nanos) {}

  /** The primary's index writer was lost for {@code reason}; the node gave its epoch up. */
  default void writerLost(StepDownReason reason) {}

  /** A read of a document failed on possibly corrupt bytes and was reported (its segment is checked). */
  default void unreadableRead() {}

  /** The check after a failed read found a local file corrupt (counted once per file name). */
  default void corruptFileFoundByRead() {}

  /** A write was refused because the data directory is below its free-space floor. */
  default void writeRefusedForSpace() {}

  /** This node now leads or follows primary generation {@code gen} (a role change). */
  default void generationSeen(long gen) {}

  /** The observer every replica this node opens reports to, across role changes. */
  default ReplicaObserver replicaObserver() {
    return ReplicaObserver.NONE;
  }

  /** The observer every primary this node opens reports to, across role changes. */
  default PrimaryObserver primaryObserver() {
    return PrimaryObserver.NONE;
  }

  /** Periodic look at {@code node} (every progress report, about every 100 ms) for sampled meters. */
  default void sample(ClusterNode node) {}

  /** The index closed: its meters leave the registry. */
  default void close() {}
}

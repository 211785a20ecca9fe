package io.nrtcluster.primary;

import io.nrtcluster.common.Experimental;
import java.util.List;
import java.util.Objects;

/**
 * What one merge pre-copy did: the merged segment's files sent to the replicas connected when the
 * merge finished (and those that connected while it ran), before the primary installed the segment.
 *
 * @param segment the merged segment's name
 * @param bytes total length of its files
 * @param files number of files
 * @param replicas replicas it was sent to
 * @param succeeded replicas that confirmed every byte (the rest were skipped or timed out)
 * @param nanos time from the start of the pre-copy until the last replica finished or was given up
 * @param outcomes how it ended for each replica it was sent to, in the order they were included
 * @param startedAtNanos {@link System#nanoTime()} when it started (0 when not known), so its window
 *     can be lined up with other measurements of this host
 */
@Experimental
public record PreCopyResult(String segment, long bytes, int files, int replicas, int succeeded, long nanos,
    List<ReplicaOutcome> outcomes, long startedAtNanos) {

  public PreCopyResult {
    outcomes = List.copyOf(Objects.requireNonNull(outcomes, "outcomes"));
  }

  /** A result without per-replica outcomes. */
  public PreCopyResult(String segment, long bytes, int files, int replicas, int succeeded, long nanos) {
    this(segment, bytes, files, replicas, succeeded, nanos, List.of(), 0);
  }

  /** How a pre-copy ended for one replica. */
  public enum Outcome {
    /** The replica confirmed every byte. */
    COPIED,
    /** The replica reported failure, or the request failed. */
    FAILED,
    /** The replica sent no progress for {@code preCopyKeepAlive}: merged without it. */
    NO_PROGRESS,
    /** The replica was still copying at {@code preCopyTimeout}: merged without it. */
    DEADLINE,
    /** The replica's connection closed before it finished. */
    DISCONNECTED,
    /** The pre-copy ended early (the primary closed or the merge thread was interrupted). */
    ABANDONED
  }

  /**
   * How the pre-copy ended for replica {@code replicaId}.
   *
   * @param replicaId the replica's node id, as sent in its handshake
   * @param outcome how it ended
   */
  public record ReplicaOutcome(int replicaId, Outcome outcome) {
    public ReplicaOutcome {
      Objects.requireNonNull(outcome, "outcome");
    }
  }
}

package io.nrtcluster.election;

import io.nrtcluster.common.Experimental;

/**
 * A node's standing in the elections of one index, as its member record publishes it: whether it
 * may be elected, and the last time it gave the epoch up by itself. The node's index state machine
 * owns it; {@link IndexElection} only reads it ({@link IndexElection#standingFrom}) when it writes
 * the member record.
 *
 * @param candidate whether the node may be elected now
 * @param lastStepDown the last time the node gave its epoch up by itself, or null if it never did
 */
@Experimental
public record Standing(boolean candidate, StepDown lastStepDown) {
  /** A node that may be elected and never gave an epoch up. */
  public static final Standing CANDIDATE = new Standing(true, null);
}

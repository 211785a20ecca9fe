package io.nrtcluster.node;

import io.nrtcluster.common.Experimental;
import io.nrtcluster.election.RebalancePlan;
import java.util.List;

/**
 * What an operator's rebalance ({@link ClusterAdmin#rebalance}) did: the plan it read, and how each
 * of its moves ended, in the plan's order.
 *
 * @param plan the plan as read before the first move
 * @param outcomes one per move of the plan; never null, unmodifiable
 */
@Experimental
public record RebalanceResult(RebalancePlan plan, List<MoveOutcome> outcomes) {
  public RebalanceResult {
    outcomes = List.copyOf(outcomes);
  }

  /** How one move ended. */
  public enum Status {
    /** The target is the primary now (a graceful hand-off: nothing acknowledged was lost). */
    MOVED,
    /** Not tried: the index's primary was no longer the move's source when its turn came. */
    SKIPPED,
    /** The promotion failed or was refused; the index's primary stays where it was. */
    FAILED
  }

  /**
   * @param move the plan's move
   * @param status how it ended
   * @param message why it was skipped or failed (empty when moved)
   */
  public record MoveOutcome(RebalancePlan.Move move, Status status, String message) {}

  /** How many moves ended with {@code status}. */
  public long count(Status status) {
    return outcomes.stream().filter(o -> o.status() == status).count();
  }
}

package io.nrtcluster.node;

import io.nrtcluster.common.ConnectionException;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.election.RebalancePlan;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * An operator's rebalance ({@link ClusterAdmin#rebalance}): the plan's moves as graceful promotions,
 * a few at a time, each checked against the index's primary just before it runs.
 */
final class AdminRebalance {
  /** Moves run at once (each stops its index's writes until its target caught up). */
  static final int PARALLEL = 2;

  private final ClusterAdmin admin;
  private final String cluster;
  private final Duration timeout;

  AdminRebalance(ClusterAdmin admin, String cluster, Duration timeout) {
    this.admin = admin;
    this.cluster = cluster;
    this.timeout = timeout;
  }

  RebalanceResult run(RebalancePlan plan) throws NrtClusterException {
    if (plan.isEmpty()) {
      return new RebalanceResult(plan, List.of());
    }
    ExecutorService pool = Executors.newFixedThreadPool(Math.min(PARALLEL, plan.moves().size()), r -> {
      Thread t = new Thread(r, "nrt-admin-rebalance");
      t.setDaemon(true);
      return t;
    });
    try {
      List<Future<RebalanceResult.MoveOutcome>> running = new ArrayList<>();
      for (RebalancePlan.Move m : plan.moves()) {
        running.add(pool.submit(() -> move(m)));
      }
      List<RebalanceResult.MoveOutcome> outcomes = new ArrayList<>();
      for (int i = 0; i < running.size(); i++) {
        try {
          outcomes.add(running.get(i).get());
        } catch (ExecutionException e) {
          outcomes.add(new RebalanceResult.MoveOutcome(plan.moves().get(i), RebalanceResult.Status.FAILED, e.getCause().toString()));
        }
      }
      return new RebalanceResult(plan, outcomes);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConnectionException("interrupted while rebalancing " + cluster, e);
    } finally {
      pool.shutdownNow();
    }
  }

  private RebalanceResult.MoveOutcome move(RebalancePlan.Move m) {
    try {
      int primary = admin.status(cluster, m.index()).primaryNodeId();
      if (primary != m.from()) {
        return new RebalanceResult.MoveOutcome(m, RebalanceResult.Status.SKIPPED, "the primary of " + m.index() + " is "
            + (primary < 0 ? "none" : "node " + primary) + " now, not node " + m.from());
      }
      admin.promote(cluster, m.index(), m.to(), timeout);
      return new RebalanceResult.MoveOutcome(m, RebalanceResult.Status.MOVED, "");
    } catch (NrtClusterException e) {
      return new RebalanceResult.MoveOutcome(m, RebalanceResult.Status.FAILED, e.code() + ": " + e.getMessage());
    }
  }
}

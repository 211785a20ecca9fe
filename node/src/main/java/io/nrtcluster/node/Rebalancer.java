package io.nrtcluster.node;

import io.nrtcluster.common.AdminException;
import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.NamedThreadFactory;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.election.Handoff;
import io.nrtcluster.election.IndexElection;
import io.nrtcluster.election.OperatorRequests;
import io.nrtcluster.election.Placement;
import io.nrtcluster.election.PlacementSource;
import io.nrtcluster.election.RebalancePlan;
import io.nrtcluster.election.ZkLayout;
import io.nrtcluster.election.ZooKeeperSession;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The host's own part of the automatic rebalancing ({@link HostConfig#rebalance}): every {@value
 * #TICK_MILLIS} ms it computes the cluster's {@link RebalancePlan} from what it holds in memory (the
 * hosts' records and its indexes' caches, no ZooKeeper read) and hands off its own primaries that
 * the plan moves, at most {@link HostConfig#maxConcurrentHandoffs} at a time. There is no
 * coordinator to elect: every host computes the same deterministic plan from the same records and
 * carries out only the moves that start from it; a host that read an older picture moves less, not
 * wrongly (each move still needs a caught-up target), and the next round corrects it.
 *
 * <p>A move is an operator's graceful hand-off, made by this host: the hand-off request in the
 * index's znode, carried out by the index's own {@code OperatorRequestWatch} and {@link
 * GracefulHandoff} (writes stop, a final version, the target searches it, commit, resign in its
 * favour), so no acknowledged write is lost and an operator's promotion of the same index excludes it.
 *
 * <p>Guarantees: nothing moves while any index of this host has no primary without a hand-off under
 * way, is suspected by a replica, or a host disappeared (a failover), nor for {@link
 * HostConfig#rebalanceQuietPeriod} after the last such sight (which includes the host's start);
 * nothing moves while an index of this host has no primary (a hand-off ending), or while the hosts'
 * records disagree with the primaries this host sees (they trail role changes by a moment); a round
 * waits for its hand-offs to end before the next is planned, and withdraws each request it made,
 * also when the host stops meanwhile. Every tick also brings this host's own
 * record up to date ({@code reconcile}), so a role change it missed is published within a tick.
 * Each move is logged ("rebalancing: ...") and counted ({@link NrtMeters#REBALANCE_HANDOFFS}).
 */
final class Rebalancer {
  static final long TICK_MILLIS = 500;
  /** How long a moved primary waits for its target to search the final version (writes of that index stop meanwhile). */
  static final Duration HANDOFF_TIMEOUT = Duration.ofSeconds(10);

  /** What a tick sees. */
  enum Picture {
    /** A failover is (or may be) under way: nothing moves, and the quiet period starts again. */
    FAILOVER,
    /** Something moves (a hand-off ends, the records trail a role change): look again next tick. */
    IN_FLUX,
    /** Every index has its primary and the records agree: a plan may run. */
    SETTLED
  }

  private final HostConfig config;
  private final ZooKeeperSession zk;
  private final PlacementSource placement;
  private final Supplier<Collection<ClusterNode>> indexes;
  private final Runnable reconcile;
  private final Runnable handedOff;
  private final NodeLog log;
  private final LongSupplier nanoTime;
  private final ScheduledExecutorService executor;
  private Set<Integer> lastHosts = Set.of();
  private long lastUnsettled;

  /**
   * @param indexes the host's open indexes
   * @param reconcile brings this host's own record up to date
   * @param handedOff counts one completed hand-off
   */
  Rebalancer(HostConfig config, ZooKeeperSession zk, PlacementSource placement, Supplier<Collection<ClusterNode>> indexes,
      Runnable reconcile, Runnable handedOff, NodeLog log, LongSupplier nanoTime) {
    this.config = config;
    this.zk = zk;
    this.placement = placement;
    this.indexes = indexes;
    this.reconcile = reconcile;
    this.handedOff = handedOff;
    this.log = log;
    this.nanoTime = nanoTime;
    this.lastUnsettled = nanoTime.getAsLong();
    this.executor = Executors.newSingleThreadScheduledExecutor(new NamedThreadFactory("nrt-placement-" + config.nodeId()));
  }

  void start() {
    executor.scheduleWithFixedDelay(this::tickSafely, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
  }

  /**
   * Stops, waiting at most {@code wait} for a round under way to end: it is interrupted and
   * withdraws its hand-off requests while ZooKeeper still answers (a zero wait: a halt, which
   * leaves them as a crash would).
   */
  void stop(Duration wait) {
    executor.shutdownNow();
    try {
      executor.awaitTermination(wait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void tickSafely() {
    try {
      tick();
    } catch (NrtClusterException | RuntimeException e) {
      log.warn("rebalancing step failed; trying again next tick: {}", e.toString());
    }
  }

  void tick() throws NrtClusterException {
    reconcile.run();
    if (!config.rebalance() || !zk.curator().getZookeeperClient().isConnected()) {
      return;
    }
    Placement now = placement.current();
    List<RebalancePlan.IndexView> views = new ArrayList<>();
    for (ClusterNode n : indexes.get()) {
      IndexElection e = n.election();
      if (e != null) {
        views.add(e.cachedView());
      }
    }
    Picture picture = picture(now, lastHosts, views);
    lastHosts = now.hosts();
    long t = nanoTime.getAsLong();
    if (picture == Picture.FAILOVER) {
      lastUnsettled = t;
      return;
    }
    if (picture == Picture.IN_FLUX || t - lastUnsettled < config.rebalanceQuietPeriod().toNanos()) {
      return;
    }
    RebalancePlan plan = RebalancePlan.compute(now, views);
    List<RebalancePlan.Move> mine = plan.movesFrom(config.nodeId());
    if (mine.isEmpty()) {
      return;
    }
    List<RebalancePlan.Move> round = mine.subList(0, Math.min(mine.size(), config.maxConcurrentHandoffs()));
    log.info("rebalancing: primaries per host {} (after the plan {}); handing off {} of this host's {} move(s): {}",
        plan.before(), plan.after(), round.size(), mine.size(), round);
    handOff(round);
  }

  /**
   * What {@code views} (this host's indexes) and the hosts' records say: {@link Picture#FAILOVER}
   * when a host of {@code previousHosts} is gone, any index is suspected, or any has no primary
   * and no hand-off under way; {@link Picture#IN_FLUX} when an index has no primary (a hand-off
   * ends), or the records do not name exactly its primary's host as its leader; {@link
   * Picture#SETTLED} otherwise. An index with a hand-off request there but its primary in place
   * (another host's move, or a request its operator left behind) does not hold the others up: the
   * plan leaves that index alone.
   */
  static Picture picture(Placement placement, Set<Integer> previousHosts, List<RebalancePlan.IndexView> views) {
    if (!placement.hosts().containsAll(previousHosts)) {
      return Picture.FAILOVER;
    }
    Picture p = Picture.SETTLED;
    for (RebalancePlan.IndexView v : views) {
      if (v.suspected() || (v.primary() == null && !v.handingOff())) {
        return Picture.FAILOVER;
      }
      if (v.primary() == null || !placement.leadersOf(v.index()).equals(Set.of(v.primary().nodeId()))) {
        p = Picture.IN_FLUX;
      }
    }
    return p;
  }

  /**
   * Deletes the hand-off request of {@code move}, also when this thread is being stopped (the
   * interrupt is kept for after): a request left behind would keep the index out of every later
   * promotion and plan.
   */
  private void withdraw(RebalancePlan.Move move, OperatorRequests requests) {
    boolean interrupted = Thread.interrupted();
    try {
      requests.withdrawHandoff();
    } catch (NrtClusterException e) {
      log.warn("rebalancing: withdrawing the hand-off request of {}: {}", move, e.toString());
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Requests every hand-off of {@code round} at once, then waits for each to end and withdraws it. */
  private void handOff(List<RebalancePlan.Move> round) throws NrtClusterException {
    record Requested(RebalancePlan.Move move, OperatorRequests requests, String id) {}
    List<Requested> requested = new ArrayList<>();
    for (RebalancePlan.Move m : round) {
      OperatorRequests requests = new OperatorRequests(zk, ZkLayout.of(config.cluster(), m.index()));
      Handoff h = new Handoff(UUID.randomUUID().toString(), m.to(), HANDOFF_TIMEOUT.toMillis(), Handoff.Status.REQUESTED, -1, "");
      try {
        requests.requestHandoff(h);
        requested.add(new Requested(m, requests, h.requestId()));
      } catch (AdminException e) {
        if (e.code() != ErrorCode.REFUSED) {
          throw e;
        }
        log.info("rebalancing: not moving {}: {}", m, e.getMessage());
      } catch (NrtClusterException e) {
        log.warn("rebalancing: could not request the hand-off of {}: {}", m, e.toString());
      }
    }
    for (Requested r : requested) {
      if (Thread.currentThread().isInterrupted()) {
        withdraw(r.move(), r.requests());
        continue;
      }
      try {
        Handoff end = r.requests().awaitHandoff(r.id(), HANDOFF_TIMEOUT.plusSeconds(10));
        switch (end.status()) {
          case HANDED_OFF -> {
            handedOff.run();
            log.info("rebalancing: handed {} to node {} at version {}", r.move().index(), r.move().to(), end.finalVersion());
          }
          case FAILED -> log.warn("rebalancing: the hand-off of {} failed, the primary stays: {}", r.move(), end.message());
          default -> log.warn("rebalancing: the hand-off of {} was not carried out in time ({})", r.move(), end.status());
        }
      } catch (NrtClusterException e) {
        log.warn("rebalancing: the hand-off of {} ended badly: {}", r.move(), e.toString());
      } finally {
        withdraw(r.move(), r.requests());
      }
    }
  }
}

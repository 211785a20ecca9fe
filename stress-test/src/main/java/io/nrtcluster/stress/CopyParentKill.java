package io.nrtcluster.stress;

import io.nrtcluster.stress.FaultPlan.Planned;
import io.nrtcluster.stress.agent.AgentApi;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongConsumer;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link FaultKind#COPY_PARENT_KILL} fault: SIGKILL of a replica that other replicas copy from
 * (a parent of the copy tree, as the primary's status names it and the child's own status confirms),
 * aimed at a moment when one of its children reports a copy in progress, and a restart after the
 * plan's delay. The children must notice, fetch from the primary whatever the parent did not finish
 * (their peer fallbacks) and catch up; the run's verdict judges that as after any kill.
 *
 * <p>The aim: for up to {@value #AIM_MILLIS} ms the children's statuses are polled until one says it
 * is copying while its copy source is the parent (the workload refreshes every half second, and a
 * child is told of a point once its parent installed it); the plan's variant slows every node's wire
 * meanwhile, so copies last long enough to be caught. A child seen copying at the kill makes it a
 * kill during a copy. The children's peer fallbacks are read just before the kill and again once the
 * parent is back; the difference is what the kill cost them.
 *
 * <p>When no live replica is a parent within {@value #TREE_WAIT_MILLIS} ms (a replica is down, so
 * two are left and both copy from the primary, or the primary has not placed a restarted replica
 * yet), nothing is killed: the fault is not applicable, and is counted so.
 */
final class CopyParentKill {
  private static final Logger LOG = LoggerFactory.getLogger(CopyParentKill.class);
  /** How long to wait for the copy tree to have a live parent with a live child that knows it. */
  static final long TREE_WAIT_MILLIS = 10_000;
  /** How long to wait for a child copying from the parent before killing the parent anyway. */
  static final long AIM_MILLIS = 6_000;
  /** Every node's wire while aiming, with the plan's variant: slow enough that a child's copy lasts. */
  static final long AIM_THROTTLE = 256 * 1024;
  private static final long POLL_MILLIS = 10;

  /** Restarts a killed node after a delay (the runner's, which every kill uses). */
  @FunctionalInterface
  interface Restart {
    void after(NodeProcess n, long millis) throws IOException, InterruptedException;
  }

  /** A parent and the replicas the primary has copying from it. */
  private record Target(int parent, List<Integer> children) {}

  /** Whom the aim saw copying from the parent (-1: nobody), and each child's peer fallbacks just before the kill. */
  private record Aim(int copyingChild, Map<Integer, Long> fallbacks) {}

  private final ProcessCluster processes;
  private final Duration recoveryTimeout;
  private final Timeline timeline;
  private final LongConsumer throttle;
  private final Restart restart;
  private final List<ChaosReport.ParentKill> kills = new CopyOnWriteArrayList<>();
  private final AtomicInteger notApplicable = new AtomicInteger();

  /**
   * @param throttle sets every live node's wire throttle (bytes a second, 0: none)
   * @param restart restarts a killed node after a delay
   */
  CopyParentKill(ProcessCluster processes, Duration recoveryTimeout, Timeline timeline, LongConsumer throttle,
      Restart restart) {
    this.processes = processes;
    this.recoveryTimeout = recoveryTimeout;
    this.timeline = timeline;
    this.throttle = throttle;
    this.restart = restart;
  }

  /** Injects the fault: true once a parent was killed and is back, false (counted) when none could be found. */
  boolean inject(Planned f) throws IOException, InterruptedException {
    Target target = awaitTarget(f.pick());
    if (target == null) {
      notApplicable.incrementAndGet();
      LOG.info("{} not applicable: no live replica is a copy parent of a live replica within {} ms",
          f.kind().key(), TREE_WAIT_MILLIS);
      return false;
    }
    NodeProcess parent = processes.node(target.parent());
    Aim aim;
    long at;
    if (f.variant()) {
      throttle.accept(AIM_THROTTLE);
    }
    try {
      aim = aim(target);
      parent.kill();
      at = timeline.now();
    } finally {
      if (f.variant()) {
        throttle.accept(0);
      }
    }
    String children = target.children().stream().map(c -> "N" + c).collect(Collectors.joining(", "));
    timeline.fault(f.kind(), "N" + parent.id(), "SIGKILL of the copy parent of " + children
        + (aim.copyingChild() >= 0 ? " during N" + aim.copyingChild() + "'s copy from it" : "")
        + (f.variant() ? ", wire slowed" : "") + "; restart after " + f.holdMillis() + " ms");
    restart.after(parent, f.holdMillis());
    long fallbacks = fallbacksSince(aim.fallbacks());
    kills.add(new ChaosReport.ParentKill(at, parent.id(), target.children(), aim.copyingChild(), fallbacks));
    LOG.info("copy parent N{} killed ({}), children {}: {} peer fallbacks until it was back", parent.id(),
        aim.copyingChild() >= 0 ? "during N" + aim.copyingChild() + "'s copy" : "no child seen copying", children, fallbacks);
    return true;
  }

  /** Every parent killed, in order. */
  List<ChaosReport.ParentKill> kills() {
    return List.copyOf(kills);
  }

  /** Kills not made: no parent when they fired. */
  int notApplicable() {
    return notApplicable.get();
  }

  /**
   * Waits (bounded) for a live parent: a replica the primary's copy tree names as the copy source of
   * a live replica that says so itself. Among several, the plan's {@code pick} chooses.
   */
  private Target awaitTarget(int pick) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TREE_WAIT_MILLIS);
    do {
      NodeProcess primary = processes.primary();
      AgentApi.Status p = primary == null ? null : primary.statusIfUp();
      if (p != null) {
        List<Target> targets = new ArrayList<>();
        for (int parent : p.copySources().values().stream().filter(id -> id >= 0).distinct().sorted().toList()) {
          NodeProcess node = parent >= 1 && parent <= processes.nodes().size() ? processes.node(parent) : null;
          if (node == null || node == primary || node.state() != NodeProcess.State.UP) {
            continue;
          }
          List<Integer> children = p.childrenOf(parent);
          if (children.stream().anyMatch(c -> knowsParent(c, parent))) {
            targets.add(new Target(parent, children));
          }
        }
        if (!targets.isEmpty()) {
          return targets.get(pick % targets.size());
        }
      }
      Thread.sleep(100);
    } while (System.nanoTime() < deadline);
    return null;
  }

  private boolean knowsParent(int child, int parent) {
    AgentApi.Status s = processes.node(child).statusIfUp();
    return s != null && s.copySource() == parent;
  }

  /** Polls the children (bounded) until one copies from the parent; the last fallbacks read of each. */
  private Aim aim(Target target) throws InterruptedException {
    Map<Integer, Long> fallbacks = new HashMap<>();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(AIM_MILLIS);
    do {
      for (int child : target.children()) {
        AgentApi.Status s = processes.node(child).statusIfUp();
        if (s == null) {
          continue;
        }
        fallbacks.put(child, s.peerFallbacks());
        if (s.copying() && s.copySource() == target.parent()) {
          return new Aim(child, fallbacks);
        }
      }
      Thread.sleep(POLL_MILLIS);
    } while (System.nanoTime() < deadline);
    return new Aim(-1, fallbacks);
  }

  /**
   * The children's peer fallbacks since {@code before}, once the parent is back (a child notices a
   * dead parent when its connection closes, or when nothing came for its stall timeout); a child
   * that does not answer within the recovery timeout (or was not read before) is left out; -1 when
   * none answered.
   */
  private long fallbacksSince(Map<Integer, Long> before) throws InterruptedException {
    long sum = -1;
    long deadline = System.nanoTime() + recoveryTimeout.toNanos();
    for (Map.Entry<Integer, Long> e : before.entrySet()) {
      NodeProcess child = processes.node(e.getKey());
      AgentApi.Status s = child.statusIfUp();
      while (s == null && child.state() == NodeProcess.State.UP && System.nanoTime() < deadline) {
        Thread.sleep(100);
        s = child.statusIfUp();
      }
      if (s != null) {
        sum = Math.max(sum, 0) + Math.max(0, s.peerFallbacks() - e.getValue());
      }
    }
    return sum;
  }

}

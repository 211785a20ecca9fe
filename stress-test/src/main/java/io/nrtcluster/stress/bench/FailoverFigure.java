package io.nrtcluster.stress.bench;

import io.nrtcluster.election.Role;
import io.nrtcluster.stress.AgentException;
import io.nrtcluster.stress.NodeProcess;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * Figure 6: the primary is lost, timed to the first write the new primary acknowledges and to every
 * live replica searching the new primary's first version, against the ZooKeeper session timeout (which
 * a failover on the replicas' evidence does not wait for). Two ways to lose it: {@code kill -9} (its
 * connections close at once) and {@code SIGSTOP} (it goes silent; its connections stay open), after
 * which it is woken with {@code SIGCONT} and timed until it reports itself a replica. Then the
 * acknowledged documents each durability level loses per kill ({@link AckLossFigure}).
 */
final class FailoverFigure {
  private static final long DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(120);
  /** The targets: p50 and max to the first write, p50 to every replica. */
  static final double TARGET_P50_MS = 1_500;
  static final double TARGET_MAX_MS = 2_500;
  static final double TARGET_ALL_REPLICAS_P50_MS = 2_000;
  /** Issue 30's target: the 99th percentile, not only the median, within 2 s. */
  static final double TARGET_P99_MS = 2_000;

  private FailoverFigure() {}

  record Taken(NodeProcess next, long writeNanos, long allReplicasNanos) {}

  /** Figure 6: {@code config.failovers()} kills, then as many pauses. */
  static BenchReport.Failover run(BenchConfig config, BenchNodes nodes, Consumer<String> out, BenchTable table)
      throws Exception {
    List<Long> toWrite = new ArrayList<>();
    List<Long> toReplicas = new ArrayList<>();
    for (int i = 0; i < config.failovers(); i++) {
      NodeProcess old = nodes.primary();
      out.accept("bench: failover " + (i + 1) + "/" + config.failovers() + ": kill -9 of N" + old.id());
      long t0 = System.nanoTime();
      old.kill();
      Taken t = awaitTakeover(nodes, old, t0);
      toWrite.add(t.writeNanos());
      toReplicas.add(t.allReplicasNanos());
      BenchNodes.start(old);
      BenchNodes.awaitRole(old, Role.REPLICA);
      nodes.awaitVersion(BenchNodes.client(t.next()).status().version());
    }
    List<Long> pauseToWrite = new ArrayList<>();
    List<Long> pauseToReplicas = new ArrayList<>();
    List<Long> wakeToReplica = new ArrayList<>();
    for (int i = 0; i < config.failovers(); i++) {
      NodeProcess old = nodes.primary();
      out.accept("bench: pause " + (i + 1) + "/" + config.failovers() + ": SIGSTOP of N" + old.id());
      long t0 = System.nanoTime();
      old.pause();
      Taken t;
      try {
        t = awaitTakeover(nodes, old, t0);
      } finally {
        old.resume();
      }
      long woken = System.nanoTime();
      BenchNodes.awaitRole(old, Role.REPLICA);
      wakeToReplica.add(System.nanoTime() - woken);
      pauseToWrite.add(t.writeNanos());
      pauseToReplicas.add(t.allReplicasNanos());
      nodes.awaitVersion(BenchNodes.client(t.next()).status().version());
    }
    Dist w = Dist.ofNanos(toWrite);
    Dist r = Dist.ofNanos(toReplicas);
    Dist pw = Dist.ofNanos(pauseToWrite);
    Dist pr = Dist.ofNanos(pauseToReplicas);
    Dist wake = Dist.ofNanos(wakeToReplica);
    BenchReport.Pause pause = new BenchReport.Pause(pw.p50(), pw.max(), pr.p50(), pr.max(), wake.p50(), wake.max(),
        pauseToWrite.size(), "SIGSTOP of the primary to the first write acknowledged by the new primary (p50Ms, maxMs), "
        + "to every other live replica searching its first version (allReplicas*), and from SIGCONT to the old primary "
        + "reporting itself a replica (wakeToReplica*)");
    table.row("failover to first write p50 / session timeout", w.p50(), config.sessionTimeoutMs(), "ms",
        met(w.p50() <= TARGET_P50_MS, "p50 <= 1,500 ms"));
    table.row("failover to first write max / session timeout", w.max(), config.sessionTimeoutMs(), "ms",
        met(w.max() <= TARGET_MAX_MS, "max <= 2,500 ms"));
    table.row("failover to first write p99 / session timeout", w.p99(), config.sessionTimeoutMs(), "ms",
        met(w.p99() <= TARGET_P99_MS, "p99 <= 2,000 ms"));
    table.row("failover to all replicas on new version (p50)", r.p50(), config.sessionTimeoutMs(), "ms",
        met(r.p50() <= TARGET_ALL_REPLICAS_P50_MS, "p50 <= 2,000 ms"));
    table.row("SIGSTOP to first write p50 / session timeout", pw.p50(), config.sessionTimeoutMs(), "ms", "");
    table.row("SIGSTOP to first write max / session timeout", pw.max(), config.sessionTimeoutMs(), "ms", "");
    table.row("SIGCONT to old primary a replica (p50)", wake.p50(), config.sessionTimeoutMs(), "ms", "");
    // Last, so the kills and pauses above are timed as before.
    List<BenchReport.AckLoss> loss = AckLossFigure.run(config, nodes, out, table);
    BenchReport.Failover fig = new BenchReport.Failover(w.p50(), w.max(), r.p50(), r.max(), config.sessionTimeoutMs(),
        toWrite.size(), Dist.ratio(w.p50(), config.sessionTimeoutMs()),
        "kill -9 of the primary to the first write acknowledged by the new primary (p50Ms, maxMs) and to "
        + "every live replica searching the new primary's first version (allReplicas*)",
        TARGET_P50_MS, TARGET_MAX_MS, TARGET_ALL_REPLICAS_P50_MS, pause, loss, w.p99(), TARGET_P99_MS);
    return fig;
  }

  private static String met(boolean met, String target) {
    return target + (met ? " met" : " missed");
  }

  /** Polls every live node but {@code old} for a write until one acknowledges, then every replica for its version. */
  static Taken awaitTakeover(BenchNodes nodes, NodeProcess old, long t0) throws IOException, AgentException {
    NodeProcess next = null;
    long written = -1;
    long deadline = t0 + DEADLINE_NANOS;
    while (written < 0 && System.nanoTime() < deadline) {
      for (NodeProcess p : nodes.cluster) {
        if (p != old && p.state() == NodeProcess.State.UP) {
          try {
            BenchNodes.client(p).write();
            written = System.nanoTime();
            next = p;
            break;
          } catch (AgentException e) {
            // not the primary yet
          }
        }
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
    }
    if (next == null) {
      throw new IOException("no new primary within 120 s of losing N" + old.id());
    }
    long firstVersion = BenchNodes.client(next).status().version();
    long all = -1;
    while (all < 0 && System.nanoTime() < deadline) {
      boolean every = true;
      for (NodeProcess p : nodes.cluster) {
        if (p != old && p != next) {
          every &= BenchNodes.client(p).status().version() >= firstVersion;
        }
      }
      if (every) {
        all = System.nanoTime();
      } else {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
      }
    }
    return new Taken(next, written - t0, all < 0 ? deadline - t0 : all - t0);
  }
}

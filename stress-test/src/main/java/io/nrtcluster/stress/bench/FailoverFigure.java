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
 * Figure 6: {@code kill -9} of the primary, timed to the first write the new primary acknowledges and
 * to every live replica searching the new primary's first version, against the session timeout.
 */
final class FailoverFigure {
  private FailoverFigure() {}

  /** Figure 6: kill -9 of the primary, to the first write the new primary acknowledges and to every replica on its first version. */
  static BenchReport.Failover run(BenchConfig config, BenchNodes nodes, Consumer<String> out, BenchTable table)
      throws Exception {
    List<Long> toWrite = new ArrayList<>();
    List<Long> toReplicas = new ArrayList<>();
    for (int i = 0; i < config.failovers(); i++) {
      NodeProcess old = nodes.primary();
      out.accept("bench: failover " + (i + 1) + "/" + config.failovers() + ": kill -9 of N" + old.id());
      long t0 = System.nanoTime();
      old.kill();
      NodeProcess next = null;
      long written = -1;
      long deadline = t0 + TimeUnit.SECONDS.toNanos(120);
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
        throw new IOException("no new primary within 120 s of killing N" + old.id());
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
      toWrite.add(written - t0);
      toReplicas.add(all < 0 ? deadline - t0 : all - t0);
      BenchNodes.start(old);
      BenchNodes.awaitRole(old, Role.REPLICA);
      nodes.awaitVersion(firstVersion);
    }
    Dist w = Dist.ofNanos(toWrite);
    Dist r = Dist.ofNanos(toReplicas);
    BenchReport.Failover fig = new BenchReport.Failover(w.p50(), w.max(), r.p50(), r.max(), config.sessionTimeoutMs(),
        toWrite.size(), Dist.ratio(w.p50(), config.sessionTimeoutMs()),
        "kill -9 of the primary to the first write acknowledged by the new primary (p50Ms, maxMs) and to "
        + "every live replica searching the new primary's first version (allReplicas*)");
    table.row("failover to first write / session timeout", w.p50(), config.sessionTimeoutMs(), "ms", "");
    table.row("failover to all replicas on new version (p50)", r.p50(), config.sessionTimeoutMs(), "ms", "");
    return fig;
  }
}

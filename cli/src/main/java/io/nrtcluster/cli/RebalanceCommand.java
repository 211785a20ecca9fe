package io.nrtcluster.cli;

import io.nrtcluster.common.AdminException;
import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.election.RebalancePlan;
import io.nrtcluster.node.ClusterAdmin;
import io.nrtcluster.node.RebalanceResult;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code nrt rebalance}: print the plan that brings every live node within one primary of the others
 * (index, from, to), then run it as graceful promotions; {@code --dry-run} prints it only.
 */
@Command(name = "rebalance", mixinStandardHelpOptions = true, description = {
    "Move primaries so that every live node holds within one primary of the others.",
    "Prints the primaries per node and the plan, one line per move (index, from node, to node), then "
        + "runs it: each move is a graceful promotion (no acknowledged write is lost; if the target cannot catch up "
        + "within --timeout, that index keeps its primary), two at a time. A move only goes to a caught-up "
        + "replica, never for an index without a primary, with a suspicion or a promotion under way.",
    "--dry-run: print the plan only; nothing changes.",
    "Exit codes: 0 done (or nothing to move), 1 error, 3 ZooKeeper unreachable, 4 unknown cluster, 6 "
        + "a move failed (the others ran; see its line), 7 ZooKeeper denied access (missing or wrong "
        + "--zk-user credentials)."})
final class RebalanceCommand implements Callable<Integer> {
  @Mixin AdminOptions admin;

  @Option(names = "--dry-run", description = "Print the plan; move nothing.")
  boolean dryRun;

  @Option(names = "--timeout", defaultValue = "60s", converter = DurationConverter.class, paramLabel = "DURATION",
      description = "How long each target may take to catch up (default: ${DEFAULT-VALUE}).")
  Duration timeout;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    try (ClusterAdmin a = admin.connect()) {
      RebalancePlan plan = a.rebalancePlan(admin.cluster);
      StatusCommand.printPrimariesPerNode(out, plan.before());
      if (plan.isEmpty()) {
        out.println("rebalance: nothing to move");
        out.flush();
        return 0;
      }
      out.printf("plan: %d move(s), then primaries per node %s%n", plan.moves().size(), plan.after());
      out.printf("  %-24s  %6s  %6s%n", "index", "from", "to");
      for (RebalancePlan.Move m : plan.moves()) {
        out.printf("  %-24s  %6d  %6d%n", m.index(), m.from(), m.to());
      }
      if (dryRun) {
        out.println("rebalance: dry run, nothing changed");
        out.flush();
        return 0;
      }
      out.flush();
      RebalanceResult result = a.rebalance(admin.cluster, plan, timeout);
      for (RebalanceResult.MoveOutcome o : result.outcomes()) {
        out.printf("  %s: %s%s%n", o.move(), o.status().name().toLowerCase(Locale.ROOT),
            o.message().isEmpty() ? "" : ": " + o.message());
      }
      StatusCommand.printPrimariesPerNode(out, a.primariesPerNode(admin.cluster));
      long failed = result.count(RebalanceResult.Status.FAILED);
      out.printf("rebalance: %d moved, %d skipped, %d failed%n", result.count(RebalanceResult.Status.MOVED),
          result.count(RebalanceResult.Status.SKIPPED), failed);
      out.flush();
      if (failed > 0) {
        throw new AdminException(ErrorCode.PROMOTION_FAILED, failed + " of " + plan.moves().size() + " move(s) failed");
      }
      return 0;
    }
  }
}

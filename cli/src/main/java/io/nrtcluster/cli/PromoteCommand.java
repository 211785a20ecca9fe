package io.nrtcluster.cli;

import io.nrtcluster.common.AdminException;
import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.node.ClusterAdmin;
import io.nrtcluster.node.IndexStatus;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code nrt promote}: make a chosen node the primary. Gracefully by default (no acknowledged write
 * is lost; nothing changes if the node cannot catch up in time; refused for a node outside the
 * in-sync set); {@code --force} for a dead primary, accepting the loss of acknowledged writes.
 */
@Command(name = "promote", mixinStandardHelpOptions = true, description = {
    "Make node N the primary of index I.",
    "Graceful (default): the primary stops writes, publishes a final version, waits until N searches "
        + "it, commits, and hands over; if N cannot catch up within --timeout nothing changes. Refused when "
        + "N is not in the index's in-sync set (it may lack acknowledged writes; `nrt status` shows the "
        + "set).",
    "--force: the primary is dead; promote N even if another live node is ahead (prints what is "
        + "lost), if N is not in the in-sync set (acknowledged writes, even replicated ones, may be lost), "
        + "or if N holds corrupt local files it has not copied again (prints them; refused without "
        + "--force).",
    "Exit codes: 0 promoted, 1 error, 3 ZooKeeper unreachable, 4 unknown cluster/index/node, 5 "
        + "refused (e.g. N already primary, N not in sync, N holds corrupt files, --force while a primary "
        + "lives, no --yes), 6 promotion failed, 7 ZooKeeper denied access (missing or wrong --zk-user "
        + "credentials)."})
final class PromoteCommand implements Callable<Integer> {
  @Mixin AdminOptions admin;

  @Option(names = "--index", required = true, paramLabel = "I", description = "Index to promote a node of.")
  String index;

  @Option(names = "--node", required = true, paramLabel = "N", description = "Node id to make primary.")
  int node;

  @Option(names = "--timeout", defaultValue = "60s", converter = DurationConverter.class, paramLabel = "DURATION",
      description = "How long node N may take to catch up (default: ${DEFAULT-VALUE}).")
  Duration timeout;

  @Option(names = "--force", description = "The primary is dead: promote N even if it is not the most up-to-date,"
      + " is not in the in-sync set, or holds corrupt local files. Acknowledged writes, even replicated ones,"
      + " may be lost.")
  boolean force;

  @Option(names = "--yes", description = "With --force: do not ask, accept losing what better candidates had.")
  boolean yes;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    try (ClusterAdmin a = admin.connect()) {
      IndexStatus before = a.status(admin.cluster, index);
      out.println("before:");
      StatusCommand.printTable(out, before);
      IndexStatus after;
      if (force) {
        ClusterAdmin.ForcePlan plan = a.planForcedPromotion(admin.cluster, index, node);
        if (plan.versionsAhead() > 0) {
          out.printf("WARNING: node %d is %d version(s) ahead of node %d; what only it had is lost.%n",
              plan.bestCandidate(), plan.versionsAhead(), node);
        } else {
          out.printf("node %d is the most up-to-date live node; nothing is lost.%n", node);
        }
        if (!plan.inSync()) {
          out.printf("WARNING: node %d is not in the in-sync set %s; writes the dead primary acknowledged,"
              + " replicated ones included, may be lost.%n", node, plan.inSyncNodes());
        }
        if (!plan.corruptFiles().isEmpty()) {
          out.printf("WARNING: node %d holds corrupt local files it has not copied again: %s%n", node, plan.corruptFiles());
        }
        out.flush();
        if (!yes) {
          throw new AdminException(ErrorCode.REFUSED, "forced promotion needs --yes to confirm");
        }
        after = a.forcePromote(admin.cluster, index, node, timeout);
      } else {
        after = a.promote(admin.cluster, index, node, timeout);
      }
      out.println("after:");
      StatusCommand.printTable(out, after);
      out.printf("promote: node %d is the primary of %s/%s with generation %d%n", node, admin.cluster, index, after.primaryGen());
      out.flush();
      return 0;
    }
  }
}

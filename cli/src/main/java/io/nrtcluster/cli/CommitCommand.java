package io.nrtcluster.cli;

import io.nrtcluster.election.CommandAck;
import io.nrtcluster.node.ClusterAdmin;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code nrt commit}: ask every node (or one) of an index to commit what it searches. */
@Command(name = "commit", mixinStandardHelpOptions = true, description = {
    "Ask every live node of index I (or only --node N) to commit; prints each node's answer.",
    "Exit codes: 0 all committed, 1 some did not, 3 ZooKeeper unreachable, 4 unknown "
        + "cluster/index/node, 7 ZooKeeper denied access (missing or wrong --zk-user credentials)."})
final class CommitCommand implements Callable<Integer> {
  @Mixin AdminOptions admin;

  @Option(names = "--index", required = true, paramLabel = "I", description = "Index to commit.")
  String index;

  @Option(names = "--node", paramLabel = "N", description = "Only this node.")
  Integer node;

  @Option(names = "--timeout", defaultValue = "60s", converter = DurationConverter.class, paramLabel = "DURATION",
      description = "How long to wait for the answers (default: ${DEFAULT-VALUE}).")
  Duration timeout;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    try (ClusterAdmin a = admin.connect()) {
      Map<Integer, CommandAck> answers = a.commit(admin.cluster, index, node, timeout);
      boolean allOk = true;
      for (Map.Entry<Integer, CommandAck> e : answers.entrySet()) {
        out.printf("node %d: %s%n", e.getKey(), e.getValue());
        allOk &= e.getValue().isOk();
      }
      out.flush();
      return allOk ? 0 : Main.EXIT_FAILED;
    }
  }
}

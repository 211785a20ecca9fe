package io.nrtcluster.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.nrtcluster.election.NotWritableReason;
import io.nrtcluster.node.ClusterAdmin;
import io.nrtcluster.node.IndexStatus;
import io.nrtcluster.node.MemberStatus;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code nrt status}: one row per node of each index, as a table or as JSON for scripts. */
@Command(name = "status", mixinStandardHelpOptions = true, description = {
    "Show every node of an index (or of every index): role, generation, versions, lag, copying, and "
        + "why a node last gave its primary role up by itself (a lost index writer: corruption, full disk) "
        + "or why a primary does not take writes (below its disk floor, fenced, handing off); the in-sync "
        + "set (the nodes that hold every replicated acknowledgement, the only ones elected or promoted "
        + "without --force) and why each replica that left it left (LAGGED: it lacked a version, RESTARTED: "
        + "it reopened its index), when; then how many primaries each live node holds (nodes holding none "
        + "included).",
    "Exit codes: 0 ok, 1 error, 3 ZooKeeper unreachable, 4 unknown cluster/index, 7 ZooKeeper denied "
        + "access (missing or wrong --zk-user credentials)."})
final class StatusCommand implements Callable<Integer> {
  @Mixin AdminOptions admin;

  @Option(names = "--index", paramLabel = "I", description = "Only this index.")
  String index;

  @Option(names = "--json", description = "Print JSON: {\"cluster\":..., \"indexes\":[{\"index\":..., \"primaryNodeId\":..., \"members\":[...], \"inSync\":{...}}]}.")
  boolean json;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    try (ClusterAdmin a = admin.connect()) {
      List<IndexStatus> all = new ArrayList<>();
      for (String i : index == null ? a.indexes(admin.cluster) : List.of(index)) {
        all.add(a.status(admin.cluster, i));
      }
      SortedMap<Integer, Integer> perNode = a.primariesPerNode(admin.cluster);
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        out.println(mapper.writeValueAsString(new ClusterJson(admin.cluster, all, perNode)));
      } else {
        for (IndexStatus s : all) {
          printTable(out, s);
        }
        printPrimariesPerNode(out, perNode);
      }
      out.flush();
      return 0;
    }
  }

  /** The JSON document {@code --json} prints; {@code primariesPerNode} is by node id, over every index of the cluster. */
  record ClusterJson(String cluster, List<IndexStatus> indexes, SortedMap<Integer, Integer> primariesPerNode) {}

  /** One line: {@code primaries per node: node 1: 4, node 2: 4, node 3: 4}. */
  static void printPrimariesPerNode(PrintWriter out, Map<Integer, Integer> perNode) {
    out.println("primaries per node: " + (perNode.isEmpty() ? "no live node"
        : perNode.entrySet().stream().map(e -> "node " + e.getKey() + ": " + e.getValue()).collect(Collectors.joining(", "))));
  }

  static void printTable(PrintWriter out, IndexStatus s) {
    out.printf("%s/%s  primary: %s%n", s.cluster(), s.index(),
        s.primaryNodeId() < 0 ? "none" : "node " + s.primaryNodeId() + " (generation " + s.primaryGen() + ")");
    out.printf("  %4s  %-21s  %-8s  %4s  %10s  %10s  %7s  %10s  %7s  %13s%n",
        "id", "address", "role", "gen", "searching", "committed", "behind", "last copy", "copying", "copy failures");
    for (MemberStatus m : s.members()) {
      out.printf("  %4d  %-21s  %-8s  %4d  %10d  %10d  %7s  %10s  %7s  %13d%n", m.nodeId(), m.address(), m.role(), m.primaryGen(),
          m.searchingVersion(), m.commitVersion(), m.versionsBehind() < 0 ? "-" : Long.toString(m.versionsBehind()),
          m.millisSinceLastCopy() < 0 ? "-" : Units.human(Duration.ofMillis(m.millisSinceLastCopy())) + " ago", m.copying() ? "yes" : "no",
          m.consecutiveCopyFailures());
      if (m.lastStepDown() != null) {
        // Why a primary gave its epoch up by itself (its index writer was lost), and whether it may lead again.
        out.printf("        stepped down %s ago: %s: %s%s%n",
            Units.human(Duration.ofMillis(Math.max(0, System.currentTimeMillis() - m.lastStepDown().atMillis()))),
            m.lastStepDown().reason(), m.lastStepDown().message(), m.candidate() ? "" : " (not a candidate yet)");
      } else if (!m.candidate()) {
        out.printf("        not a candidate in elections%n");
      }
    }
    // Who holds every replicated acknowledgement (and may be elected or promoted without --force), and who left why.
    out.printf("  %s%n", s.inSync() == null ? "in-sync: no record (every member counts as in sync)"
        : s.inSync().describe(System.currentTimeMillis()));
    for (MemberStatus m : s.members()) {
      if (!m.inSync()) {
        out.printf("  node %d is not in the in-sync set: it may lack acknowledged writes (promote needs --force)%n", m.nodeId());
      }
      // A replica's NOT_PRIMARY goes without saying; a primary that refuses writes is what an operator looks for.
      if (!m.writable() && m.notWritable() != NotWritableReason.NOT_PRIMARY) {
        out.printf("  node %d is not writable: %s%n", m.nodeId(), m.notWritable());
      }
      if (!m.integrity().corruptFiles().isEmpty()) {
        out.printf("  node %d holds corrupt files not yet copied again (not eligible to lead): %s%n", m.nodeId(),
            m.integrity().corruptFiles());
      }
    }
  }
}

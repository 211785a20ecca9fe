package io.nrtcluster.cli;

import io.nrtcluster.election.Role;
import io.nrtcluster.node.ClusterNode;
import io.nrtcluster.node.NodeStatus;
import io.nrtcluster.node.RoleListener;
import io.nrtcluster.objectstore.BootstrapResult;
import io.nrtcluster.objectstore.FollowerStatus;
import io.nrtcluster.objectstore.HostStoreConfig;
import io.nrtcluster.objectstore.VerifyReport;
import io.nrtcluster.transport.Traffic;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * The lines printed about a node's indexes: {@code N<id>/<index>} then {@code key=value} facts, so
 * that people and scripts read the same thing ({@code grep 'role=PRIMARY'}).
 */
final class NodeLines {
  private NodeLines() {}

  /** {@code N5/europarl role=PRIMARY gen=2 version=14 primary=127.0.0.1:9001} */
  static String role(NodeStatus s, Role role, long gen) {
    return String.format(Locale.ROOT, "N%d/%s role=%s gen=%s version=%d primary=%s", s.nodeId(), s.index(), role, gen(gen),
        s.searchingVersion(), s.primaryAddress() == null ? "-" : s.primaryAddress());
  }

  /**
   * {@code N5/europarl status role=REPLICA gen=2 version=14 commit=12 copying=false}, then {@code
   * stepped-down=DISK_FULL candidate=false} after a lost index writer and {@code below-disk-floor}
   * while writes are refused for space.
   */
  static String status(NodeStatus s) {
    String line = String.format(Locale.ROOT, "N%d/%s status role=%s gen=%s version=%d commit=%d copying=%s", s.nodeId(), s.index(),
        s.role(), gen(s.primaryGen()), s.searchingVersion(), s.commitVersion(), s.copying());
    if (s.lastStepDown() != null) {
      line += " stepped-down=" + s.lastStepDown().reason() + " candidate=" + s.candidate();
    }
    return s.belowDiskFloor() ? line + " below-disk-floor" : line;
  }

  /**
   * {@link #status} with what the node's transport exchanged with each peer for the index: {@code ...
   * sent=N2:1.2 MiB,N3:1.2 MiB} on a primary (what each replica cost it), {@code received=N1:1.2 MiB}
   * on a replica (where it copies from); nothing before any copy.
   */
  static String status(NodeStatus s, Map<Integer, Traffic> traffic) {
    return status(s, traffic, -1);
  }

  /**
   * {@link #status(NodeStatus, Map)}, and on a replica that copies from a peer (the copy tree's
   * parent, {@code copySource}, else -1) {@code from=N2} before what it received from each.
   */
  static String status(NodeStatus s, Map<Integer, Traffic> traffic, int copySource) {
    String line = status(s) + (copySource >= 0 && s.role() != Role.PRIMARY ? " from=N" + copySource : "");
    String sent = traffic.entrySet().stream().filter(e -> e.getValue().bytesSent() > 0 && s.role() == Role.PRIMARY)
        .map(e -> "N" + e.getKey() + ":" + Units.bytes(e.getValue().bytesSent())).collect(Collectors.joining(","));
    String received = traffic.entrySet().stream().filter(e -> e.getValue().bytesReceived() > 0 && s.role() != Role.PRIMARY)
        .map(e -> "N" + e.getKey() + ":" + Units.bytes(e.getValue().bytesReceived())).collect(Collectors.joining(","));
    return line + (sent.isEmpty() ? "" : " sent=" + sent) + (received.isEmpty() ? "" : " received=" + received);
  }

  /** How an index's bootstrap from the store ended: {@code N1/docs bootstrap RESTORED backup=v42 local=-1}. */
  static String bootstrap(int nodeId, String index, BootstrapResult r) {
    StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "N%d/%s bootstrap %s local=%d", nodeId, index,
        r.outcome(), r.localVersion()));
    if (r.manifest() != null) {
      b.append(" backup=").append(r.manifest().version());
    }
    if (r.error() != null) {
      b.append(" error=").append(Main.describe(r.error()));
    }
    return b.toString();
  }

  /**
   * What the last verification of an index's newest backup found: {@code N1/docs backup version 12
   * verified: intact (34 objects, 5.1 MiB)}, or {@code N1/docs backup version 12 DAMAGED: 2 object(s):
   * <key> (WRONG_CHECKSUM), <key> (MISSING)} naming every damaged object by its store key.
   */
  static String verification(int nodeId, String index, VerifyReport r) {
    String head = String.format(Locale.ROOT, "N%d/%s backup version %d", nodeId, index, r.manifest().version());
    if (r.intact()) {
      return head + String.format(Locale.ROOT, " verified: intact (%d objects, %s)", r.objectsChecked(),
          Units.bytes(r.bytesRead()));
    }
    return head + " DAMAGED: " + r.damage().size() + " object(s): "
        + r.damage().stream().map(d -> d.key() + " (" + d.problem() + ")").collect(Collectors.joining(", "));
  }

  /**
   * The host's object store as it last saw it: {@code N1 object store detached: bucket B did not
   * answer; indexes run without it, probed every 5s} or {@code N1 object store attached: bucket B}.
   */
  static String storeState(int nodeId, boolean attached, HostStoreConfig config) {
    String bucket = config.store().bucket();
    return attached ? String.format(Locale.ROOT, "N%d object store attached: bucket %s", nodeId, bucket)
        : String.format(Locale.ROOT, "N%d object store detached: bucket %s did not answer; indexes run without it,"
            + " probed every %s", nodeId, bucket, Units.human(config.startTimeout()));
  }

  /**
   * A follower's line: {@code F3/docs follower version=12 gen=2 newest=14 lag=2v/1.2s points=5
   * downloaded=14 (3.2 MiB) reused=20 failures=0}, and the last error when there was one.
   */
  static String follower(int nodeId, String index, FollowerStatus s) {
    return String.format(Locale.ROOT, "F%d/%s follower version=%d gen=%s newest=%d lag=%dv/%.1fs points=%d downloaded=%d (%s)"
        + " reused=%d failures=%d%s", nodeId, index, s.version(), gen(s.primaryGen()), s.newestVersion(), s.lagVersions(),
        s.lag().toMillis() / 1000.0, s.pointsInstalled(), s.filesDownloaded(), Units.bytes(s.bytesDownloaded()),
        s.filesReused(), s.failures(), s.lastError() == null ? "" : " last error: " + s.lastError());
  }

  private static String gen(long gen) {
    return gen < 0 ? "-" : Long.toString(gen);
  }

  /**
   * Prints each role change of the nodes it {@linkplain #watch watches} once. The line is made on
   * the election thread (quick) and printed on {@code printer}, so a slow reader of stdout never
   * holds up an election.
   */
  static final class RolePrinter implements RoleListener {
    private final Executor printer;
    private final Consumer<String> out;
    private final Map<String, String> last = new HashMap<>();

    RolePrinter(Executor printer, Consumer<String> out) {
      this.printer = printer;
      this.out = out;
    }

    /**
     * Listens to {@code node}. A listener can only be added once the index is open and its election
     * running, so a role it took meanwhile is printed here (unless the listener got there first).
     */
    void watch(ClusterNode node) {
      node.addRoleListener(this);
      Role role = node.role();
      if (role != Role.JOINING) {
        print(node, role, node.primaryGen(), true);
      }
    }

    @Override
    public void onRoleChange(ClusterNode node, Role role, long primaryGen) {
      print(node, role, primaryGen, false);
    }

    private synchronized void print(ClusterNode node, Role role, long gen, boolean onlyIfFirst) {
      if (onlyIfFirst && last.containsKey(node.index())) {
        return;
      }
      String key = role + "/" + gen;
      if (!key.equals(last.put(node.index(), key))) {
        String line = role(node.status(), role, gen);
        try {
          printer.execute(() -> out.accept(line));
        } catch (RejectedExecutionException e) {
          // The node is stopping: role changes while it leaves are not news.
        }
      }
    }
  }
}

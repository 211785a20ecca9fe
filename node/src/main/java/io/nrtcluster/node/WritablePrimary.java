package io.nrtcluster.node;

import io.nrtcluster.common.Experimental;
import io.nrtcluster.election.Role;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Which of the cluster nodes running in this process is the writable primary of an index, and the
 * one bounded wait for it. {@code nrt demo} and the in-JVM test harness (node's test-jar) both wait
 * through here, so "the cluster has a primary" means the same everywhere a process holds several
 * nodes.
 *
 * <p>Guarantees: a node counts only while its role is {@link Role#PRIMARY} and it accepts writes;
 * none, or more than one (an old primary not yet fenced while the new one already writes), is "no
 * primary yet". Only each node's role and writability are read, which never block on a network or
 * ZooKeeper wait, so polling is cheap. The wait is bounded, re-reads the node list on every poll
 * (nodes stop and start meanwhile) and answers -1 when the time is up: the caller words the
 * failure (a test's assertion, a command line's one-line error).
 */
@Experimental
public final class WritablePrimary {
  private WritablePrimary() {}

  /**
   * Position in {@code nodes} of the only writable primary, or -1 when there is none or more than
   * one. A null entry is a node that is down.
   */
  public static int find(List<? extends ClusterNode> nodes) {
    int found = -1;
    for (int i = 0; i < nodes.size(); i++) {
      ClusterNode n = nodes.get(i);
      if (n != null && n.role() == Role.PRIMARY && n.isWritablePrimary()) {
        if (found >= 0) {
          return -1;
        }
        found = i;
      }
    }
    return found;
  }

  /**
   * Asks {@link #find} every {@code pollInterval} until it names a node, for at most {@code timeout};
   * returns that node's position in the list {@code nodes} gave last, or -1 when the time ran out.
   *
   * @throws InterruptedException when interrupted while waiting (the flag is cleared, as usual)
   */
  public static int await(Supplier<? extends List<? extends ClusterNode>> nodes, Duration timeout, Duration pollInterval)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    long pause = Math.max(1, pollInterval.toNanos());
    while (true) {
      int p = find(nodes.get());
      if (p >= 0) {
        return p;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return -1;
      }
      TimeUnit.NANOSECONDS.sleep(Math.min(pause, left));
    }
  }

  /**
   * What each node is now, for a timeout message: "N1 PRIMARY writable, N2 REPLICA, N3 down"
   * (N&lt;position + 1&gt;).
   */
  public static String describe(List<? extends ClusterNode> nodes) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < nodes.size(); i++) {
      ClusterNode n = nodes.get(i);
      out.append(i == 0 ? "" : ", ").append('N').append(i + 1).append(' ');
      if (n == null) {
        out.append("down");
      } else {
        out.append(n.role()).append(n.isWritablePrimary() ? " writable" : "");
      }
    }
    return out.toString();
  }
}

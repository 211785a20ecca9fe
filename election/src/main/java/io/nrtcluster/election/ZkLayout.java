package io.nrtcluster.election;

import io.nrtcluster.common.Checks;
import org.apache.curator.utils.ZKPaths;

/**
 * Where one index's cluster state lives in ZooKeeper:
 *
 * <pre>
 * /nrtcluster/&lt;cluster&gt;/&lt;index&gt;/members/n-&lt;id&gt;  ephemeral, one per live node: {@link MemberInfo}
 * /nrtcluster/&lt;cluster&gt;/&lt;index&gt;/primary          ephemeral, the current primary: {@link PrimaryInfo}
 * /nrtcluster/&lt;cluster&gt;/&lt;index&gt;/epoch            persistent, the last primary generation handed out
 * /nrtcluster/&lt;cluster&gt;/&lt;index&gt;/maxVersion       persistent, the highest version ever published
 * /nrtcluster/&lt;cluster&gt;/&lt;index&gt;/successor        persistent while set: the only node that may claim next
 * /nrtcluster/&lt;cluster&gt;/&lt;index&gt;/handoff          persistent while an operator's promotion runs: {@link Handoff}
 * /nrtcluster/&lt;cluster&gt;/&lt;index&gt;/commands/cmd-N   an {@link OperatorCommand}; its children ack-&lt;id&gt;: {@link CommandAck}
 * /nrtcluster/&lt;cluster&gt;/&lt;index&gt;/suspicions/n-&lt;id&gt;  ephemeral while node id cannot reach the primary it follows: that primary's generation
 * </pre>
 */
public record ZkLayout(String root, String cluster, String index) {
  /** The znode under which every cluster lives, one child per cluster; shared by all clusters of an ensemble. */
  public static final String ROOT = "/nrtcluster";

  public ZkLayout {
    Checks.safeName("cluster", cluster);
    Checks.safeName("index", index);
  }

  public static ZkLayout of(String cluster, String index) {
    return new ZkLayout(ROOT, cluster, index);
  }

  /** The znode of {@code cluster}: everything the cluster keeps in ZooKeeper lies under it. */
  public static String clusterPath(String cluster) {
    return ZKPaths.makePath(ROOT, Checks.safeName("cluster", cluster));
  }

  public String clusterPath() {
    return ZKPaths.makePath(root, cluster);
  }

  public String indexPath() {
    return ZKPaths.makePath(clusterPath(), index);
  }

  public String members() {
    return ZKPaths.makePath(indexPath(), "members");
  }

  public String member(int nodeId) {
    return ZKPaths.makePath(members(), "n-" + nodeId);
  }

  public String primary() {
    return ZKPaths.makePath(indexPath(), "primary");
  }

  public String epoch() {
    return ZKPaths.makePath(indexPath(), "epoch");
  }

  public String successor() {
    return ZKPaths.makePath(indexPath(), "successor");
  }

  public String handoff() {
    return ZKPaths.makePath(indexPath(), "handoff");
  }

  public String commands() {
    return ZKPaths.makePath(indexPath(), "commands");
  }

  /** Parent of the replicas' suspicions of their primary ({@link Suspicions}). */
  public String suspicions() {
    return ZKPaths.makePath(indexPath(), "suspicions");
  }

  public String suspicion(int nodeId) {
    return ZKPaths.makePath(suspicions(), "n-" + nodeId);
  }

  public String maxVersion() {
    return ZKPaths.makePath(indexPath(), "maxVersion");
  }
}

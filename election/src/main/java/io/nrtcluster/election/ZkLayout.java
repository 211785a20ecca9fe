package io.nrtcluster.election;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.Internal;
import org.apache.curator.utils.ZKPaths;

/**
 * Where one index's cluster state lives in ZooKeeper, and the one entry of the cluster that is not
 * an index (the hosts):
 *
 * <pre>
 * /nrtcluster/&lt;cluster&gt;/_hosts/n-&lt;id&gt;        ephemeral, one per live host (process): the indexes it leads, {@link HostRecord}
 * /nrtcluster/&lt;cluster&gt;/&lt;index&gt;/members/n-&lt;id&gt;  ephemeral, one per live node: {@link MemberInfo}
 * /nrtcluster/&lt;cluster&gt;/&lt;index&gt;/primary          ephemeral, the current primary: {@link PrimaryInfo}
 * /nrtcluster/&lt;cluster&gt;/&lt;index&gt;/epoch            persistent, the last primary generation handed out
 * /nrtcluster/&lt;cluster&gt;/&lt;index&gt;/maxVersion       persistent, the highest version ever published
 * /nrtcluster/&lt;cluster&gt;/&lt;index&gt;/insync           persistent, the in-sync set the last primary wrote: {@link InSyncRecord}
 * /nrtcluster/&lt;cluster&gt;/&lt;index&gt;/successor        persistent while set: the only node that may claim next
 * /nrtcluster/&lt;cluster&gt;/&lt;index&gt;/handoff          persistent while an operator's promotion runs: {@link Handoff}
 * /nrtcluster/&lt;cluster&gt;/&lt;index&gt;/commands/cmd-N   an {@link OperatorCommand}; its children ack-&lt;id&gt;: {@link CommandAck}
 * /nrtcluster/&lt;cluster&gt;/&lt;index&gt;/suspicions/n-&lt;id&gt;  ephemeral while node id cannot reach the primary it follows: that primary's generation
 * </pre>
 *
 * <p>The hosts' parent is named {@value #HOSTS}: an index name must start with a letter or a digit
 * ({@link Checks#safeName}), so no index can be named like it, and an index named {@code hosts}
 * lives beside it. Listings of a cluster's indexes leave it out ({@link #isIndexName}).
 */
@Internal
public record ZkLayout(String root, String cluster, String index) {
  /** The znode under which every cluster lives, one child per cluster; shared by all clusters of an ensemble. */
  public static final String ROOT = "/nrtcluster";
  /**
   * The child of a cluster's znode that holds its hosts' records ({@link HostRecord}): it starts
   * with an underscore, which no index name may ({@link Checks#safeName}), so it never collides with one.
   */
  public static final String HOSTS = "_hosts";

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

  /** Parent of the hosts' records of {@code cluster} ({@link HostRecord}, one per live host). */
  public static String hostsPath(String cluster) {
    return ZKPaths.makePath(clusterPath(cluster), HOSTS);
  }

  /** The record of host {@code nodeId} in {@code cluster}. */
  public static String hostPath(String cluster, int nodeId) {
    return ZKPaths.makePath(hostsPath(cluster), "n-" + nodeId);
  }

  /**
   * Whether {@code child}, a child of a cluster's znode, is an index (and not the reserved {@link
   * #HOSTS}, or anything else no index may be named).
   */
  public static boolean isIndexName(String child) {
    try {
      Checks.safeName("index", child);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
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

  /** The in-sync set ({@link InSyncRecord}); empty until a primary writes it. */
  public String inSync() {
    return ZKPaths.makePath(indexPath(), "insync");
  }

  public String maxVersion() {
    return ZKPaths.makePath(indexPath(), "maxVersion");
  }
}

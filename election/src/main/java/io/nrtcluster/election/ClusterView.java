package io.nrtcluster.election;

import io.nrtcluster.common.Internal;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.ProtocolException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Read-only access to an index's state in ZooKeeper, for the election and for operator tools. */
@Internal
public final class ClusterView {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterView.class);

  private ClusterView() {}

  /**
   * {@link #members(CuratorFramework, ZkLayout)} over {@code zk}, failing with the library's typed
   * errors (denied access: {@link io.nrtcluster.common.ZooKeeperAccessException}; anything else:
   * {@link io.nrtcluster.common.ConnectionException}).
   */
  public static List<MemberInfo> members(ZooKeeperSession zk, ZkLayout layout) throws NrtClusterException {
    return ZkCalls.call(zk.auth(), "reading the members of " + layout.indexPath(), () -> members(zk.curator(), layout));
  }

  /** {@link #primary(CuratorFramework, ZkLayout)} over {@code zk}, failing as {@link #members(ZooKeeperSession, ZkLayout)}. */
  public static Optional<PrimaryInfo> primary(ZooKeeperSession zk, ZkLayout layout) throws NrtClusterException {
    return ZkCalls.call(zk.auth(), "reading the primary of " + layout.indexPath(), () -> primary(zk.curator(), layout));
  }

  /** {@link #indexes(CuratorFramework, String)} over {@code zk}, failing as {@link #members(ZooKeeperSession, ZkLayout)}. */
  public static Optional<List<String>> indexes(ZooKeeperSession zk, String cluster) throws NrtClusterException {
    return ZkCalls.call(zk.auth(), "listing the indexes of " + cluster, () -> indexes(zk.curator(), cluster));
  }

  /**
   * Who leads what by host, as the hosts' records say ({@link HostRecord}): every live host of {@code
   * cluster}, with the indexes it leads; malformed records are skipped with a warning. Fails as
   * {@link #members(ZooKeeperSession, ZkLayout)}.
   */
  public static Placement placement(ZooKeeperSession zk, String cluster) throws NrtClusterException {
    return ZkCalls.call(zk.auth(), "reading the hosts of " + cluster, () -> placement(zk.curator(), cluster));
  }

  /**
   * One index as the rebalancing sees it ({@link RebalancePlan.IndexView}): primary, members, and
   * whether a suspicion, a hand-off request or a successor designation is there. Fails as {@link
   * #members(ZooKeeperSession, ZkLayout)}.
   */
  public static RebalancePlan.IndexView indexView(ZooKeeperSession zk, ZkLayout layout) throws NrtClusterException {
    return ZkCalls.call(zk.auth(), "reading " + layout.indexPath(), () -> {
      CuratorFramework c = zk.curator();
      boolean suspected;
      try {
        suspected = !c.getChildren().forPath(layout.suspicions()).isEmpty();
      } catch (KeeperException.NoNodeException e) {
        suspected = false;
      }
      boolean handingOff = c.checkExists().forPath(layout.handoff()) != null || c.checkExists().forPath(layout.successor()) != null;
      return new RebalancePlan.IndexView(layout.index(), primary(c, layout).orElse(null), members(c, layout), suspected, handingOff,
          inSync(c, layout).orElse(null));
    });
  }

  /**
   * The index's in-sync record ({@link InSyncRecord}) as ZooKeeper holds it now; empty when there is
   * none (no primary of this release wrote one yet: every member counts as in sync). Reads only:
   * never creates the znode. Fails as {@link #members(ZooKeeperSession, ZkLayout)}, and with a
   * {@link ProtocolException} for a record that does not decode.
   */
  public static Optional<InSyncRecord> inSync(ZooKeeperSession zk, ZkLayout layout) throws NrtClusterException {
    return ZkCalls.call(zk.auth(), "reading the in-sync set of " + layout.indexPath(), () -> inSync(zk.curator(), layout));
  }

  /** {@link #inSync(ZooKeeperSession, ZkLayout)} over a bare client. */
  public static Optional<InSyncRecord> inSync(CuratorFramework client, ZkLayout layout) throws Exception {
    try {
      return Optional.ofNullable(InSyncRecord.decode(client.getData().forPath(layout.inSync())));
    } catch (KeeperException.NoNodeException e) {
      return Optional.empty();
    }
  }

  /** {@link #placement(ZooKeeperSession, String)} over a bare client. */
  public static Placement placement(CuratorFramework client, String cluster) throws Exception {
    String hosts = ZkLayout.hostsPath(cluster);
    List<HostRecord> records = new ArrayList<>();
    List<String> children;
    try {
      children = client.getChildren().forPath(hosts);
    } catch (KeeperException.NoNodeException e) {
      return Placement.EMPTY;
    }
    for (String child : children) {
      try {
        records.add(HostRecord.decode(client.getData().forPath(hosts + "/" + child)));
      } catch (KeeperException.NoNodeException e) {
        // Left while we looked.
      } catch (ProtocolException e) {
        LOG.warn("ignoring host record {} of {}: {}", child, cluster, e.getMessage());
      }
    }
    return Placement.of(records);
  }

  /**
   * Waits, with a watch on the primary znode, at most {@code timeout} until the primary satisfies
   * {@code wanted}; returns it then, or empty when it did not in time. Fails as {@link
   * #members(ZooKeeperSession, ZkLayout)}.
   */
  public static Optional<PrimaryInfo> awaitPrimary(ZooKeeperSession zk, ZkLayout layout, Predicate<PrimaryInfo> wanted,
      Duration timeout) throws NrtClusterException {
    Optional<PrimaryInfo> last = ZkCalls.call(zk.auth(), "waiting for the primary of " + layout.indexPath(),
        () -> WatchedWait.until(zk.curator(), timeout, (c, watcher) -> watchPrimary(c, watcher, layout),
            p -> p.isPresent() && wanted.test(p.get())));
    return last.filter(wanted);
  }

  /**
   * Waits, with a watch on the in-sync set's znode, at most {@code timeout} until node {@code nodeId}
   * is in the set in its current incarnation ({@link InSyncRecord#holds}), or no primary recorded a
   * set (every member may then be elected); true when it is. Fails as {@link
   * #members(ZooKeeperSession, ZkLayout)}.
   */
  public static boolean awaitInSync(ZooKeeperSession zk, ZkLayout layout, int nodeId, Duration timeout)
      throws NrtClusterException {
    return ZkCalls.call(zk.auth(), "waiting for node " + nodeId + " to join the in-sync set of " + layout.indexPath(),
        () -> WatchedWait.until(zk.curator(), timeout, (c, watcher) -> watchInSync(c, watcher, layout, nodeId), in -> in));
  }

  private static boolean watchInSync(CuratorFramework c, Watcher watcher, ZkLayout layout, int nodeId) throws Exception {
    InSyncRecord record;
    try {
      record = InSyncRecord.decode(c.getData().usingWatcher(watcher).forPath(layout.inSync()));
    } catch (KeeperException.NoNodeException e) {
      return true;
    }
    if (record == null) {
      return true;
    }
    try {
      return record.holds(MemberInfo.decode(c.getData().forPath(layout.member(nodeId))));
    } catch (KeeperException.NoNodeException e) {
      return false;
    }
  }

  private static Optional<PrimaryInfo> watchPrimary(CuratorFramework c, Watcher watcher, ZkLayout layout) throws Exception {
    while (true) {
      try {
        return Optional.of(PrimaryInfo.decode(c.getData().usingWatcher(watcher).forPath(layout.primary())));
      } catch (KeeperException.NoNodeException e) {
        // No primary: watch for one to be created (read again if it was, meanwhile).
        if (c.checkExists().usingWatcher(watcher).forPath(layout.primary()) == null) {
          return Optional.empty();
        }
      }
    }
  }

  /** Every live member, sorted by node id; malformed entries are skipped with a warning. */
  public static List<MemberInfo> members(CuratorFramework client, ZkLayout layout) throws Exception {
    List<MemberInfo> out = new ArrayList<>();
    List<String> children;
    try {
      children = client.getChildren().forPath(layout.members());
    } catch (KeeperException.NoNodeException e) {
      return out;
    }
    for (String child : children) {
      try {
        out.add(MemberInfo.decode(client.getData().forPath(layout.members() + "/" + child)));
      } catch (KeeperException.NoNodeException e) {
        // Left while we looked.
      } catch (ProtocolException e) {
        LOG.warn("ignoring member {} of {}: {}", child, layout.indexPath(), e.getMessage());
      }
    }
    out.sort(Comparator.comparingInt(MemberInfo::nodeId));
    return out;
  }

  /** The current primary, if any. */
  public static Optional<PrimaryInfo> primary(CuratorFramework client, ZkLayout layout) throws Exception {
    try {
      return Optional.of(PrimaryInfo.decode(client.getData().forPath(layout.primary())));
    } catch (KeeperException.NoNodeException e) {
      return Optional.empty();
    }
  }

  /**
   * Index names of {@code cluster}, sorted, or empty when the cluster is unknown; the cluster's
   * other entries ({@link ZkLayout#HOSTS}) are left out.
   */
  public static Optional<List<String>> indexes(CuratorFramework client, String cluster) throws Exception {
    try {
      return Optional.of(client.getChildren().forPath(ZkLayout.clusterPath(cluster)).stream()
          .filter(ZkLayout::isIndexName).sorted().toList());
    } catch (KeeperException.NoNodeException e) {
      return Optional.empty();
    }
  }
}

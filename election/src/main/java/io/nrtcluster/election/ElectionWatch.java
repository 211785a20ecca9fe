package io.nrtcluster.election;

import io.nrtcluster.common.ProtocolException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.utils.ZKPaths;

/**
 * What the election watches: a cache of the index's znodes (primary, epoch, members, successor,
 * the replicas' suspicions) and the client's connection state.
 *
 * <p>Guarantees: every change the cache sees, including its re-sync after a reconnect, runs {@code
 * onChange}, except changed progress (a member's data, the published version) while a primary znode
 * exists; every connection-state change reaches {@code onConnection}, until {@link #close}, which
 * detaches both; the cached members can be read at any time without a round trip to ZooKeeper.
 */
final class ElectionWatch {
  private final CuratorFramework client;
  private final ZkLayout layout;
  private final Runnable onChange;
  private final ConnectionStateListener onConnection;
  private volatile CuratorCache cache;

  /**
   * @param onChange run (on the cache's thread: keep it quick) for every change under the index
   * @param onConnection told of every connection-state change (on Curator's thread)
   */
  ElectionWatch(CuratorFramework client, ZkLayout layout, Runnable onChange, ConnectionStateListener onConnection) {
    this.client = client;
    this.layout = layout;
    this.onChange = onChange;
    this.onConnection = onConnection;
  }

  void start() {
    CuratorCache c = CuratorCache.build(client, layout.indexPath());
    cache = c;
    c.listenable().addListener(CuratorCacheListener.builder().forAll((type, before, after) -> {
      if (type == CuratorCacheListener.Type.NODE_CHANGED && isProgress(after.getPath()) && c.get(layout.primary()).isPresent()) {
        return;
      }
      onChange.run();
    }).build());
    c.start();
    client.getConnectionStateListenable().addListener(onConnection);
  }

  /**
   * A member's reported progress or the primary's published version: they change with every NRT
   * point (ten times a second per node at 100 ms refreshes), and while a primary holds the epoch the
   * election acts on neither, so waking it for them only cost a ZooKeeper read on every node. With
   * no primary they still wake it: the ranking of candidates reads them.
   */
  private boolean isProgress(String path) {
    return path.equals(layout.maxVersion()) || ZKPaths.getPathAndNode(path).getPath().equals(layout.members());
  }

  /**
   * Every live member as this node's ZooKeeper cache last saw them, sorted by node id; empty before
   * {@link #start} and after close. Malformed entries are skipped.
   */
  List<MemberInfo> cachedMembers() {
    CuratorCache c = cache;
    if (c == null) {
      return List.of();
    }
    String prefix = layout.members() + "/";
    List<MemberInfo> out = new ArrayList<>();
    c.stream()
        .filter(d -> d.getPath().startsWith(prefix) && d.getPath().indexOf('/', prefix.length()) < 0 && d.getData() != null)
        .forEach(d -> {
          try {
            out.add(MemberInfo.decode(d.getData()));
          } catch (ProtocolException e) {
            // Reported by the election's own reads; metrics just skip it.
          }
        });
    out.sort(Comparator.comparingInt(MemberInfo::nodeId));
    return out;
  }

  /**
   * What this node's cache last saw of the index, for the rebalancing: its primary, members,
   * whether any suspicion, hand-off request or successor designation is there, its in-sync record. Empty-handed (no
   * primary, no members) before {@link #start} and after close.
   */
  RebalancePlan.IndexView cachedView() {
    CuratorCache c = cache;
    if (c == null) {
      return new RebalancePlan.IndexView(layout.index(), null, List.of(), false, false);
    }
    PrimaryInfo primary = c.get(layout.primary()).map(d -> {
      try {
        return d.getData() == null ? null : PrimaryInfo.decode(d.getData());
      } catch (ProtocolException e) {
        return null;
      }
    }).orElse(null);
    String suspicionPrefix = layout.suspicions() + "/";
    boolean suspected = c.stream().anyMatch(d -> d.getPath().startsWith(suspicionPrefix));
    boolean handingOff = c.get(layout.handoff()).isPresent() || c.get(layout.successor()).isPresent();
    InSyncRecord inSync = c.get(layout.inSync()).map(d -> {
      try {
        return d.getData() == null ? null : InSyncRecord.decode(d.getData());
      } catch (ProtocolException e) {
        return null;
      }
    }).orElse(null);
    return new RebalancePlan.IndexView(layout.index(), primary, cachedMembers(), suspected, handingOff, inSync);
  }

  void close() {
    client.getConnectionStateListenable().removeListener(onConnection);
    CuratorCache c = cache;
    if (c != null) {
      c.close();
    }
  }
}

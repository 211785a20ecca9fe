package io.nrtcluster.election;

import io.nrtcluster.common.ConnectionException;
import io.nrtcluster.common.Durations;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.NrtClusterException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

/**
 * This node's membership of one index: its ephemeral member znode, carrying its {@link MemberInfo}.
 *
 * <p>Guarantees: {@link #register} returns only once the member znode exists (or fails); the znode
 * is a Curator {@code PersistentNode}, so it is recreated with the latest published info after a
 * session loss without the election's help; a progress update that cannot be written now is not
 * retried here, because the next one carries it.
 */
final class MemberRegistration {
  private final CuratorFramework client;
  private final ElectionConfig config;
  private final ZkLayout layout;
  private final NodeLog log;
  private volatile MemberInfo self;
  private volatile PersistentNode member;

  MemberRegistration(CuratorFramework client, ElectionConfig config, MemberInfo initial, NodeLog log) {
    this.client = client;
    this.config = config;
    this.layout = config.layout();
    this.log = log;
    this.self = initial;
  }

  /**
   * Creates the index's members and epoch znodes if missing and registers this node, waiting up to
   * the ZooKeeper timeout for the member znode; a {@link ConnectionException} when it does not
   * appear in time.
   */
  void register() throws Exception {
    long timeout = config.zkTimeout().toMillis();
    ensurePath(layout.members(), null);
    ensurePath(layout.epoch(), "0".getBytes(StandardCharsets.UTF_8));
    PersistentNode m = new PersistentNode(client, CreateMode.EPHEMERAL, false, layout.member(config.nodeId()), self.encode());
    member = m;
    m.start();
    if (!m.waitForInitialCreate(timeout, TimeUnit.MILLISECONDS)) {
      throw new ConnectionException("could not register member " + layout.member(config.nodeId()) + " within " + Durations.format(config.zkTimeout()));
    }
  }

  private void ensurePath(String path, byte[] data) throws Exception {
    try {
      if (data == null) {
        client.create().creatingParentContainersIfNeeded().forPath(path);
      } else {
        client.create().creatingParentContainersIfNeeded().forPath(path, data);
      }
    } catch (KeeperException.NodeExistsException e) {
      // Already there: another node created it first.
    }
  }

  /**
   * Remembers {@code info} and writes it to the member znode unless {@code leaving} (a node that is
   * leaving the election keeps its last published info).
   */
  void update(MemberInfo info, boolean leaving) {
    self = info;
    PersistentNode m = member;
    if (m != null && !leaving) {
      try {
        m.setData(info.encode());
      } catch (Exception e) {
        log.debug("member update not written now (it is re-sent with the next one): {}", e.toString());
      }
    }
  }

  /** The info last given (written, or kept while leaving). */
  MemberInfo current() {
    return self;
  }

  /** Every live member as ZooKeeper has them now. */
  List<MemberInfo> read() throws NrtClusterException {
    try {
      return ClusterView.members(client, layout);
    } catch (Exception e) {
      throw new ConnectionException("reading members from ZooKeeper failed: " + e, e);
    }
  }

  /** Removes the member znode (if registered). */
  void close() {
    PersistentNode m = member;
    if (m != null) {
      try {
        m.close();
      } catch (Exception e) {
        log.debug("closing member node: {}", e.toString());
      }
    }
  }
}

package io.nrtcluster.node;

import io.nrtcluster.common.AdminException;
import io.nrtcluster.common.Checks;
import io.nrtcluster.common.ClusterMismatchException;
import io.nrtcluster.common.ConnectionException;
import io.nrtcluster.common.Durations;
import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.ZooKeeperAccessException;
import io.nrtcluster.election.ClusterView;
import io.nrtcluster.election.MemberInfo;
import io.nrtcluster.election.PrimaryInfo;
import io.nrtcluster.election.ZkLayout;
import io.nrtcluster.election.ZooKeeperAccess;
import io.nrtcluster.election.ZooKeeperAuth;
import java.io.Closeable;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

/**
 * An operator's view and levers of a cluster, over ZooKeeper only: status of every node, graceful
 * promotion of a chosen replica, forced promotion when the primary is dead, and commit requests.
 * The same operations as {@code bin/nrt status|promote|commit}, for services that embed the library.
 *
 * <p>Every failure is an {@link NrtClusterException}: unknown cluster or index ({@link
 * ClusterMismatchException}), unknown node or refused request ({@link AdminException}), unreachable
 * ZooKeeper ({@link ConnectionException}), missing or wrong credentials for a cluster protected by
 * ZooKeeper ACLs ({@link ZooKeeperAccessException}). A failed promotion leaves the old primary in charge.
 */
public final class ClusterAdmin implements Closeable {
  private final CuratorFramework client;
  private final String connectString;
  private final Duration timeout;
  private final ZooKeeperAuth auth;

  private ClusterAdmin(CuratorFramework client, String connectString, Duration timeout, ZooKeeperAuth auth) {
    this.client = client;
    this.connectString = connectString;
    this.timeout = timeout;
    this.auth = auth;
  }

  /** Connects to ZooKeeper at {@code connectString} without credentials, waiting at most {@code timeout}. */
  public static ClusterAdmin connect(String connectString, Duration timeout) throws ConnectionException {
    return connect(connectString, timeout, null);
  }

  /**
   * Connects to ZooKeeper at {@code connectString} as {@code auth} (null: without credentials),
   * waiting at most {@code timeout}. Wrong credentials are found out by the first operation, which
   * fails with {@link ZooKeeperAccessException}; znodes this creates (promotion and commit requests)
   * get the same ACL as the nodes'.
   */
  public static ClusterAdmin connect(String connectString, Duration timeout, ZooKeeperAuth auth) throws ConnectionException {
    return new ClusterAdmin(open(connectString, timeout, auth, null), connectString, timeout, auth);
  }

  /** A started client authenticated as {@code auth} and, when not null, also as {@code previous}. */
  private static CuratorFramework open(String connectString, Duration timeout, ZooKeeperAuth auth, ZooKeeperAuth previous)
      throws ConnectionException {
    CuratorFrameworkFactory.Builder builder = ZooKeeperAuth.configure(CuratorFrameworkFactory.builder(), auth);
    if (previous != null) {
      builder.authorization(List.of(previous.authInfo(), auth.authInfo()));
    }
    CuratorFramework client = builder.connectString(connectString)
        .sessionTimeoutMs((int) Math.max(timeout.toMillis(), 4000)).connectionTimeoutMs((int) timeout.toMillis())
        .retryPolicy(new ExponentialBackoffRetry(100, 3)).build();
    client.start();
    try {
      if (!client.blockUntilConnected((int) timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        client.close();
        throw new ConnectionException("ZooKeeper at " + connectString + " unreachable within " + Durations.format(timeout));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      client.close();
      throw new ConnectionException("interrupted connecting to ZooKeeper", e);
    }
    return client;
  }

  /**
   * Checks that this tool's credentials can use every znode of {@code cluster} and, with
   * credentials, that none is open to anyone: the same check a node makes at start ({@link
   * ZooKeeperAccess#verify}).
   */
  public void verifyAccess(String cluster) throws NrtClusterException {
    ZooKeeperAccess.verify(client, cluster, auth);
  }

  /**
   * Migrates {@code cluster} to authentication: gives every znode of it the ACL of this tool's
   * credentials (that identity only, every permission); returns how many znodes changed. Stop every
   * node of the cluster first: a node still running without credentials loses ZooKeeper access.
   * Refused without credentials.
   */
  public int secure(String cluster) throws NrtClusterException {
    requireAuth(cluster);
    return call(() -> ZooKeeperAccess.secure(client, cluster, auth));
  }

  /**
   * Changes the credentials of {@code cluster} from {@code previous} to this tool's: every znode
   * readable with {@code previous} gets the ACL of the new ones only; returns how many changed. Stop
   * every node first and start them with the new credentials: a node still running with the
   * previous ones loses ZooKeeper access.
   */
  public int secure(String cluster, ZooKeeperAuth previous) throws NrtClusterException {
    requireAuth(cluster);
    Checks.notNull("previous", previous);
    CuratorFramework both = open(connectString, timeout, auth, previous);
    try {
      return call(() -> ZooKeeperAccess.secure(both, cluster, auth));
    } finally {
      both.close();
    }
  }

  private void requireAuth(String cluster) throws AdminException {
    if (auth == null) {
      throw new AdminException(ErrorCode.REFUSED, "securing cluster '" + cluster + "' needs ZooKeeper credentials");
    }
  }

  /** The indexes of {@code cluster}. */
  public List<String> indexes(String cluster) throws NrtClusterException {
    return call(() -> ClusterView.indexes(client, cluster).orElseThrow(() -> new ClusterMismatchException(
        ErrorCode.WRONG_CLUSTER, "no cluster named '" + cluster + "' in ZooKeeper at " + connectString)));
  }

  /** Status of every live member of {@code index}. */
  public IndexStatus status(String cluster, String index) throws NrtClusterException {
    ZkLayout layout = layout(cluster, index);
    return call(() -> {
      Optional<PrimaryInfo> primary = ClusterView.primary(client, layout);
      List<MemberInfo> members = ClusterView.members(client, layout);
      long primaryVersion = primary.flatMap(p -> members.stream().filter(m -> m.nodeId() == p.nodeId()).findFirst())
          .map(MemberInfo::searchingVersion).orElse(-1L);
      long now = System.currentTimeMillis();
      List<MemberStatus> rows = new ArrayList<>();
      for (MemberInfo m : members) {
        long behind = primaryVersion < 0 ? -1 : Math.max(0, primaryVersion - m.searchingVersion());
        rows.add(new MemberStatus(m.nodeId(), m.address(), m.role(), m.primaryGen(), m.searchingVersion(),
            m.commitVersion(), behind, m.lastCopyMillis() == 0 ? -1 : Math.max(0, now - m.lastCopyMillis()), m.copying()));
      }
      return new IndexStatus(cluster, index, primary.map(PrimaryInfo::nodeId).orElse(-1),
          primary.map(PrimaryInfo::primaryGen).orElse(-1L), rows);
    });
  }

  /**
   * Gracefully moves the primary role of {@code index} to {@code nodeId}: the primary stops writes,
   * publishes a final version, waits until the node searches it, commits, and resigns in its favour.
   * Returns the new primary's status. If the node cannot catch up within {@code timeout}, the old
   * primary resumes writes and this fails with {@link ErrorCode#PROMOTION_FAILED}.
   */
  public IndexStatus promote(String cluster, String index, int nodeId, Duration timeout) throws NrtClusterException {
    ZkLayout layout = layout(cluster, index);
    IndexStatus before = status(cluster, index);
    requireMember(before, nodeId);
    if (before.primaryNodeId() < 0) {
      throw new AdminException(ErrorCode.REFUSED, "index " + index + " has no live primary; use a forced promotion");
    }
    if (before.primaryNodeId() == nodeId) {
      throw new AdminException(ErrorCode.REFUSED, "node " + nodeId + " already is the primary of " + index);
    }
    Handoff request = new Handoff(UUID.randomUUID().toString(), nodeId, timeout.toMillis(), Handoff.Status.REQUESTED, -1, "");
    call(() -> {
      try {
        client.create().withMode(CreateMode.PERSISTENT).forPath(layout.handoff(), request.encode());
      } catch (KeeperException.NodeExistsException e) {
        throw new AdminException(ErrorCode.REFUSED, "another promotion of " + index + " is running (" + layout.handoff() + ")");
      }
      return null;
    });
    try {
      long deadline = System.nanoTime() + timeout.plusSeconds(30).toNanos();
      Handoff state = request;
      while (state.status() != Handoff.Status.HANDED_OFF && state.status() != Handoff.Status.FAILED) {
        if (System.nanoTime() > deadline) {
          throw new AdminException(ErrorCode.PROMOTION_FAILED, "the primary did not act on the promotion within " + Durations.format(timeout.plusSeconds(30)));
        }
        pause();
        state = call(() -> Handoff.decode(client.getData().forPath(layout.handoff())));
      }
      if (state.status() == Handoff.Status.FAILED) {
        throw new AdminException(ErrorCode.PROMOTION_FAILED, state.message());
      }
      return awaitPrimary(cluster, index, nodeId, before.primaryGen(), Duration.ofSeconds(30));
    } finally {
      call(() -> {
        try {
          client.delete().forPath(layout.handoff());
        } catch (KeeperException.NoNodeException e) {
          // Already gone.
        }
        return null;
      });
    }
  }

  /**
   * What a forced promotion of {@code nodeId} would lose: how many versions the most up-to-date live
   * member is ahead of it (0 when it is the best). Refused while a primary is alive.
   */
  public ForcePlan planForcedPromotion(String cluster, String index, int nodeId) throws NrtClusterException {
    IndexStatus status = status(cluster, index);
    MemberStatus target = requireMember(status, nodeId);
    if (status.primaryNodeId() >= 0) {
      throw new AdminException(ErrorCode.REFUSED, "node " + status.primaryNodeId() + " is the live primary of " + index
          + "; use a graceful promotion");
    }
    MemberStatus best = status.members().stream()
        .max((a, b) -> a.primaryGen() != b.primaryGen() ? Long.compare(a.primaryGen(), b.primaryGen())
            : Long.compare(a.searchingVersion(), b.searchingVersion()))
        .orElse(target);
    long ahead = best.primaryGen() > target.primaryGen() ? Math.max(1, best.searchingVersion() - target.searchingVersion())
        : Math.max(0, best.searchingVersion() - target.searchingVersion());
    return new ForcePlan(nodeId, best.nodeId(), ahead);
  }

  /**
   * Makes {@code nodeId} primary of an index whose primary is dead, even if it is not the most up-to-date
   * live member (documents only the better candidates had are lost: see {@link #planForcedPromotion}).
   */
  public IndexStatus forcePromote(String cluster, String index, int nodeId, Duration timeout) throws NrtClusterException {
    ZkLayout layout = layout(cluster, index);
    planForcedPromotion(cluster, index, nodeId);
    call(() -> {
      byte[] data = Integer.toString(nodeId).getBytes(StandardCharsets.UTF_8);
      try {
        client.create().forPath(layout.successor(), data);
      } catch (KeeperException.NodeExistsException e) {
        client.setData().forPath(layout.successor(), data);
      }
      return null;
    });
    return awaitPrimary(cluster, index, nodeId, -1, timeout);
  }

  /**
   * Asks {@code nodeId} (or every live member when null) to commit; returns each node's answer
   * ({@code "ok <commitVersion>"} or {@code "error ..."}), waiting at most {@code timeout}.
   */
  public Map<Integer, String> commit(String cluster, String index, Integer nodeId, Duration timeout) throws NrtClusterException {
    ZkLayout layout = layout(cluster, index);
    IndexStatus status = status(cluster, index);
    List<Integer> targets = new ArrayList<>();
    if (nodeId != null) {
      requireMember(status, nodeId);
      targets.add(nodeId);
    } else {
      status.members().forEach(m -> targets.add(m.nodeId()));
    }
    String target = nodeId == null ? "all" : nodeId.toString();
    String path = call(() -> client.create().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
        .forPath(ZKPaths.makePath(layout.commands(), "cmd-"), ("commit " + target).getBytes(StandardCharsets.UTF_8)));
    Map<Integer, String> answers = new LinkedHashMap<>();
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      while (answers.size() < targets.size() && System.nanoTime() < deadline) {
        pause();
        for (int id : targets) {
          if (!answers.containsKey(id)) {
            String ack = call(() -> {
              try {
                return new String(client.getData().forPath(ZKPaths.makePath(path, OperatorChannel.ACK_PREFIX + id)), StandardCharsets.UTF_8);
              } catch (KeeperException.NoNodeException e) {
                return null;
              }
            });
            if (ack != null) {
              answers.put(id, ack);
            }
          }
        }
      }
    } finally {
      call(() -> {
        client.delete().deletingChildrenIfNeeded().forPath(path);
        return null;
      });
    }
    for (int id : targets) {
      answers.putIfAbsent(id, "error no answer within " + Durations.format(timeout));
    }
    return answers;
  }

  private IndexStatus awaitPrimary(String cluster, String index, int nodeId, long oldGen, Duration timeout) throws NrtClusterException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      IndexStatus s = status(cluster, index);
      if (s.primaryNodeId() == nodeId && s.primaryGen() > oldGen) {
        return s;
      }
      if (System.nanoTime() > deadline) {
        throw new AdminException(ErrorCode.PROMOTION_FAILED, "node " + nodeId + " did not become primary of " + index + " within " + Durations.format(timeout));
      }
      pause();
    }
  }

  private MemberStatus requireMember(IndexStatus status, int nodeId) throws AdminException {
    return status.members().stream().filter(m -> m.nodeId() == nodeId).findFirst()
        .orElseThrow(() -> new AdminException(ErrorCode.UNKNOWN_NODE, "node " + nodeId + " is not a live member of "
            + status.cluster() + "/" + status.index()));
  }

  private ZkLayout layout(String cluster, String index) throws NrtClusterException {
    List<String> indexes = indexes(cluster);
    if (!indexes.contains(index)) {
      throw new ClusterMismatchException(ErrorCode.UNKNOWN_INDEX, "cluster '" + cluster + "' has no index '" + index
          + "' (it has " + indexes + ")");
    }
    return ZkLayout.of(cluster, index);
  }

  private static void pause() throws ConnectionException {
    try {
      Thread.sleep(50);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConnectionException("interrupted", e);
    }
  }

  @FunctionalInterface
  private interface ZkCall<T> {
    T run() throws Exception;
  }

  private <T> T call(ZkCall<T> op) throws NrtClusterException {
    try {
      return op.run();
    } catch (NrtClusterException e) {
      throw e;
    } catch (KeeperException.NoAuthException e) {
      throw ZooKeeperAccess.denied(e, auth);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConnectionException("interrupted", e);
    } catch (Exception e) {
      throw new ConnectionException("ZooKeeper operation failed: " + e, e);
    }
  }

  @Override
  public void close() {
    client.close();
  }

  /** Outcome preview of a forced promotion. */
  public record ForcePlan(int nodeId, int bestCandidate, long versionsAhead) {}

}

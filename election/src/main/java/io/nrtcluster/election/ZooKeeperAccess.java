package io.nrtcluster.election;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.ClusterMismatchException;
import io.nrtcluster.common.ConnectionException;
import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.Internal;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.ZooKeeperAccessException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.data.Stat;

/**
 * Checks and repairs of a cluster's ZooKeeper ACLs.
 *
 * <p>ZooKeeper accepts any digest credentials when a session starts (a wrong password is simply
 * another identity) and denies each later operation. {@link #verify} therefore reads the ACL of
 * every znode of the cluster before a node or tool touches anything, so wrong or missing
 * credentials end in one {@link ZooKeeperAccessException} at start instead of an election that
 * retries forever, and a tree still open to anyone (created before authentication was turned on)
 * is refused instead of being used as if it were protected. {@link #secure} is the migration of
 * such a tree.
 */
@Internal
public final class ZooKeeperAccess {
  private static final Id ANYONE = ZooDefs.Ids.ANYONE_ID_UNSAFE;
  private static final int LISTED = 5;
  private static final String SCHEME_PREFIX = ZooKeeperAuth.SCHEME + ":";

  private ZooKeeperAccess() {}

  /** {@link #verify(CuratorFramework, String, ZooKeeperAuth)} for {@code zk} and its own credentials. */
  public static void verify(ZooKeeperSession zk, String cluster) throws NrtClusterException {
    verify(zk.curator(), cluster, zk.auth());
  }

  /**
   * Fails with {@link ZooKeeperAccessException} unless {@code auth} (null: none) can use every
   * existing znode of {@code cluster}: {@link ErrorCode#ZOOKEEPER_ACCESS_DENIED} when ZooKeeper
   * denies this client anything there or some ACL does not give it every permission, {@link
   * ErrorCode#ZOOKEEPER_OPEN_ACL} when {@code auth} is set but some znode is open to anyone. A
   * cluster not yet in ZooKeeper passes (its znodes are created with the right ACLs).
   */
  public static void verify(CuratorFramework client, String cluster, ZooKeeperAuth auth) throws NrtClusterException {
    String clusterPath = ZkLayout.clusterPath(cluster);
    try {
      if (client.checkExists().forPath(clusterPath) == null) {
        return;
      }
      List<String> open = new ArrayList<>();
      String need = auth == null ? "world:anyone" : SCHEME_PREFIX + auth.user();
      for (String path : tree(client, clusterPath)) {
        List<ACL> acl;
        try {
          acl = client.getACL().forPath(path);
        } catch (KeeperException.NoNodeException e) {
          continue;
        }
        if (auth != null && acl.stream().anyMatch(a -> a.getId().equals(ANYONE))) {
          open.add(path);
        } else if (!grantsAll(acl, auth == null ? ANYONE : new Id(ZooKeeperAuth.SCHEME, auth.digestId()))) {
          throw new ZooKeeperAccessException(ErrorCode.ZOOKEEPER_ACCESS_DENIED, "the ACL of " + path + " " + describe(acl)
              + " does not give " + need + " every permission" + hint(auth));
        }
      }
      if (!open.isEmpty()) {
        throw new ZooKeeperAccessException(ErrorCode.ZOOKEEPER_OPEN_ACL, open.size() + " znode(s) of cluster '" + cluster
            + "' are open to anyone although ZooKeeper authentication is on (" + String.join(", ", open.subList(0, Math.min(LISTED, open.size())))
            + (open.size() > LISTED ? ", ..." : "") + "); they were created without credentials: stop every node and secure "
            + "the tree (ClusterAdmin.secure, 'nrt secure'), see docs/operations.md");
      }
    } catch (KeeperException.NoAuthException e) {
      throw denied(e, auth);
    } catch (NrtClusterException e) {
      throw e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConnectionException("interrupted checking ZooKeeper ACLs", e);
    } catch (Exception e) {
      throw new ConnectionException("checking the ZooKeeper ACLs of " + clusterPath + " failed: " + e, e);
    }
  }

  /**
   * {@link #secure(CuratorFramework, String, ZooKeeperAuth)} to the credentials of {@code zk} (it
   * may also be authenticated as the previous ones: {@link ZooKeeperSession.Builder#alsoAuthenticatedAs}).
   */
  public static int secure(ZooKeeperSession zk, String cluster) throws NrtClusterException {
    return secure(zk.curator(), cluster, Checks.notNull("auth", zk.auth()));
  }

  /**
   * Gives every znode of {@code cluster} the ACL of {@code auth} (only that identity, every
   * permission): the migration of a tree created without credentials, or, with a client that is
   * also authenticated with the previous credentials, a password change. Returns how many znodes it
   * changed. Run it while no node of the cluster runs without credentials: such a node loses access
   * to the znodes this secures, its own ephemeral ones included. The shared {@value ZkLayout#ROOT}
   * znode is left as it is (other clusters may live under it).
   */
  public static int secure(CuratorFramework client, String cluster, ZooKeeperAuth auth) throws NrtClusterException {
    String clusterPath = ZkLayout.clusterPath(cluster);
    List<ACL> target = auth.acl();
    int changed = 0;
    try {
      for (String path : tree(client, clusterPath)) {
        try {
          Stat stat = new Stat();
          List<ACL> acl = client.getACL().storingStatIn(stat).forPath(path);
          if (!acl.equals(target)) {
            client.setACL().withVersion(stat.getAversion()).withACL(target).forPath(path);
            changed++;
          }
        } catch (KeeperException.NoNodeException e) {
          // An ephemeral znode that went away meanwhile.
        }
      }
      return changed;
    } catch (KeeperException.NoNodeException e) {
      throw new ClusterMismatchException(ErrorCode.WRONG_CLUSTER, "no cluster '" + cluster + "' in ZooKeeper ("
          + clusterPath + " does not exist)");
    } catch (KeeperException.BadVersionException e) {
      throw new ConnectionException("the ACL of " + e.getPath() + " changed while securing it; run it again", e);
    } catch (KeeperException.NoAuthException e) {
      throw denied(e, auth);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConnectionException("interrupted securing " + clusterPath, e);
    } catch (Exception e) {
      throw new ConnectionException("securing " + clusterPath + " failed: " + e, e);
    }
  }

  /** Every znode at and below {@code path}, parents before children; znodes that vanish meanwhile are left out. */
  public static List<String> tree(CuratorFramework client, String path) throws Exception {
    List<String> out = new ArrayList<>();
    Deque<String> todo = new ArrayDeque<>();
    todo.push(path);
    while (!todo.isEmpty()) {
      String p = todo.pop();
      List<String> children;
      try {
        children = client.getChildren().forPath(p);
      } catch (KeeperException.NoNodeException e) {
        if (p.equals(path)) {
          throw e;
        }
        continue;
      }
      out.add(p);
      for (String c : children) {
        todo.push(ZKPaths.makePath(p, c));
      }
    }
    return out;
  }

  /** The typed error for an operation ZooKeeper denied, naming the znode and what to check. */
  public static ZooKeeperAccessException denied(KeeperException.NoAuthException e, ZooKeeperAuth auth) {
    String path = e.getPath() == null ? "a znode of the cluster" : e.getPath();
    return new ZooKeeperAccessException(ErrorCode.ZOOKEEPER_ACCESS_DENIED, "ZooKeeper denied access to " + path + hint(auth), e);
  }

  /** {@link #denied(KeeperException.NoAuthException, ZooKeeperAuth)} where the credentials in use are not known. */
  public static ZooKeeperAccessException denied(KeeperException.NoAuthException e) {
    String path = e.getPath() == null ? "a znode of the cluster" : e.getPath();
    return new ZooKeeperAccessException(ErrorCode.ZOOKEEPER_ACCESS_DENIED, "ZooKeeper denied access to " + path
        + ": the ZooKeeper credentials in use are not those the cluster's znodes were created with", e);
  }

  private static String hint(ZooKeeperAuth auth) {
    return auth == null
        ? ": the cluster's znodes are protected; configure the ZooKeeper credentials (HostConfig.zooKeeperAuth, --zk-user)"
        : ": wrong password for ZooKeeper user '" + auth.user() + "', or the znodes belong to other credentials "
            + "(ZooKeeper accepts any digest credentials at login and denies each operation)";
  }

  private static boolean grantsAll(List<ACL> acl, Id id) {
    int perms = 0;
    for (ACL a : acl) {
      if (a.getId().equals(id) || a.getId().equals(ANYONE)) {
        perms |= a.getPerms();
      }
    }
    return (perms & ZooDefs.Perms.ALL) == ZooDefs.Perms.ALL;
  }

  private static String describe(List<ACL> acl) {
    List<String> parts = new ArrayList<>();
    for (ACL a : acl) {
      parts.add(a.getId().getScheme() + ":" + a.getId().getId().replaceFirst(":.*", "") + ":" + perms(a.getPerms()));
    }
    return parts.toString();
  }

  private static String perms(int p) {
    StringBuilder s = new StringBuilder();
    s.append((p & ZooDefs.Perms.CREATE) != 0 ? 'c' : '-');
    s.append((p & ZooDefs.Perms.DELETE) != 0 ? 'd' : '-');
    s.append((p & ZooDefs.Perms.READ) != 0 ? 'r' : '-');
    s.append((p & ZooDefs.Perms.WRITE) != 0 ? 'w' : '-');
    s.append((p & ZooDefs.Perms.ADMIN) != 0 ? 'a' : '-');
    return s.toString();
  }

  /** {@link #sharedRootOpen(CuratorFramework)} over {@code zk}. */
  public static boolean sharedRootOpen(ZooKeeperSession zk) throws NrtClusterException {
    return sharedRootOpen(zk.curator());
  }

  /**
   * Whether the shared {@value ZkLayout#ROOT} znode exists and is open to anyone (it was created
   * without credentials, or by a cluster without them). Anyone can then list the cluster names and
   * add clusters beside this one; this cluster's own znodes stay protected. False when it belongs
   * to other credentials.
   */
  public static boolean sharedRootOpen(CuratorFramework client) throws NrtClusterException {
    try {
      return client.checkExists().forPath(ZkLayout.ROOT) != null
          && client.getACL().forPath(ZkLayout.ROOT).stream().anyMatch(a -> a.getId().equals(ANYONE));
    } catch (KeeperException.NoAuthException | KeeperException.NoNodeException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConnectionException("interrupted reading the ACL of " + ZkLayout.ROOT, e);
    } catch (Exception e) {
      throw new ConnectionException("reading the ACL of " + ZkLayout.ROOT + " failed: " + e, e);
    }
  }
}

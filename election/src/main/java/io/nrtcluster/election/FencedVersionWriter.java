package io.nrtcluster.election;

import io.nrtcluster.common.NotPrimaryException;
import io.nrtcluster.common.NotPublishedException;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.ProtocolException;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * Raises the index's {@code maxVersion} znode, but only in a transaction that also checks the
 * primary znode is still the one this session created: a primary whose session ended can never
 * record (and so never publish) a version. A lost epoch is {@link NotPrimaryException}; ZooKeeper
 * trouble that leaves the question open (unreachable, contention, interrupt) is {@link
 * NotPublishedException}: the version is not published, and the caller may retry.
 */
final class FencedVersionWriter {
  private static final int ATTEMPTS = 10;

  private final CuratorFramework client;
  private final ZkLayout layout;

  FencedVersionWriter(CuratorFramework client, ZkLayout layout) {
    this.client = client;
    this.layout = layout;
  }

  void publish(long version, Supplier<NotPrimaryException> notPrimary) throws NrtClusterException {
    try {
      for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
        Stat primaryStat = client.checkExists().forPath(layout.primary());
        if (primaryStat == null || primaryStat.getEphemeralOwner() != client.getZookeeperClient().getZooKeeper().getSessionId()) {
          throw notPrimary.get();
        }
        Stat maxStat = new Stat();
        long current;
        try {
          current = parse(client.getData().storingStatIn(maxStat).forPath(layout.maxVersion()));
        } catch (KeeperException.NoNodeException e) {
          try {
            client.transaction().forOperations(
                client.transactionOp().check().withVersion(primaryStat.getVersion()).forPath(layout.primary()),
                client.transactionOp().create().forPath(layout.maxVersion(), bytes(version)));
            return;
          } catch (KeeperException.NodeExistsException race) {
            continue;
          }
        }
        if (version <= current) {
          return;
        }
        try {
          client.transaction().forOperations(
              client.transactionOp().check().withVersion(primaryStat.getVersion()).forPath(layout.primary()),
              client.transactionOp().setData().withVersion(maxStat.getVersion()).forPath(layout.maxVersion(), bytes(version)));
          return;
        } catch (KeeperException.BadVersionException | KeeperException.NoNodeException race) {
          // Either maxVersion moved (retry) or the primary znode is gone (the next check says so).
        }
      }
      throw new NotPublishedException("could not record version " + version + " after " + ATTEMPTS + " attempts");
    } catch (NrtClusterException e) {
      throw e;
    } catch (KeeperException.NoAuthException e) {
      throw ZooKeeperAccess.denied(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new NotPublishedException("interrupted recording version " + version, e);
    } catch (Exception e) {
      throw new NotPublishedException("recording version " + version + " in ZooKeeper failed: " + e, e);
    }
  }

  static byte[] bytes(long v) {
    return Long.toString(v).getBytes(StandardCharsets.UTF_8);
  }

  static long parse(byte[] data) throws ProtocolException {
    try {
      return Long.parseLong(new String(data, StandardCharsets.UTF_8).trim());
    } catch (RuntimeException e) {
      throw new ProtocolException("malformed number in ZooKeeper: " + e);
    }
  }
}

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
 * Raises the index's {@code maxVersion} znode, but only in a transaction that also checks that the
 * epoch znode is unchanged since it said this primary's epoch, and that the primary znode is still
 * the one this session created: a primary whose session ended, or that resigned and was succeeded,
 * can never record (and so never publish) a version. The epoch check is what closes the gap between
 * reading and writing: a primary znode created anew by a successor has the same data version (0)
 * as ours had, so checking the primary znode alone let a resigned primary's publication land after
 * its successor's claim (which had already chosen its start version), and the successor then reused
 * that version number with other contents. Every claim rewrites the epoch znode, so its data version
 * moves. A lost epoch is {@link NotPrimaryException}; ZooKeeper trouble that leaves the question open
 * (unreachable, contention, interrupt) is {@link NotPublishedException}: the version is not
 * published, and the caller may retry.
 */
final class FencedVersionWriter {
  private static final int ATTEMPTS = 10;

  private final CuratorFramework client;
  private final ZkLayout layout;
  /** Runs after the reads and before the transaction of each attempt: a test's way into that gap. */
  private final Runnable beforeWrite;

  FencedVersionWriter(CuratorFramework client, ZkLayout layout) {
    this(client, layout, () -> {});
  }

  FencedVersionWriter(CuratorFramework client, ZkLayout layout, Runnable beforeWrite) {
    this.client = client;
    this.layout = layout;
    this.beforeWrite = beforeWrite;
  }

  /** Records {@code version} for the primary of {@code epoch}, which this session must hold. */
  void publish(long version, long epoch, Supplier<NotPrimaryException> notPrimary) throws NrtClusterException {
    try {
      for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
        Stat primaryStat = client.checkExists().forPath(layout.primary());
        if (primaryStat == null || primaryStat.getEphemeralOwner() != client.getZookeeperClient().getZooKeeper().getSessionId()) {
          throw notPrimary.get();
        }
        Stat epochStat = new Stat();
        if (parse(client.getData().storingStatIn(epochStat).forPath(layout.epoch())) != epoch) {
          throw notPrimary.get();
        }
        Stat maxStat = new Stat();
        long current;
        try {
          current = parse(client.getData().storingStatIn(maxStat).forPath(layout.maxVersion()));
        } catch (KeeperException.NoNodeException e) {
          beforeWrite.run();
          try {
            client.transaction().forOperations(
                client.transactionOp().check().withVersion(primaryStat.getVersion()).forPath(layout.primary()),
                client.transactionOp().check().withVersion(epochStat.getVersion()).forPath(layout.epoch()),
                client.transactionOp().create().forPath(layout.maxVersion(), bytes(version)));
            return;
          } catch (KeeperException.NodeExistsException | KeeperException.BadVersionException
              | KeeperException.NoNodeException race) {
            continue;
          }
        }
        if (version <= current) {
          // Only this epoch can have written it: every earlier one was fenced by our claim.
          return;
        }
        beforeWrite.run();
        try {
          client.transaction().forOperations(
              client.transactionOp().check().withVersion(primaryStat.getVersion()).forPath(layout.primary()),
              client.transactionOp().check().withVersion(epochStat.getVersion()).forPath(layout.epoch()),
              client.transactionOp().setData().withVersion(maxStat.getVersion()).forPath(layout.maxVersion(), bytes(version)));
          return;
        } catch (KeeperException.BadVersionException | KeeperException.NoNodeException race) {
          // maxVersion moved (retry), or the epoch or primary znode changed (the next reads say so).
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

package io.nrtcluster.election;

import io.nrtcluster.common.NotPrimaryException;
import io.nrtcluster.common.NotPublishedException;
import io.nrtcluster.common.NrtClusterException;
import java.util.function.Supplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.curator.framework.api.transaction.OperationType;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * Reads and writes an index's {@link InSyncRecord} znode.
 *
 * <p>Guarantees: the znode always exists once read (created empty when missing), so every claim can
 * check its data version, and a claim decided on one record fails if the record changed before the
 * claim landed; a write lands only in a transaction that also checks that this session owns the
 * primary znode and that the epoch znode still holds the writer's epoch (the rule of {@link
 * FencedVersionWriter}): a primary that lost its epoch, however it lost it, changes nothing and is
 * told {@link NotPrimaryException}. A write decided on a record that changed since is refused
 * without effect ({@link NotPublishedException}: read again and decide again).
 */
final class InSyncStore {
  private final CuratorFramework client;
  private final ZkLayout layout;
  /** Runs before each write's transaction: a test's way into the gap between the checks' reads and the write. */
  private final Runnable beforeWrite;

  InSyncStore(CuratorFramework client, ZkLayout layout, Runnable beforeWrite) {
    this.client = client;
    this.layout = layout;
    this.beforeWrite = beforeWrite;
  }

  /** The record now and its data version (creating the empty znode first if it is missing). */
  InSyncRecord.Stored read() throws Exception {
    for (int attempt = 0; ; attempt++) {
      Stat stat = new Stat();
      try {
        byte[] data = client.getData().storingStatIn(stat).forPath(layout.inSync());
        return new InSyncRecord.Stored(InSyncRecord.decode(data), stat.getVersion());
      } catch (KeeperException.NoNodeException e) {
        if (attempt > 3) {
          throw e;
        }
        try {
          client.create().creatingParentsIfNeeded().forPath(layout.inSync(), new byte[0]);
        } catch (KeeperException.NodeExistsException raced) {
          // Created meanwhile: read it.
        }
      }
    }
  }

  /**
   * Replaces the record at data version {@code expected} by {@code next}, for the primary of {@code
   * epoch}, which this session must hold; returns what was stored.
   */
  InSyncRecord.Stored replace(InSyncRecord next, int expected, long epoch, Supplier<NotPrimaryException> notPrimary)
      throws NrtClusterException {
    try {
      long session = client.getZookeeperClient().getZooKeeper().getSessionId();
      Stat primaryStat = client.checkExists().forPath(layout.primary());
      if (primaryStat == null || primaryStat.getEphemeralOwner() != session) {
        throw notPrimary.get();
      }
      Stat epochStat = new Stat();
      if (FencedVersionWriter.parse(client.getData().storingStatIn(epochStat).forPath(layout.epoch())) != epoch) {
        throw notPrimary.get();
      }
      beforeWrite.run();
      try {
        for (CuratorTransactionResult r : client.transaction().forOperations(
            client.transactionOp().check().withVersion(primaryStat.getVersion()).forPath(layout.primary()),
            client.transactionOp().check().withVersion(epochStat.getVersion()).forPath(layout.epoch()),
            client.transactionOp().setData().withVersion(expected).forPath(layout.inSync(), next.encode()))) {
          if (r.getType() == OperationType.SET_DATA && r.getResultStat() != null) {
            return new InSyncRecord.Stored(next, r.getResultStat().getVersion());
          }
        }
        throw new IllegalStateException("a transaction with a setData returned no stat for it");
      } catch (KeeperException.BadVersionException | KeeperException.NoNodeException changed) {
        Stat now = client.checkExists().forPath(layout.primary());
        Stat epochNow = new Stat();
        long epochRead = FencedVersionWriter.parse(client.getData().storingStatIn(epochNow).forPath(layout.epoch()));
        if (now == null || now.getEphemeralOwner() != session || epochRead != epoch || epochNow.getVersion() != epochStat.getVersion()) {
          throw notPrimary.get();
        }
        throw new NotPublishedException("the in-sync set changed since it was read (data version " + expected + "); read it again");
      }
    } catch (NrtClusterException e) {
      throw e;
    } catch (KeeperException.NoAuthException e) {
      throw ZooKeeperAccess.denied(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new NotPublishedException("interrupted writing the in-sync set", e);
    } catch (Exception e) {
      throw new NotPublishedException("writing the in-sync set in ZooKeeper failed: " + e, e);
    }
  }
}

package io.nrtcluster.election;

import io.nrtcluster.common.NotPrimaryException;
import io.nrtcluster.common.NotPublishedException;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.ProtocolException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Supplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.curator.framework.api.transaction.OperationType;
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
 *
 * <p>A version already at or below {@code maxVersion} (a retry of this primary's own publication) is
 * confirmed by the same kind of transaction, with check operations only: it is "published" only if
 * the primary and epoch znodes are still the ones read, so a primary paused between its reads while
 * a successor claimed and published past that number is told {@link NotPrimaryException}.
 *
 * <p>A primary publishes with every refresh, so the common case is one round trip: the data versions
 * of the last successful transaction are kept, and the next publication of the same epoch and session
 * sends its transaction with them at once, without reading first. The transaction checks exactly what
 * the reads would have established (the same primary znode and epoch znode, at the data versions of
 * this primary's own transaction), so it fences as the full path does; any mismatch (a claim moved
 * the epoch, the znode is gone, someone else wrote {@code maxVersion}) fails it and the full path,
 * with its reads, decides.
 */
final class FencedVersionWriter {
  private static final int ATTEMPTS = 10;

  private final CuratorFramework client;
  private final ZkLayout layout;
  /** Runs after the reads and before the transaction of each attempt: a test's way into that gap. */
  private final Runnable beforeWrite;
  /** Runs after the epoch read and before the {@code maxVersion} read of each attempt: a test's way into that gap. */
  private final Runnable beforeMaxVersionRead;
  /** The data versions the last successful publication saw and left, or null (none yet, or stale). */
  private volatile Known known;

  /** What one successful publication of {@code epoch} by session {@code session} left in ZooKeeper. */
  private record Known(long epoch, long session, int primaryVersion, int epochVersion, int maxVersionVersion,
      long maxVersion) {}

  FencedVersionWriter(CuratorFramework client, ZkLayout layout) {
    this(client, layout, () -> {});
  }

  FencedVersionWriter(CuratorFramework client, ZkLayout layout, Runnable beforeWrite) {
    this(client, layout, beforeWrite, () -> {});
  }

  FencedVersionWriter(CuratorFramework client, ZkLayout layout, Runnable beforeWrite, Runnable beforeMaxVersionRead) {
    this.client = client;
    this.layout = layout;
    this.beforeWrite = beforeWrite;
    this.beforeMaxVersionRead = beforeMaxVersionRead;
  }

  /** Records {@code version} for the primary of {@code epoch}, which this session must hold. */
  void publish(long version, long epoch, Supplier<NotPrimaryException> notPrimary) throws NrtClusterException {
    try {
      long session = client.getZookeeperClient().getZooKeeper().getSessionId();
      if (publishKnown(version, epoch, session)) {
        return;
      }
      for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
        Stat primaryStat = client.checkExists().forPath(layout.primary());
        if (primaryStat == null || primaryStat.getEphemeralOwner() != session) {
          throw notPrimary.get();
        }
        Stat epochStat = new Stat();
        if (parse(client.getData().storingStatIn(epochStat).forPath(layout.epoch())) != epoch) {
          throw notPrimary.get();
        }
        beforeMaxVersionRead.run();
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
            known = new Known(epoch, session, primaryStat.getVersion(), epochStat.getVersion(), 0, version);
            return;
          } catch (KeeperException.NodeExistsException | KeeperException.BadVersionException
              | KeeperException.NoNodeException race) {
            continue;
          }
        }
        if (version <= current) {
          // Already at or below maxVersion: ours only if nothing claimed the epoch since our reads (a
          // successor that claimed and published past it has moved the epoch znode). The reads alone
          // prove nothing: we may have been paused between them.
          beforeWrite.run();
          try {
            client.transaction().forOperations(
                client.transactionOp().check().withVersion(primaryStat.getVersion()).forPath(layout.primary()),
                client.transactionOp().check().withVersion(epochStat.getVersion()).forPath(layout.epoch()),
                client.transactionOp().check().withVersion(maxStat.getVersion()).forPath(layout.maxVersion()));
            return;
          } catch (KeeperException.BadVersionException | KeeperException.NoNodeException race) {
            continue; // the next reads say whether the epoch moved or only maxVersion did
          }
        }
        beforeWrite.run();
        try {
          List<CuratorTransactionResult> results = client.transaction().forOperations(
              client.transactionOp().check().withVersion(primaryStat.getVersion()).forPath(layout.primary()),
              client.transactionOp().check().withVersion(epochStat.getVersion()).forPath(layout.epoch()),
              client.transactionOp().setData().withVersion(maxStat.getVersion()).forPath(layout.maxVersion(), bytes(version)));
          known = new Known(epoch, session, primaryStat.getVersion(), epochStat.getVersion(), written(results), version);
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

  /**
   * The one-round-trip path: true when {@code version} was recorded with the data versions the last
   * publication of this epoch and session left; false (and nothing known any more) when there are
   * none or the transaction found any of them changed, so the caller takes the full path. Errors
   * other than a version mismatch or a missing znode propagate as in the full path.
   */
  private boolean publishKnown(long version, long epoch, long session) throws Exception {
    Known k = known;
    if (k == null || k.epoch() != epoch || k.session() != session || version <= k.maxVersion()) {
      return false;
    }
    beforeWrite.run();
    try {
      List<CuratorTransactionResult> results = client.transaction().forOperations(
          client.transactionOp().check().withVersion(k.primaryVersion()).forPath(layout.primary()),
          client.transactionOp().check().withVersion(k.epochVersion()).forPath(layout.epoch()),
          client.transactionOp().setData().withVersion(k.maxVersionVersion()).forPath(layout.maxVersion(), bytes(version)));
      known = new Known(epoch, session, k.primaryVersion(), k.epochVersion(), written(results), version);
      return true;
    } catch (KeeperException.BadVersionException | KeeperException.NoNodeException changed) {
      known = null;
      return false;
    }
  }

  /** The data version {@code maxVersion} has after the transaction's setData. */
  private static int written(List<CuratorTransactionResult> results) {
    for (CuratorTransactionResult r : results) {
      if (r.getType() == OperationType.SET_DATA && r.getResultStat() != null) {
        return r.getResultStat().getVersion();
      }
    }
    throw new IllegalStateException("a transaction with a setData returned no stat for it: " + results);
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

package io.nrtcluster.election;

import io.nrtcluster.common.NodeLog;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * The znode writes that decide who leads the next epoch: an operator's successor designation and
 * the claim itself.
 *
 * <p>Guarantees: a claim bumps the epoch znode with a versioned write and creates the ephemeral
 * primary znode in one transaction, so at most one node wins each epoch and a loser changes nothing;
 * a claim that deposes a suspected primary also deletes its primary znode, at the version read, in
 * that same transaction, so it fails (changing nothing) if the znode went meanwhile (a session
 * expiry), and it is made only while the epoch znode still holds the suspected primary's
 * generation, so it never deposes a successor that claimed meanwhile (a re-created primary znode
 * starts again at data version 0, so the version alone cannot tell the suspected znode from its
 * successor's);
 * the epoch won is above every epoch the epoch znode or any live member has seen; the version the
 * winner must start above is at least every version ever published ({@code maxVersion}) or held by
 * a live member, so version numbers never go back across a failover; a winner consumes the
 * successor designation it was elected by.
 */
final class EpochClaim {
  private final CuratorFramework client;
  private final ElectionConfig config;
  private final ZkLayout layout;
  private final NodeLog log;

  /** An epoch this node won, and the version its primary must start above ({@code forceVersion - 1}). */
  record Won(long gen, long forceVersion) {}

  EpochClaim(CuratorFramework client, ElectionConfig config, NodeLog log) {
    this.client = client;
    this.config = config;
    this.layout = config.layout();
    this.log = log;
  }

  /** Claims the next epoch over {@code members} (read just before); null when another node was first. */
  Won claim(List<MemberInfo> members) throws Exception {
    return claim(members, null, -1, -1);
  }

  /**
   * Claims the next epoch over {@code members} (read just before); when {@code deposed} is not null,
   * deposes that primary: deletes the primary znode (read at data version {@code deposedVersion}) in
   * the same transaction, and only while the epoch znode still holds {@code deposed}'s generation.
   * Null when another node was first or the primary znode is no longer the one read, or when
   * {@code inSyncVersion} is not negative and the in-sync set's znode is no longer at that data
   * version (its primary changed it after the decision read it).
   */
  Won claim(List<MemberInfo> members, PrimaryInfo deposed, int deposedVersion, int inSyncVersion) throws Exception {
    Stat epochStat = new Stat();
    long epoch = FencedVersionWriter.parse(client.getData().storingStatIn(epochStat).forPath(layout.epoch()));
    if (deposed != null && epoch != deposed.primaryGen()) {
      // Another claim (this node's decision read the primary znode before it) has already replaced
      // the suspected primary; its znode may even have the data version read, being new.
      log.info("epoch {} was claimed after primary {} of epoch {} was suspected; not deposing", epoch, deposed.nodeId(),
          deposed.primaryGen());
      return null;
    }
    long highest = Math.max(epoch, members.stream().mapToLong(MemberInfo::primaryGen).max().orElse(-1));
    long gen = highest + 1;
    PrimaryInfo me = new PrimaryInfo(config.nodeId(), config.address(), gen);
    try {
      List<CuratorOp> ops = new ArrayList<>();
      ops.add(client.transactionOp().setData().withVersion(epochStat.getVersion()).forPath(layout.epoch(), FencedVersionWriter.bytes(gen)));
      if (deposed != null) {
        ops.add(client.transactionOp().delete().withVersion(deposedVersion).forPath(layout.primary()));
      }
      if (inSyncVersion >= 0) {
        ops.add(client.transactionOp().check().withVersion(inSyncVersion).forPath(layout.inSync()));
      }
      ops.add(client.transactionOp().create().withMode(CreateMode.EPHEMERAL).forPath(layout.primary(), me.encode()));
      client.transaction().forOperations(ops);
    } catch (KeeperException.BadVersionException | KeeperException.NodeExistsException | KeeperException.NoNodeException e) {
      log.info("another node claimed the epoch first, or the in-sync set changed since it was read");
      return null;
    }
    try {
      client.delete().forPath(layout.successor());
    } catch (KeeperException.NoNodeException e) {
      // No operator designation: a normal election.
    }
    long maxVersion;
    try {
      maxVersion = FencedVersionWriter.parse(client.getData().forPath(layout.maxVersion()));
    } catch (KeeperException.NoNodeException e) {
      maxVersion = -1;
    }
    long seen = members.stream().mapToLong(m -> Math.max(m.searchingVersion(), m.commitVersion())).max().orElse(-1);
    return new Won(gen, Math.max(maxVersion, seen) + 1);
  }

  /** Makes {@code nodeId} the only node that may claim the next epoch (until it does). */
  void designate(int nodeId) throws Exception {
    byte[] data = Integer.toString(nodeId).getBytes(StandardCharsets.UTF_8);
    try {
      client.create().forPath(layout.successor(), data);
    } catch (KeeperException.NodeExistsException e) {
      client.setData().forPath(layout.successor(), data);
    }
  }

  /** The node an operator designated to claim the next epoch, or null (also when malformed). */
  Integer designatedSuccessor() throws Exception {
    try {
      return Integer.valueOf(new String(client.getData().forPath(layout.successor()), StandardCharsets.UTF_8).trim());
    } catch (KeeperException.NoNodeException e) {
      return null;
    } catch (NumberFormatException e) {
      log.warn("ignoring malformed successor designation");
      return null;
    }
  }
}

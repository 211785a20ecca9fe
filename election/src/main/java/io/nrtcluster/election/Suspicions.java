package io.nrtcluster.election;

import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.ProtocolException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

/**
 * This node's suspicion of the primary it follows, kept in ZooKeeper as the ephemeral znode {@link
 * ZkLayout#suspicion} holding the suspected primary generation, and the reading of every node's.
 *
 * <p>Guarantees: {@link #suspect} and {@link #withdraw} never wait for ZooKeeper: they set what
 * this node wants recorded and the election thread makes ZooKeeper match it, the last wish winning;
 * the znode is ephemeral, so a node whose session ends takes its suspicion with it; after a
 * reconnect (possibly a new session) the wish is written again; a write that fails is retried by
 * the next {@link #resync}. Each change is logged once: "suspicion recorded" and "suspicion
 * withdrawn".
 */
final class Suspicions {
  private static final long NONE = -1;

  private final CuratorFramework client;
  private final ZkLayout layout;
  private final int nodeId;
  private final NodeLog log;
  private final Executor electionThread;
  private final Object lock = new Object();
  /** The generation this node wants recorded as suspected, or {@link #NONE}. */
  private long wanted = NONE;
  private PrimaryInfo wantedPrimary;
  private String why = "";
  /** What ZooKeeper holds as far as this node knows; null: unknown (after a reconnect or a failure). Election thread only. */
  private Long written = NONE;
  private volatile long recorded = NONE;

  Suspicions(CuratorFramework client, ZkLayout layout, int nodeId, NodeLog log, Executor electionThread) {
    this.client = client;
    this.layout = layout;
    this.nodeId = nodeId;
    this.log = log;
    this.electionThread = electionThread;
  }

  /** Records (soon, on the election thread) that this node cannot reach {@code primary}. */
  void suspect(PrimaryInfo primary, String reason) {
    synchronized (lock) {
      if (wanted == primary.primaryGen()) {
        return;
      }
      wanted = primary.primaryGen();
      wantedPrimary = primary;
      why = reason;
    }
    onElectionThread(this::apply);
  }

  /** Withdraws this node's suspicion (soon, on the election thread), if it holds one. */
  void withdraw(String reason) {
    synchronized (lock) {
      if (wanted == NONE) {
        return;
      }
      wanted = NONE;
      wantedPrimary = null;
      why = reason;
    }
    onElectionThread(this::apply);
  }

  /** After a reconnect (the session may be new and the ephemeral znode gone): write the wish again. */
  void resync() {
    onElectionThread(() -> {
      written = null;
      apply();
    });
  }

  /**
   * Queues {@code task} for the election thread; once the election is closed there is nothing to
   * record (a suspicion's znode is ephemeral and goes with the session), so the detector's last look
   * racing the close is dropped instead of failing the caller's periodic report.
   */
  private void onElectionThread(Runnable task) {
    try {
      electionThread.execute(task);
    } catch (RejectedExecutionException closed) {
      log.debug("election closed; not applying the suspicion change");
    }
  }

  /** The generation this node's suspicion znode holds as far as it knows, or -1. */
  long recorded() {
    return recorded;
  }

  /** Election thread: makes the znode match the wish. */
  private void apply() {
    long want;
    PrimaryInfo primary;
    String reason;
    synchronized (lock) {
      want = wanted;
      primary = wantedPrimary;
      reason = why;
    }
    if (written != null && written == want) {
      return;
    }
    String path = layout.suspicion(nodeId);
    try {
      if (want == NONE) {
        try {
          client.delete().forPath(path);
        } catch (KeeperException.NoNodeException e) {
          // Never written, or gone with an earlier session.
        }
        if (recorded != NONE) {
          log.info("suspicion withdrawn: epoch {} ({})", recorded, reason);
        }
      } else {
        byte[] data = FencedVersionWriter.bytes(want);
        try {
          client.create().creatingParentContainersIfNeeded().withMode(CreateMode.EPHEMERAL).forPath(path, data);
        } catch (KeeperException.NodeExistsException e) {
          client.setData().forPath(path, data);
        }
        log.warn("suspicion recorded: primary {} at {} of epoch {} {}", primary.nodeId(), primary.address(), want, reason);
      }
      written = want;
      recorded = want;
    } catch (Exception e) {
      written = null;
      log.warn("could not write this node's suspicion (retried on the next change or reconnect): {}", e.toString());
    }
  }

  /** Deletes this node's suspicion now (leaving the election), whatever the wish; best effort. */
  void deleteNow() {
    try {
      client.delete().forPath(layout.suspicion(nodeId));
    } catch (KeeperException.NoNodeException e) {
      // None recorded.
    } catch (Exception e) {
      log.debug("deleting this node's suspicion: {}", e.toString());
    }
  }

  /** Every node's suspicion: node id to the primary generation it suspects. Malformed entries are skipped. */
  static Map<Integer, Long> read(CuratorFramework client, ZkLayout layout) throws Exception {
    Map<Integer, Long> out = new HashMap<>();
    List<String> children;
    try {
      children = client.getChildren().forPath(layout.suspicions());
    } catch (KeeperException.NoNodeException e) {
      return out;
    }
    for (String child : children) {
      if (!child.startsWith("n-")) {
        continue;
      }
      try {
        int id = Integer.parseInt(child.substring(2));
        out.put(id, FencedVersionWriter.parse(client.getData().forPath(layout.suspicions() + "/" + child)));
      } catch (KeeperException.NoNodeException | NumberFormatException | ProtocolException e) {
        // Withdrawn while we looked, or not a suspicion.
      }
    }
    return out;
  }
}

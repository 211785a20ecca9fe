package io.nrtcluster.election;

import io.nrtcluster.common.AdminException;
import io.nrtcluster.common.ConnectionException;
import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.Internal;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.ProtocolException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

/**
 * The operator's side of the requests an {@link OperatorRequestWatch} delivers to the nodes of one
 * index: writing a hand-off request or a command, waiting for how it ends, and withdrawing it.
 * Also the designation a forced promotion makes. Waits are watches on the znodes concerned, never
 * polls, and end at their timeout. Every failure is a typed {@link
 * NrtClusterException}: {@link io.nrtcluster.common.ZooKeeperAccessException} when ZooKeeper denies
 * the session's credentials, {@link ConnectionException} when it cannot be reached.
 */
@Internal
public final class OperatorRequests {
  private final CuratorFramework client;
  private final ZooKeeperAuth auth;
  private final ZkLayout layout;

  public OperatorRequests(ZooKeeperSession zk, ZkLayout layout) {
    this.client = zk.curator();
    this.auth = zk.auth();
    this.layout = layout;
  }

  /**
   * Writes the hand-off {@code request} for the primary to act on; {@link ErrorCode#REFUSED} when
   * another one is there already.
   */
  public void requestHandoff(Handoff request) throws NrtClusterException {
    ZkCalls.call(auth, "writing the hand-off request", () -> {
      try {
        client.create().withMode(CreateMode.PERSISTENT).forPath(layout.handoff(), request.encode());
      } catch (KeeperException.NodeExistsException e) {
        throw new AdminException(ErrorCode.REFUSED, "another promotion of " + layout.index() + " is running (" + layout.handoff() + ")");
      }
      return null;
    });
  }

  /**
   * Waits at most {@code timeout} for the hand-off request {@code requestId} to end (status
   * HANDED_OFF or FAILED) and returns it as it stands then, ended or not. {@link
   * ErrorCode#PROMOTION_FAILED} when the request was withdrawn or replaced meanwhile.
   */
  public Handoff awaitHandoff(String requestId, Duration timeout) throws NrtClusterException {
    Handoff state = ZkCalls.call(auth, "waiting for the hand-off request", () -> WatchedWait.until(client, timeout, (c, watcher) -> {
      try {
        return Handoff.decode(c.getData().usingWatcher(watcher).forPath(layout.handoff()));
      } catch (KeeperException.NoNodeException e) {
        return null;
      }
    }, h -> h == null || !h.requestId().equals(requestId) || ended(h)));
    if (state == null || !state.requestId().equals(requestId)) {
      throw new AdminException(ErrorCode.PROMOTION_FAILED, "the hand-off request " + requestId + " was withdrawn");
    }
    return state;
  }

  private static boolean ended(Handoff state) {
    return state.status() == Handoff.Status.HANDED_OFF || state.status() == Handoff.Status.FAILED;
  }

  /** Deletes the hand-off request, if one is there. */
  public void withdrawHandoff() throws NrtClusterException {
    ZkCalls.call(auth, "withdrawing the hand-off request", () -> {
      try {
        client.delete().forPath(layout.handoff());
      } catch (KeeperException.NoNodeException e) {
        // Already gone.
      }
      return null;
    });
  }

  /** Writes {@code command} for the nodes it addresses; returns its id, for {@link #awaitAcks} and {@link #withdraw}. */
  public String send(OperatorCommand command) throws NrtClusterException {
    return ZkCalls.call(auth, "writing an operator command", () -> ZKPaths.getNodeFromPath(client.create()
        .withMode(CreateMode.PERSISTENT_SEQUENTIAL)
        .forPath(ZKPaths.makePath(layout.commands(), OperatorRequestWatch.COMMAND_PREFIX), command.encode())));
  }

  /**
   * Waits at most {@code timeout} until each of {@code nodes} answered command {@code commandId};
   * returns the answers there are then, by node id (a malformed answer counts as a failure).
   */
  public Map<Integer, CommandAck> awaitAcks(String commandId, Collection<Integer> nodes, Duration timeout) throws NrtClusterException {
    String path = commandPath(commandId);
    Set<Integer> wanted = new HashSet<>(nodes);
    Map<Integer, CommandAck> answers = new LinkedHashMap<>();
    AtomicBoolean withdrawn = new AtomicBoolean();
    ZkCalls.call(auth, "waiting for command acknowledgements", () -> WatchedWait.until(client, timeout, (c, watcher) -> {
      List<String> children;
      try {
        children = c.getChildren().usingWatcher(watcher).forPath(path);
      } catch (KeeperException.NoNodeException e) {
        withdrawn.set(true);
        return answers;
      }
      for (String child : children) {
        Integer id = ackNodeId(child);
        if (id != null && wanted.contains(id) && !answers.containsKey(id)) {
          answers.put(id, readAck(c, ZKPaths.makePath(path, child)));
        }
      }
      return answers;
    }, a -> withdrawn.get() || a.keySet().containsAll(wanted)));
    return answers;
  }

  private static Integer ackNodeId(String child) {
    if (!child.startsWith(OperatorRequestWatch.ACK_PREFIX)) {
      return null;
    }
    try {
      return Integer.valueOf(child.substring(OperatorRequestWatch.ACK_PREFIX.length()));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static CommandAck readAck(CuratorFramework c, String path) throws Exception {
    try {
      return CommandAck.decode(c.getData().forPath(path));
    } catch (ProtocolException e) {
      return CommandAck.failed(e.getMessage());
    }
  }

  /** Deletes command {@code commandId} and its answers; nodes that did not act on it yet never will. */
  public void withdraw(String commandId) throws NrtClusterException {
    ZkCalls.call(auth, "withdrawing an operator command", () -> {
      try {
        client.delete().deletingChildrenIfNeeded().forPath(commandPath(commandId));
      } catch (KeeperException.NoNodeException e) {
        // Already gone.
      }
      return null;
    });
  }

  private String commandPath(String commandId) {
    if (!commandId.startsWith(OperatorRequestWatch.COMMAND_PREFIX) || commandId.indexOf('/') >= 0) {
      throw new IllegalArgumentException("commandId must be an id send() returned, got '" + commandId + "'");
    }
    return ZKPaths.makePath(layout.commands(), commandId);
  }

  /**
   * Makes {@code nodeId} the only node that may claim the next epoch (a forced promotion): the
   * election lets it claim at once while it is alive.
   */
  public void designateSuccessor(int nodeId) throws NrtClusterException {
    byte[] data = Integer.toString(nodeId).getBytes(StandardCharsets.UTF_8);
    ZkCalls.call(auth, "designating node " + nodeId, () -> {
      try {
        client.create().forPath(layout.successor(), data);
      } catch (KeeperException.NodeExistsException e) {
        client.setData().forPath(layout.successor(), data);
      }
      return null;
    });
  }

}

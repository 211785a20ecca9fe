package io.nrtcluster.election;

import io.nrtcluster.common.ConnectionException;
import io.nrtcluster.common.ExecutorSource;
import io.nrtcluster.common.Internal;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.ProtocolException;
import java.io.Closeable;
import java.util.concurrent.ExecutorService;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;

/**
 * How operator requests reach one index on this node: watches the index's {@code handoff} znode
 * (a {@link Handoff}, acted on by the primary, which writes its progress back) and its {@code
 * commands} children ({@link OperatorCommand}s, acted on by the nodes they address, each answering
 * with a {@link CommandAck} in an {@code ack-<nodeId>} child). What to do with a request is the
 * {@link OperatorHandler}'s business; work runs on the watch's own serial executor ({@link
 * ExecutorSource.Pool#OPERATOR}: one request at a time), never on ZooKeeper's thread.
 *
 * <p>Connection-state handling: the cache re-reads after a reconnect, so a request written while
 * this node was disconnected is still seen. Each request is acted on at most once per node: a
 * command whose ack exists is not run again (not even after a restart), and a hand-off is only
 * picked up in status REQUESTED and moved on with versioned writes. What a node remembers of the
 * requests it took on is bounded ({@link SeenRequests}): it does not grow with the commands
 * operators send over the node's lifetime.
 *
 * <p>The cache calls its listeners on one thread, so the checks made there need no lock.
 */
@Internal
public final class OperatorRequestWatch implements Closeable {
  static final String COMMAND_PREFIX = "cmd-";
  static final String ACK_PREFIX = "ack-";
  /** Commands remembered at most (see {@link SeenRequests}); far more than operators send at once. */
  static final int SEEN_CAPACITY = 1024;

  private final CuratorFramework client;
  private final ZkLayout layout;
  private final int nodeId;
  private final OperatorHandler handler;
  private final NodeLog log;
  private final ExecutorService worker;
  private final SeenRequests seenCommands;
  /** The hand-off request last taken on: only one hand-off znode exists at a time, and ids are never reused. */
  private volatile String seenHandoff;
  private volatile CuratorCache cache;

  public OperatorRequestWatch(ZooKeeperSession zk, ZkLayout layout, int nodeId, OperatorHandler handler, NodeLog log) {
    this(zk, layout, nodeId, handler, log, ExecutorSource.ownThreads());
  }

  /** Requests are carried out on a serial executor from {@code executors} (a host's operator pool). */
  public OperatorRequestWatch(ZooKeeperSession zk, ZkLayout layout, int nodeId, OperatorHandler handler, NodeLog log,
      ExecutorSource executors) {
    this(zk, layout, nodeId, handler, log, SEEN_CAPACITY, executors);
  }

  OperatorRequestWatch(ZooKeeperSession zk, ZkLayout layout, int nodeId, OperatorHandler handler, NodeLog log, int seenCapacity) {
    this(zk, layout, nodeId, handler, log, seenCapacity, ExecutorSource.ownThreads());
  }

  private OperatorRequestWatch(ZooKeeperSession zk, ZkLayout layout, int nodeId, OperatorHandler handler, NodeLog log,
      int seenCapacity, ExecutorSource executors) {
    this.seenCommands = new SeenRequests(seenCapacity);
    this.client = zk.curator();
    this.layout = layout;
    this.nodeId = nodeId;
    this.handler = handler;
    this.log = log;
    this.worker = executors.serial(ExecutorSource.Pool.OPERATOR, "nrt-operator-" + nodeId + "-" + layout.index());
  }

  /**
   * Creates the index's commands znode if missing and starts watching. A {@link
   * io.nrtcluster.common.ZooKeeperAccessException} when ZooKeeper denies it, a {@link
   * ConnectionException} for any other failure.
   */
  public void start() throws NrtClusterException {
    try {
      client.create().creatingParentContainersIfNeeded().forPath(layout.commands());
    } catch (KeeperException.NodeExistsException e) {
      // Created by another node.
    } catch (KeeperException.NoAuthException e) {
      throw ZooKeeperAccess.denied(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConnectionException("interrupted while watching operator requests", e);
    } catch (Exception e) {
      throw new ConnectionException("watching operator requests failed: " + e, e);
    }
    CuratorCache c = CuratorCache.build(client, layout.indexPath());
    cache = c;
    c.listenable().addListener(CuratorCacheListener.builder()
        .forCreatesAndChanges((before, after) -> onChange(after))
        .forDeletes(this::onDelete)
        .forInitialized(() -> c.stream().forEach(this::onChange))
        .build());
    c.start();
  }

  private void onChange(ChildData data) {
    String path = data.getPath();
    if (path.equals(layout.handoff())) {
      onHandoff(data);
    } else if (layout.commands().equals(ZKPaths.getPathAndNode(path).getPath())) {
      onCommand(data);
    }
  }

  private void onHandoff(ChildData data) {
    Handoff request;
    try {
      request = Handoff.decode(data.getData());
    } catch (ProtocolException e) {
      log.warn("ignoring {}", e.getMessage());
      return;
    }
    if (request.status() != Handoff.Status.REQUESTED || request.requestId().equals(seenHandoff) || !handler.acceptsHandoff(request)) {
      return;
    }
    seenHandoff = request.requestId();
    worker.execute(() -> runHandoff(request, data.getStat().getVersion()));
  }

  private void runHandoff(Handoff request, int znodeVersion) {
    try {
      Handoff catching = request.with(Handoff.Status.CATCHING_UP, -1, null);
      int version = client.setData().withVersion(znodeVersion).forPath(layout.handoff(), catching.encode()).getVersion();
      Handoff result = handler.runHandoff(request);
      client.setData().withVersion(version).forPath(layout.handoff(), result.encode());
    } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
      log.warn("hand-off request {} was withdrawn or changed while running", request.requestId());
    } catch (Exception e) {
      log.warn("hand-off request {} failed: {}", request.requestId(), e.toString());
    }
  }

  private void onCommand(ChildData data) {
    String name = ZKPaths.getNodeFromPath(data.getPath());
    if (!name.startsWith(COMMAND_PREFIX) || data.getData() == null) {
      return;
    }
    OperatorCommand command;
    try {
      command = OperatorCommand.decode(data.getData());
    } catch (ProtocolException e) {
      log.warn("ignoring command {}: {}", name, e.getMessage());
      return;
    }
    if (!command.addresses(nodeId) || !seenCommands.firstTime(name)) {
      return;
    }
    worker.execute(() -> runCommand(name, data.getPath(), command));
  }

  /** A withdrawn command is forgotten: what this node remembers stays as small as what ZooKeeper holds. */
  private void onDelete(ChildData data) {
    if (layout.commands().equals(ZKPaths.getPathAndNode(data.getPath()).getPath())) {
      seenCommands.forget(ZKPaths.getNodeFromPath(data.getPath()));
    }
  }

  /** How many commands this node remembers having taken on (for tests). */
  int rememberedCommands() {
    return seenCommands.size();
  }

  private void runCommand(String name, String path, OperatorCommand command) {
    String ack = ZKPaths.makePath(path, ACK_PREFIX + nodeId);
    try {
      if (client.checkExists().forPath(ack) != null) {
        return;
      }
    } catch (Exception e) {
      log.warn("reading command {} failed: {}", name, e.toString());
      return;
    }
    CommandAck outcome = handler.execute(command);
    try {
      client.create().forPath(ack, outcome.encode());
    } catch (KeeperException.NoNodeException e) {
      log.debug("command {} was withdrawn before this node answered", name);
    } catch (Exception e) {
      log.warn("acknowledging command {} failed: {}", name, e.toString());
    }
  }

  /** Stops watching; a request being carried out is interrupted. */
  @Override
  public void close() {
    CuratorCache c = cache;
    if (c != null) {
      c.close();
    }
    worker.shutdownNow();
  }
}

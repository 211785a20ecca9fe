package io.nrtcluster.node;

import io.nrtcluster.common.NamedThreadFactory;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.ProtocolException;
import io.nrtcluster.election.ZkLayout;
import java.io.Closeable;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;

/**
 * How operators reach one index on this node: watches the index's {@code handoff} znode (acted on
 * by the primary) and its {@code commands} children (commit requests, acted on by the nodes they
 * name, acknowledged with a child znode). Work runs on its own thread, never on ZooKeeper's.
 *
 * <p>Connection-state handling: the cache re-reads after a reconnect, so a request written while
 * this node was disconnected is still seen; each request is acted on at most once per node.
 */
final class OperatorChannel implements Closeable {
  static final String ACK_PREFIX = "ack-";

  private final CuratorFramework client;
  private final ZkLayout layout;
  private final ClusterNode node;
  private final int nodeId;
  private final NodeLog log;
  private final ExecutorService worker;
  private final Set<String> seen = ConcurrentHashMap.newKeySet();
  private CuratorCache cache;

  OperatorChannel(CuratorFramework client, ZkLayout layout, ClusterNode node, int nodeId, NodeLog log) {
    this.client = client;
    this.layout = layout;
    this.node = node;
    this.nodeId = nodeId;
    this.log = log;
    this.worker = Executors.newSingleThreadExecutor(new NamedThreadFactory("nrt-operator-" + nodeId + "-" + layout.index()));
  }

  void start() throws Exception {
    try {
      client.create().creatingParentContainersIfNeeded().forPath(layout.commands());
    } catch (KeeperException.NodeExistsException e) {
      // Created by another node.
    }
    cache = CuratorCache.build(client, layout.indexPath());
    cache.listenable().addListener(CuratorCacheListener.builder()
        .forCreatesAndChanges((before, after) -> onChange(after))
        .forInitialized(() -> cache.stream().forEach(this::onChange))
        .build());
    cache.start();
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
    if (request.status() != Handoff.Status.REQUESTED || !node.isWritablePrimary() || !seen.add("handoff-" + request.requestId())) {
      return;
    }
    worker.execute(() -> runHandoff(request, data.getStat().getVersion()));
  }

  private void runHandoff(Handoff request, int znodeVersion) {
    int version = znodeVersion;
    try {
      Handoff catching = request.with(Handoff.Status.CATCHING_UP, -1, null);
      version = client.setData().withVersion(version).forPath(layout.handoff(), catching.encode()).getVersion();
      Handoff result = new GracefulHandoff(node).run(request);
      client.setData().withVersion(version).forPath(layout.handoff(), result.encode());
    } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
      log.warn("hand-off request {} was withdrawn or changed while running", request.requestId());
    } catch (Exception e) {
      log.warn("hand-off request {} failed: {}", request.requestId(), e.toString());
    }
  }

  private void onCommand(ChildData data) {
    String name = ZKPaths.getNodeFromPath(data.getPath());
    if (!name.startsWith("cmd-") || data.getData() == null || !seen.add(name)) {
      return;
    }
    String text = new String(data.getData(), StandardCharsets.UTF_8).trim();
    String[] parts = text.split(" ");
    if (parts.length != 2 || !parts[0].equals("commit") || !(parts[1].equals("all") || parts[1].equals(Integer.toString(nodeId)))) {
      return;
    }
    worker.execute(() -> {
      String ack = ZKPaths.makePath(data.getPath(), ACK_PREFIX + nodeId);
      String outcome;
      try {
        if (client.checkExists().forPath(ack) != null) {
          return;
        }
        node.commit();
        outcome = "ok " + node.status().commitVersion();
      } catch (Exception e) {
        outcome = "error " + e.getMessage();
      }
      try {
        client.create().forPath(ack, outcome.getBytes(StandardCharsets.UTF_8));
      } catch (Exception e) {
        log.warn("acknowledging command {} failed: {}", name, e.toString());
      }
    });
  }

  @Override
  public void close() {
    if (cache != null) {
      cache.close();
    }
    worker.shutdownNow();
  }
}

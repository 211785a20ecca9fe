package io.nrtcluster.node;

import io.nrtcluster.common.ExecutorSource;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.election.CommandAck;
import io.nrtcluster.election.Handoff;
import io.nrtcluster.election.OperatorCommand;
import io.nrtcluster.election.OperatorHandler;
import io.nrtcluster.election.OperatorRequestWatch;
import io.nrtcluster.election.ZkLayout;
import io.nrtcluster.election.ZooKeeperSession;
import java.io.Closeable;
import java.io.IOException;

/**
 * How operators reach one index on this node: the election's {@link OperatorRequestWatch} delivers
 * their requests (ZooKeeper is its business); this class carries them out on the node. A hand-off
 * runs as a {@link GracefulHandoff} on the primary; a commit command commits what the node searches.
 */
final class OperatorChannel implements Closeable, OperatorHandler {
  private final ClusterNode node;
  private final NodeLog log;
  private final OperatorRequestWatch watch;

  OperatorChannel(ZooKeeperSession zk, ZkLayout layout, ClusterNode node, int nodeId, NodeLog log, ExecutorSource executors) {
    this.node = node;
    this.log = log;
    this.watch = new OperatorRequestWatch(zk, layout, nodeId, this, log, executors);
  }

  /** Starts watching for requests; a typed error when ZooKeeper denies or fails it. */
  void start() throws NrtClusterException {
    watch.start();
  }

  @Override
  public boolean acceptsHandoff(Handoff request) {
    // A primary below its disk floor refuses writes but may still hand its role to a node with space.
    return node.leads();
  }

  @Override
  public Handoff runHandoff(Handoff request) {
    return new GracefulHandoff(node).run(request);
  }

  @Override
  public CommandAck execute(OperatorCommand command) {
    return switch (command.kind()) {
      case COMMIT -> commit();
    };
  }

  private CommandAck commit() {
    try {
      node.commit();
      return CommandAck.ok(node.status().commitVersion());
    } catch (IOException | RuntimeException e) {
      log.warn("commit requested by an operator failed: {}", e.toString());
      return CommandAck.failed(e.getMessage() == null ? e.toString() : e.getMessage());
    }
  }

  @Override
  public void close() {
    watch.close();
  }
}

package io.nrtcluster.stress.bench;

import com.sun.net.httpserver.HttpExchange;
import io.nrtcluster.node.ClusterNode;
import io.nrtcluster.node.ClusterNodeInternals;
import io.nrtcluster.node.NrtHost;
import io.nrtcluster.primary.Primary;
import io.nrtcluster.replica.Replica;
import io.nrtcluster.replica.ReplicaStats;
import io.nrtcluster.stress.agent.JsonHttp;
import io.nrtcluster.transport.Traffic;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * The fan-out figure's status endpoint on a node process (figure 12): what the node's
 * transport sent each peer, the copy tree its primary planned (sources and levels), and its copy
 * counters as a replica, with when it last completed a merge pre-copy. The replica counts completed
 * pre-copies but tells no one when; a watch thread samples the count every {@link #SAMPLE_MS} ms and
 * keeps the time it last changed.
 */
final class CopyTreeEndpoints implements AutoCloseable {
  /** Sampling period of the pre-copy watch. */
  static final long SAMPLE_MS = 2;

  private final ClusterNode node;
  private final NrtHost host;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Thread watch;
  private volatile long lastPreCopyDoneNanos;

  CopyTreeEndpoints(ClusterNode node, NrtHost host) {
    this.node = node;
    this.host = host;
    this.watch = Thread.ofPlatform().daemon().name("bench-precopy-watch").start(this::watchPreCopies);
  }

  void register(BenchAgent agent) {
    agent.route("/copy-tree", this::status);
  }

  private void watchPreCopies() {
    Replica seen = null;
    long count = 0;
    while (!closed.get()) {
      Replica r = node.replica();
      if (r != null) {
        long n = r.stats().preCopiesCompleted();
        if (r != seen) {
          // A new replica object (a role change): its count starts afresh.
          seen = r;
          count = n;
        } else if (n != count) {
          count = n;
          lastPreCopyDoneNanos = System.nanoTime();
        }
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(SAMPLE_MS));
    }
  }

  private void status(HttpExchange ex) throws IOException {
    Map<Integer, Long> sent = new TreeMap<>();
    for (Map.Entry<Integer, Traffic> e : node.trafficByPeer().entrySet()) {
      sent.put(e.getKey(), e.getValue().bytesSent());
    }
    Primary p = ClusterNodeInternals.primaryOf(node);
    Map<Integer, Integer> sources = p == null ? Map.of() : new TreeMap<>(p.copySources());
    Replica r = node.replica();
    ReplicaStats s = r == null ? null : r.stats();
    JsonHttp.reply(ex, 200, new BenchApi.CopyTreeStatus(host.nodeId(), node.role(), node.searchingVersion(), sent,
        host.transport().traffic().bytesSent(), sources, levels(sources), r == null ? -2 : r.copySource(),
        s == null ? 0 : s.bytesCopied(), s == null ? 0 : s.bytesFromPeers(), s == null ? 0 : s.peerFallbacks(),
        s == null ? 0 : s.preCopiesCompleted(), lastPreCopyDoneNanos));
  }

  /**
   * Each replica's depth in the tree {@code sources} (replica to parent, -1 the primary): 1 for one
   * that copies from the primary, one more than its parent's otherwise; a parent the map does not
   * hold counts as level 1 (its children as 2).
   */
  static Map<Integer, Integer> levels(Map<Integer, Integer> sources) {
    Map<Integer, Integer> levels = new HashMap<>();
    for (int replica : sources.keySet()) {
      int depth = 1;
      Integer parent = sources.get(replica);
      while (parent != null && parent != -1 && depth <= sources.size()) {
        depth++;
        parent = sources.get(parent);
      }
      levels.put(replica, depth);
    }
    return new TreeMap<>(levels);
  }

  @Override
  public void close() throws InterruptedException {
    closed.set(true);
    watch.join(1_000);
  }
}

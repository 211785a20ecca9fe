package io.nrtcluster.cli;

import io.nrtcluster.cli.Main.CliException;
import io.nrtcluster.node.ClusterNode;
import io.nrtcluster.node.HostConfig;
import io.nrtcluster.node.IndexSettings;
import io.nrtcluster.node.NrtHost;
import io.nrtcluster.node.WritablePrimary;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.apache.lucene.index.FilterLeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.MultiTerms;
import org.apache.lucene.index.SegmentReader;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.util.BytesRef;

/**
 * The demo's three cluster nodes in this process, each an {@link NrtHost} with its own directory,
 * replication port and ZooKeeper session, all opening the same index. N1 also runs the embedded
 * ZooKeeper the others connect to, so the demo never stops N1 before the end. A background thread
 * watches every node for its {@link NodeTracker}.
 */
final class DemoCluster implements Closeable {
  static final String CLUSTER = "demo";
  static final String INDEX = "europarl";
  static final int NODES = 3;
  /** The host (index into the nodes) that runs the embedded ZooKeeper. */
  static final int ZK_HOST = 0;
  static final Duration SESSION_TIMEOUT = Duration.ofSeconds(3);
  static final Duration ELECTION_SETTLE = Duration.ofMillis(300);
  private static final Duration POLL = Duration.ofMillis(1);

  private final Path root;
  private final AtomicReferenceArray<NrtHost> hosts = new AtomicReferenceArray<>(NODES);
  private final NodeTracker[] trackers = new NodeTracker[NODES];
  private final Thread watcher;
  private volatile boolean closed;
  private String zooKeeper;

  DemoCluster(Path root) {
    this.root = root;
    for (int i = 0; i < NODES; i++) {
      trackers[i] = new NodeTracker();
    }
    watcher = Thread.ofPlatform().name("nrt-demo-watch").daemon().unstarted(this::watch);
  }

  static String name(int i) {
    return "N" + (i + 1);
  }

  private HostConfig config(int i) {
    return HostConfig.builder().nodeId(i + 1).cluster(CLUSTER).dataDir(root.resolve("n" + (i + 1)))
        .zooKeeper(i == ZK_HOST ? HostConfig.EMBEDDED : zooKeeper).embeddedZooKeeperPort(0).bindHost("127.0.0.1")
        .port(0).sessionTimeout(SESSION_TIMEOUT).connectionTimeout(Duration.ofSeconds(10))
        .electionSettle(ELECTION_SETTLE).transport(Hosts.transport()).build();
  }

  /** Starts N1 with the embedded ZooKeeper, without opening the index yet. */
  void startZooKeeperHost() throws IOException {
    NrtHost h = Hosts.start(config(ZK_HOST));
    zooKeeper = h.zooKeeperConnectString();
    hosts.set(ZK_HOST, h);
    watcher.start();
  }

  String zooKeeper() {
    return zooKeeper;
  }

  /** Starts host {@code i} (unless running) and opens the index on it: it joins the election. */
  ClusterNode start(int i) throws IOException {
    NrtHost running = hosts.get(i);
    NrtHost h = running != null ? running : Hosts.start(config(i));
    ClusterNode node;
    try {
      node = h.openIndex(IndexSettings.standard(INDEX));
    } catch (IOException | RuntimeException e) {
      if (running == null) {
        h.close();
      }
      throw e;
    }
    hosts.set(i, h);
    trackers[i].observe(node);
    return node;
  }

  /** Graceful stop: the index commits and resigns, then the host stops. */
  void close(int i) throws IOException {
    NrtHost h = hosts.getAndSet(i, null);
    if (h != null) {
      trackers[i].wentDown(System.nanoTime());
      h.close();
    }
  }

  /** Crash-like stop: ZooKeeper session and connections end first, nothing is committed or resigned. */
  void halt(int i) {
    NrtHost h = hosts.getAndSet(i, null);
    if (h != null) {
      trackers[i].wentDown(System.nanoTime());
      h.halt();
    }
  }

  /** The index on node {@code i}, or null while it is down. */
  ClusterNode node(int i) {
    NrtHost h = hosts.get(i);
    return h == null ? null : h.index(INDEX);
  }

  NodeTracker tracker(int i) {
    return trackers[i];
  }

  boolean isUp(int i) {
    return node(i) != null;
  }

  /** Every node's index by position, null for a node that is down (a snapshot). */
  List<ClusterNode> nodes() {
    List<ClusterNode> out = new ArrayList<>(NODES);
    for (int i = 0; i < NODES; i++) {
      out.add(node(i));
    }
    return out;
  }

  /** The node that accepts writes now ({@link WritablePrimary}), or -1. */
  int writablePrimary() {
    return WritablePrimary.find(nodes());
  }

  /**
   * Waits (polling every millisecond: the demo reports election times in milliseconds) until one
   * node is the writable primary; returns it.
   */
  int awaitPrimary(Duration timeout) throws InterruptedException {
    int p = WritablePrimary.await(this::nodes, timeout, POLL);
    if (p < 0) {
      throw new CliException("no primary elected within " + Units.human(timeout) + " (" + WritablePrimary.describe(nodes())
          + ")");
    }
    return p;
  }

  /** Documents node {@code i} searches. */
  long numDocs(int i) throws IOException {
    ClusterNode n = node(i);
    IndexSearcher s = n.acquireSearcher();
    try {
      return s.getIndexReader().numDocs();
    } finally {
      n.releaseSearcher(s);
    }
  }

  /** One more than the highest numeric id in the index node {@code i} searches (0 if none). */
  long nextFreeId(int i) throws IOException {
    ClusterNode n = node(i);
    IndexSearcher s = n.acquireSearcher();
    try {
      Terms terms = MultiTerms.getTerms(s.getIndexReader(), "id");
      long max = -1;
      if (terms != null) {
        TermsEnum te = terms.iterator();
        for (BytesRef t = te.next(); t != null; t = te.next()) {
          try {
            max = Math.max(max, Long.parseLong(t.utf8ToString()));
          } catch (NumberFormatException e) {
            // Not one of ours.
          }
        }
      }
      return max + 1;
    } finally {
      n.releaseSearcher(s);
    }
  }

  /** Bytes of the point-in-time node {@code i} searches now. */
  long indexBytes(int i) throws IOException {
    ClusterNode n = node(i);
    IndexSearcher s = n.acquireSearcher();
    try {
      long total = 0;
      for (LeafReaderContext leaf : s.getIndexReader().leaves()) {
        if (FilterLeafReader.unwrap(leaf.reader()) instanceof SegmentReader sr) {
          total += sr.getSegmentInfo().sizeInBytes();
        }
      }
      return total;
    } finally {
      n.releaseSearcher(s);
    }
  }

  /** Files and bytes all replicas copied so far. */
  Copied copiedTotal() {
    Copied total = Copied.NONE;
    for (NodeTracker t : trackers) {
      total = total.plus(t.copied());
    }
    return total;
  }

  private void watch() {
    while (!closed) {
      for (int i = 0; i < NODES; i++) {
        try {
          trackers[i].observe(node(i));
        } catch (RuntimeException e) {
          // A node closing under our feet: look again next time.
        }
      }
      try {
        TimeUnit.MILLISECONDS.sleep(1);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /**
   * Stops every node gracefully: the replicas' indexes leave first (so no new election starts), then
   * the primary, and N1, which runs ZooKeeper, last. Returns what failed, if anything.
   */
  List<String> closeAll() {
    closed = true;
    watcher.interrupt();
    List<String> problems = new ArrayList<>();
    int primary = writablePrimary();
    for (int i = 0; i < NODES; i++) {
      ClusterNode n = node(i);
      if (i != primary && n != null) {
        try {
          n.close();
        } catch (IOException | RuntimeException e) {
          problems.add(name(i) + ": " + Main.describe(e));
        }
      }
    }
    for (int k = 1; k <= NODES; k++) {
      int i = (ZK_HOST + k) % NODES;
      try {
        close(i);
      } catch (IOException | RuntimeException e) {
        problems.add(name(i) + ": " + Main.describe(e));
      }
    }
    return problems;
  }

  @Override
  public void close() {
    closeAll();
  }
}

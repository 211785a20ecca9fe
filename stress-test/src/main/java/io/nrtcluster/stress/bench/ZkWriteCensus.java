package io.nrtcluster.stress.bench;

import io.nrtcluster.election.ZkLayout;
import io.nrtcluster.stress.ZkTxnLogs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.apache.zookeeper.data.Stat;

/**
 * ZooKeeper's write transactions over a window, counted exactly: the window is bounded by two writes
 * of a marker znode of the harness's own (their zxids), and every transaction ZooKeeper logged in
 * between is read from its transaction log ({@link ZkTxnLogs}) and classified by the znodes it
 * wrote. Every write transaction, a failed multi and a session's open and close included, takes one
 * zxid and one log record, so this is the load the ensemble carries, not an estimate from the nodes.
 */
final class ZkWriteCensus {
  /** Outside {@link ZkLayout#ROOT}: the harness's marker is no cluster's business. */
  static final String MARKER = "/nrtcluster-bench-marker";
  private static final String CAPACITY = "/nrtcluster-bench-capacity";

  /** A write of the marker: its zxid and when it returned. */
  record Mark(long zxid, long nanos) {}

  private ZkWriteCensus() {}

  /** Writes the marker znode (creating it the first time); its transaction's zxid bounds a window. */
  static Mark mark(CuratorFramework zk) throws IOException {
    try {
      Stat stat;
      try {
        stat = zk.setData().forPath(MARKER, new byte[0]);
      } catch (KeeperException.NoNodeException first) {
        zk.create().forPath(MARKER, new byte[0]);
        stat = zk.setData().forPath(MARKER, new byte[0]);
      }
      return new Mark(stat.getMzxid(), System.nanoTime());
    } catch (Exception e) {
      throw new IOException("writing the benchmark's marker znode failed: " + e, e);
    }
  }

  /**
   * Every write transaction strictly between {@code from} and {@code to}, classified: publications
   * (a transaction raising an index's {@code maxVersion}), member-record updates, and the rest by kind.
   *
   * @param refreshNanos how long each refresh the nodes made in the window took (null: none were asked for)
   * @param targetPerSec refreshes per second asked for
   * @param indexes indexes of the cluster (for writes per index per second)
   * @param nodesCpuCores the nodes' process CPU over the window, in cores (-1: not measured)
   */
  static BenchReport.ZooKeeperWrites count(Path zooKeeperDir, Mark from, Mark to, List<Long> refreshNanos,
      double targetPerSec, int indexes, double nodesCpuCores) throws IOException {
    long refreshes = refreshNanos == null ? 0 : refreshNanos.size();
    List<ZkTxnLogs.Txn> txns = ZkTxnLogs.read(zooKeeperDir, from.zxid() + 1, to.zxid() - 1);
    Map<String, Long> byKind = new TreeMap<>();
    long publications = 0;
    long memberUpdates = 0;
    Set<String> versions = new HashSet<>();
    for (ZkTxnLogs.Txn t : txns) {
      String kind = kind(t);
      byKind.merge(kind, 1L, Long::sum);
      if (kind.equals(PUBLICATION)) {
        publications++;
        for (ZkTxnLogs.Op op : t.ops()) {
          if (op.path() != null && op.path().endsWith("/maxVersion") && op.data() != null) {
            versions.add(op.path() + "=" + new String(op.data(), StandardCharsets.UTF_8).trim());
          }
        }
      } else if (kind.equals(MEMBER_UPDATE)) {
        memberUpdates++;
      }
    }
    double seconds = (to.nanos() - from.nanos()) / 1e9;
    long total = txns.size();
    Map<String, Long> sorted = new LinkedHashMap<>();
    byKind.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
        .forEach(e -> sorted.put(e.getKey(), e.getValue()));
    return new BenchReport.ZooKeeperWrites(round(seconds), total, round(total / seconds),
        round(total / seconds / indexes), publications, versions.size(), Dist.ratio(publications, versions.size()),
        memberUpdates, total - publications - memberUpdates, sorted, refreshes, round(refreshes / seconds), targetPerSec,
        refreshNanos == null ? null : Dist.ofNanos(refreshNanos), Dist.ratio(total, publications),
        publications == 0 ? 0 : round((double) total / publications * targetPerSec), nodesCpuCores);
  }

  static final String PUBLICATION = "publication (maxVersion)";
  static final String MEMBER_UPDATE = "member record update";

  /** What one transaction did, by the znodes it wrote. */
  static String kind(ZkTxnLogs.Txn t) {
    if (t.type() == OpCode.createSession) {
      return "session opened";
    }
    if (t.type() == OpCode.closeSession) {
      return "session closed (its ephemeral znodes deleted)";
    }
    boolean failed = false;
    for (ZkTxnLogs.Op op : t.ops()) {
      failed |= op.kind() == ZkTxnLogs.OpKind.ERROR;
      if (op.path() != null && op.path().endsWith("/maxVersion")
          && (op.kind() == ZkTxnLogs.OpKind.SET_DATA || op.kind() == ZkTxnLogs.OpKind.CREATE)) {
        return PUBLICATION;
      }
    }
    if (failed) {
      return "failed multi (a check did not hold)";
    }
    ZkTxnLogs.Op first = t.ops().stream().filter(op -> op.kind() != ZkTxnLogs.OpKind.CHECK).findFirst().orElse(null);
    if (first == null || first.path() == null) {
      return "other (" + t.type() + ")";
    }
    String[] parts = first.path().split("/");
    // "", "nrtcluster", cluster, index (or a cluster-wide "_..." record), znode, child
    if (!first.path().startsWith(ZkLayout.ROOT + "/") || parts.length < 5) {
      return first.path().startsWith(MARKER) || first.path().startsWith(CAPACITY) ? "benchmark marker"
          : "other (" + op(first) + " " + first.path().replaceAll("/[^/]+", "/*") + ")";
    }
    if (parts[3].startsWith("_")) {
      // A cluster-wide record, not an index (index names cannot start with '_'): e.g. _hosts/n-<id>.
      return parts[3] + "/* " + op(first);
    }
    String znode = parts[4];
    if (znode.equals("members") && parts.length > 5 && first.kind() == ZkTxnLogs.OpKind.SET_DATA) {
      return MEMBER_UPDATE;
    }
    if (znode.equals("commands") && parts.length > 5) {
      return "commands " + op(first);
    }
    return znode + (parts.length > 5 ? "/* " : " ") + op(first);
  }

  private static String op(ZkTxnLogs.Op op) {
    return switch (op.kind()) {
      case CREATE -> "create";
      case SET_DATA -> "setData";
      case DELETE -> "delete";
      default -> op.kind().name().toLowerCase(Locale.ROOT);
    };
  }

  private static double round(double v) {
    return Math.round(v * 10) / 10.0;
  }

  /**
   * What this ZooKeeper server sustains on this machine: asynchronous writes of 100 bytes to one znode
   * from one session, up to 1,000 outstanding, for {@code d}; writes per second. An upper bound the
   * cluster's load is set against, measured with the nodes idle.
   */
  static double capacity(CuratorFramework zk, Duration d) throws IOException {
    try {
      if (zk.checkExists().forPath(CAPACITY) == null) {
        zk.create().forPath(CAPACITY, new byte[0]);
      }
      byte[] data = new byte[100];
      Semaphore outstanding = new Semaphore(1_000);
      AtomicLong done = new AtomicLong();
      long start = System.nanoTime();
      long end = start + d.toNanos();
      while (System.nanoTime() < end) {
        if (!outstanding.tryAcquire(100, TimeUnit.MILLISECONDS)) {
          continue;
        }
        zk.setData().inBackground((client, event) -> {
          done.incrementAndGet();
          outstanding.release();
        }).forPath(CAPACITY, data);
      }
      outstanding.acquire(1_000);
      long took = System.nanoTime() - start;
      outstanding.release(1_000);
      return round(done.get() / (took / 1e9));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted measuring ZooKeeper's write capacity", e);
    } catch (Exception e) {
      throw new IOException("measuring ZooKeeper's write capacity failed: " + e, e);
    }
  }
}

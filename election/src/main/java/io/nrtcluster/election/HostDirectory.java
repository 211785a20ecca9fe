package io.nrtcluster.election;

import io.nrtcluster.common.ConnectionException;
import io.nrtcluster.common.Durations;
import io.nrtcluster.common.Internal;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.ProtocolException;
import java.io.Closeable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

/**
 * One host's place among the hosts of a cluster: it publishes which indexes this host leads in its
 * ephemeral record ({@link HostRecord} at {@link ZkLayout#hostPath}) and keeps ONE cache over every
 * host's record, which all the host's elections read ({@link PlacementSource}) instead of reading
 * the primaries of every index at each step.
 *
 * <p>Guarantees: {@link #start} returns once this host's record exists (or fails with a typed
 * error); the record is a Curator {@code PersistentNode}, so it is recreated with the latest
 * content after a session loss, and it goes with the session (a halted or dead host leads nothing
 * as soon as its session ends); {@link #lead} never waits for ZooKeeper (the write goes in the
 * background; the next one carries whatever a failed one lost); {@link #current()} is an
 * immutable snapshot in which this host's own entry is always what it last published, and the
 * other hosts' entries what the cache last saw; listeners run only when the snapshot changed, on the
 * cache's thread or the thread calling {@link #lead}. Malformed records are skipped.
 */
@Internal
public final class HostDirectory implements PlacementSource, Closeable {
  private final CuratorFramework client;
  private final ZooKeeperAuth auth;
  private final String cluster;
  private final int nodeId;
  private final NodeLog log;
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
  private final Object lock = new Object();
  /** What this host publishes; guarded by {@link #lock}. */
  private HostRecord mine;
  private volatile Placement current = Placement.EMPTY;
  private volatile PersistentNode record;
  private volatile CuratorCache cache;

  public HostDirectory(ZooKeeperSession zk, String cluster, int nodeId, NodeLog log) {
    this.client = zk.curator();
    this.auth = zk.auth();
    this.cluster = cluster;
    this.nodeId = nodeId;
    this.log = log;
    this.mine = HostRecord.of(nodeId, Set.of());
  }

  /**
   * Publishes this host's record (leading nothing yet, unless {@link #lead} said otherwise) and starts
   * watching every host's; waits at most {@code timeout} for the record to exist. {@link
   * io.nrtcluster.common.ZooKeeperAccessException} when ZooKeeper denies it, {@link
   * ConnectionException} otherwise.
   */
  public void start(Duration timeout) throws NrtClusterException {
    String hosts = ZkLayout.hostsPath(cluster);
    ZkCalls.call(auth, "registering host " + nodeId + " in " + hosts, () -> {
      try {
        client.create().creatingParentContainersIfNeeded().forPath(hosts);
      } catch (KeeperException.NodeExistsException e) {
        // Another host created it first.
      }
      HostRecord first = published();
      PersistentNode r = new PersistentNode(client, CreateMode.EPHEMERAL, false, ZkLayout.hostPath(cluster, nodeId), first.encode());
      r.start();
      if (!r.waitForInitialCreate(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        r.close();
        throw new ConnectionException("could not register host " + ZkLayout.hostPath(cluster, nodeId) + " within "
            + Durations.format(timeout));
      }
      synchronized (lock) {
        // Only now may it be written to (a PersistentNode refuses data before its first create).
        record = r;
        if (!mine.equals(first)) {
          r.setData(mine.encode());
        }
      }
      CuratorCache c = CuratorCache.build(client, hosts);
      cache = c;
      c.listenable().addListener(CuratorCacheListener.builder().forAll((type, before, after) -> refresh())
          .forInitialized(this::refresh).build());
      c.start();
      return null;
    });
    refresh();
  }

  /**
   * This host leads {@code indexes} now (a replacement, not an addition): updates the snapshot at
   * once and writes the record in the background when it changed. Never waits for ZooKeeper.
   */
  public void lead(Set<String> indexes) {
    synchronized (lock) {
      HostRecord next = HostRecord.of(nodeId, indexes);
      if (next.equals(mine)) {
        return;
      }
      mine = next;
      PersistentNode r = record;
      if (r != null) {
        try {
          r.setData(next.encode());
        } catch (Exception e) {
          // Not connected, or closing: the PersistentNode writes the latest data when it recreates the node.
          log.debug("host record not written now: {}", e.toString());
        }
      }
    }
    refresh();
  }

  /** What this host publishes now. */
  public HostRecord published() {
    synchronized (lock) {
      return mine;
    }
  }

  @Override
  public Placement current() {
    return current;
  }

  @Override
  public void addListener(Runnable listener) {
    listeners.add(listener);
  }

  @Override
  public void removeListener(Runnable listener) {
    listeners.remove(listener);
  }

  /** Rebuilds the snapshot from the cache and this host's own record; tells the listeners if it changed. */
  private void refresh() {
    Placement next;
    synchronized (lock) {
      List<HostRecord> records = new ArrayList<>();
      CuratorCache c = cache;
      if (c != null) {
        String hosts = ZkLayout.hostsPath(cluster);
        c.stream().filter(d -> d.getData() != null && hosts.equals(ZKPaths.getPathAndNode(d.getPath()).getPath()))
            .forEach(d -> decode(d, records));
      }
      // Our own entry is what we last published, never an older one the cache still holds.
      records.removeIf(h -> h.nodeId() == nodeId);
      records.add(mine);
      next = Placement.of(records);
      if (next.equals(current)) {
        return;
      }
      current = next;
    }
    for (Runnable l : listeners) {
      try {
        l.run();
      } catch (RuntimeException e) {
        log.warn("placement listener failed: {}", e.toString());
      }
    }
  }

  private void decode(ChildData d, List<HostRecord> into) {
    try {
      into.add(HostRecord.decode(d.getData()));
    } catch (ProtocolException e) {
      log.debug("ignoring host record {}: {}", d.getPath(), e.getMessage());
    }
  }

  /** Stops watching and removes this host's record (it leads nothing from now on). */
  @Override
  public void close() {
    CuratorCache c = cache;
    if (c != null) {
      c.close();
    }
    PersistentNode r = record;
    if (r != null) {
      try {
        r.close();
      } catch (Exception e) {
        log.debug("closing the host record: {}", e.toString());
      }
    }
  }
}

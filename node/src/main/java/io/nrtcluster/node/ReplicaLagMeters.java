package io.nrtcluster.node;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.nrtcluster.election.MemberInfo;
import io.nrtcluster.election.Role;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;

/**
 * The primary's view of each replica's lag ({@link NrtMeters#REPLICA_LAG_VERSIONS}, {@link
 * NrtMeters#REPLICA_LAG}), from the searching version every member reports in ZooKeeper and the
 * time this primary published each version (its own clock only). Unlike a replica's own view, it
 * also shows a replica that no longer hears from the primary but still reports. A replica's meters
 * exist while this node is primary and the replica is a member; they go when either ends.
 */
final class ReplicaLagMeters {
  /** Publication times kept; a replica further behind shows at least the oldest one's age. */
  private static final int MAX_PUBLISHED = 4096;

  private final MeterRegistry registry;
  private final Tags tags;
  /** Published version to the {@link System#nanoTime} of its publication. */
  private final ConcurrentSkipListMap<Long, Long> published = new ConcurrentSkipListMap<>();
  private final Map<Integer, ReplicaLag> replicas = new HashMap<>();
  private boolean closed;

  /** One replica's last report; its gauges read it. */
  private final class ReplicaLag {
    final Gauge versions;
    final TimeGauge time;
    volatile long versionsBehind;
    volatile long searching;

    ReplicaLag(int replica) {
      Tags t = tags.and(NrtMeters.TAG_REPLICA, Integer.toString(replica));
      versions = Gauge.builder(NrtMeters.REPLICA_LAG_VERSIONS, this, l -> l.versionsBehind).tags(t)
          .description("versions a replica searches behind this primary, from its member report").register(registry);
      time = TimeGauge.builder(NrtMeters.REPLICA_LAG, this, TimeUnit.NANOSECONDS, ReplicaLagMeters.this::nanosBehind).tags(t)
          .description("age of the oldest version this primary published that a replica does not search").register(registry);
    }

    void remove() {
      registry.remove(versions);
      registry.remove(time);
    }
  }

  ReplicaLagMeters(MeterRegistry registry, Tags tags) {
    this.registry = registry;
    this.tags = tags;
  }

  /** This node, as primary, published {@code version}. */
  void published(long version) {
    published.put(version, System.nanoTime());
    while (published.size() > MAX_PUBLISHED) {
      published.pollFirstEntry();
    }
  }

  /**
   * Brings the per-replica meters up to date: {@code primaryVersion} is this node's published
   * version, or -1 when it is not primary (then every per-replica meter goes).
   */
  synchronized void sample(int self, long primaryVersion, Iterable<MemberInfo> members) {
    if (closed) {
      return;
    }
    if (primaryVersion < 0) {
      removeAll();
      published.clear();
      return;
    }
    Set<Integer> present = new HashSet<>();
    for (MemberInfo m : members) {
      if (m.nodeId() == self || m.role() != Role.REPLICA) {
        continue;
      }
      present.add(m.nodeId());
      ReplicaLag lag = replicas.computeIfAbsent(m.nodeId(), ReplicaLag::new);
      lag.searching = m.searchingVersion();
      lag.versionsBehind = Math.max(0, primaryVersion - Math.max(0, m.searchingVersion()));
    }
    replicas.entrySet().removeIf(e -> {
      if (present.contains(e.getKey())) {
        return false;
      }
      e.getValue().remove();
      return true;
    });
  }

  private double nanosBehind(ReplicaLag lag) {
    if (lag.versionsBehind == 0) {
      return 0;
    }
    Map.Entry<Long, Long> oldest = published.higherEntry(lag.searching);
    return oldest == null ? 0 : Math.max(0, System.nanoTime() - oldest.getValue());
  }

  private void removeAll() {
    for (ReplicaLag lag : replicas.values()) {
      lag.remove();
    }
    replicas.clear();
  }

  synchronized void close() {
    closed = true;
    removeAll();
  }
}

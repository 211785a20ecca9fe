package io.nrtcluster.primary;

import io.nrtcluster.common.ExecutorSource;
import io.nrtcluster.common.NodeLog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.apache.lucene.replicator.nrt.CopyState;
import org.apache.lucene.replicator.nrt.FileMetaData;

/**
 * The copy-states kept for replicas whose connection dropped in the middle of a copy, each for a
 * short lease, so that the replica reconnecting in time resumes its copy instead of starting over.
 *
 * <p>Guarantees: a lease ends exactly once, by {@link #take} (its replica is back), by {@link
 * #forget}, by expiry, by eviction or by {@link #close}; an expired one is released through the
 * registry's callback outside this object's monitor, evicted and closed ones are returned to the
 * caller to release. At most
 * {@code maxLeases} are held, and the files they alone keep on disk (those the primary's current
 * point does not use, each counted once) stay within {@code maxBytes}: past either bound the oldest
 * leases are evicted. Nothing here waits for the network or the disk while holding the monitor.
 * Expiry runs on a serial executor of its own ({@link ExecutorSource.Pool#WORK}: releasing a
 * copy-state may delete files), made only when leases are on.
 */
final class CopyStateLeases {
  /** The lease length and bounds; a zero lease keeps nothing. */
  record Policy(Duration lease, int maxLeases, long maxBytes) {
    static final Policy NONE = new Policy(Duration.ZERO, 1, 0);

    static Policy of(PrimaryConfig config) {
      return new Policy(config.copyStateLease(), config.maxCopyStateLeases(), config.maxLeasedBytes());
    }

    boolean enabled() {
      return !lease.isZero();
    }
  }

  private record Entry(CopyState state, int replicaId, ScheduledFuture<?> expiry) {}

  private final Policy policy;
  private final NodeLog log;
  private final LongConsumer release;
  /** Oldest first; guarded by this. */
  private final LinkedHashMap<Long, Entry> order = new LinkedHashMap<>();
  private final AtomicLong started = new AtomicLong();
  private final AtomicLong resumed = new AtomicLong();
  private final AtomicLong expired = new AtomicLong();
  private final AtomicLong evicted = new AtomicLong();
  private final ScheduledExecutorService timer;
  private volatile PrimaryObserver observer = PrimaryObserver.NONE;
  private boolean closed;

  /** @param release releases an expired copy-state for good (called outside this monitor) */
  CopyStateLeases(Policy policy, NodeLog log, LongConsumer release) {
    this(policy, log, release, ExecutorSource.ownThreads());
  }

  /** As above, expiring leases on a serial executor from {@code executors}. */
  CopyStateLeases(Policy policy, NodeLog log, LongConsumer release, ExecutorSource executors) {
    this.policy = policy;
    this.log = log;
    this.release = release;
    this.timer = policy.enabled() ? executors.serial(ExecutorSource.Pool.WORK, "nrt-leases-" + log.name()) : null;
  }

  void observer(PrimaryObserver observer) {
    this.observer = observer;
  }

  boolean enabled() {
    return policy.enabled();
  }

  /**
   * Keeps copy-state {@code id} of replica {@code replicaId} under a lease. Returns null when leases
   * are off or closed (the caller releases it then), else the ids of the leases evicted to stay
   * within the bounds (possibly this one), which the caller releases outside any monitor.
   *
   * @param current names of the files of the primary's current point
   */
  List<Long> offer(long id, CopyState state, int replicaId, Set<String> current) {
    if (!policy.enabled()) {
      return null;
    }
    List<Long> evict;
    synchronized (this) {
      if (closed) {
        return null;
      }
      ScheduledFuture<?> expiry = timer.schedule(() -> expire(id), policy.lease().toMillis(), TimeUnit.MILLISECONDS);
      order.put(id, new Entry(state, replicaId, expiry));
      evict = overBounds(current);
    }
    started.incrementAndGet();
    log.info("replica R{} dropped during a copy of version {}: keeping copy-state {} for {} ms", replicaId, state.version(),
        id, policy.lease().toMillis());
    for (long e : evict) {
      evicted.incrementAndGet();
      log.info("copy-state lease {} released early: over {} leases or {} leased bytes", e, policy.maxLeases(), policy.maxBytes());
      notify(PrimaryObserver::copyStateLeaseEvicted);
    }
    return evict;
  }

  /** Removes the oldest leases until both bounds hold; returns their ids. Caller holds the monitor. */
  private List<Long> overBounds(Set<String> current) {
    List<Long> out = new ArrayList<>();
    while (!order.isEmpty() && (order.size() > policy.maxLeases() || leasedBytes(current) > policy.maxBytes())) {
      Map.Entry<Long, Entry> oldest = order.entrySet().iterator().next();
      order.remove(oldest.getKey());
      oldest.getValue().expiry().cancel(false);
      out.add(oldest.getKey());
    }
    return out;
  }

  /** Bytes of the files only leases keep: not in the current point, each file once. */
  private long leasedBytes(Set<String> current) {
    Map<String, Long> only = new HashMap<>();
    for (Entry e : order.values()) {
      for (Map.Entry<String, FileMetaData> f : e.state().files().entrySet()) {
        if (!current.contains(f.getKey())) {
          only.put(f.getKey(), f.getValue().length());
        }
      }
    }
    long sum = 0;
    for (long length : only.values()) {
      sum += length;
    }
    return sum;
  }

  /** The lease of copy-state {@code id} ends because its replica is back: true if it was still held. */
  boolean take(long id) {
    Entry e;
    synchronized (this) {
      e = order.remove(id);
    }
    if (e == null) {
      return false;
    }
    e.expiry().cancel(false);
    resumed(e.replicaId(), id);
    return true;
  }

  /** Replica {@code replicaId} resumes its copy from copy-state {@code id} on a new connection. */
  void resumed(int replicaId, long id) {
    resumed.incrementAndGet();
    log.info("replica R{} is back: resuming its copy from copy-state {}", replicaId, id);
    notify(PrimaryObserver::copyStateResumed);
  }

  /** Forgets the lease of {@code id} if any (the copy-state is being released otherwise). */
  void forget(long id) {
    Entry e;
    synchronized (this) {
      e = order.remove(id);
    }
    if (e != null) {
      e.expiry().cancel(false);
    }
  }

  private void expire(long id) {
    Entry e;
    synchronized (this) {
      e = order.remove(id);
    }
    if (e == null) {
      return;
    }
    expired.incrementAndGet();
    log.info("copy-state lease {} of replica R{} expired after {} ms; its next copy starts afresh", id, e.replicaId(),
        policy.lease().toMillis());
    notify(PrimaryObserver::copyStateLeaseExpired);
    release.accept(id);
  }

  private void notify(Consumer<PrimaryObserver> event) {
    try {
      event.accept(observer);
    } catch (RuntimeException ex) {
      log.warn("primary observer failed", ex);
    }
  }

  /** Ends every lease and takes no more; returns the copy-states the caller must release. */
  List<Long> close() {
    List<Long> ids;
    synchronized (this) {
      closed = true;
      ids = new ArrayList<>(order.keySet());
      for (Entry e : order.values()) {
        e.expiry().cancel(false);
      }
      order.clear();
    }
    if (timer != null) {
      timer.shutdownNow();
    }
    return ids;
  }

  synchronized int size() {
    return order.size();
  }

  CopyStateLeaseCounts counts() {
    return new CopyStateLeaseCounts(size(), started.get(), resumed.get(), expired.get(), evicted.get());
  }
}

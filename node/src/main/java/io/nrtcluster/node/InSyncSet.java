package io.nrtcluster.node;

import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.NotEnoughReplicasException;
import io.nrtcluster.common.NotPrimaryException;
import io.nrtcluster.common.NotPublishedException;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.SerialExecutor;
import io.nrtcluster.election.InSyncRecord;
import io.nrtcluster.election.IndexElection;
import io.nrtcluster.election.OutOfSyncReason;
import io.nrtcluster.primary.Primary;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

/**
 * The leading primary's side of the in-sync set ({@link InSyncRecord}): which replicas hold every
 * version it acknowledges as replicated, and the acknowledgements themselves.
 *
 * <p>Guarantees, while this node leads epoch {@code E} with primary {@code P}:
 * <ul>
 *   <li>No replicated acknowledgement before {@code P} wrote its first record of {@code E} (the old
 *       record's replicas, and its primary while that is a live member in the run the record names
 *       or between two runs, minus itself): the election never elects a node that lacks what it acknowledged.
 *   <li>{@link #await} returns for version {@code v} only when every replica of the set as stored
 *       in ZooKeeper, and every replica being added, reported (in the incarnation the set names) that
 *       it installed {@code v} or newer, and at least {@code minInSyncReplicas} did. A replica that
 *       has not installed {@code v} within {@code timeout} of its publication is removed from the
 *       set, in a transaction that checks {@code E}, before {@code v} is acknowledged; a removal
 *       that fails because {@code E} is lost fails the acknowledgement with {@link
 *       NotPrimaryException}. Only such an acknowledgement removes a lagging replica: with LOCAL
 *       acknowledgements alone the set never shrinks for lag, so elections are narrowed only by
 *       what replicated acknowledgements need.
 *   <li>A replica is added only once it reported installing the newest version {@code P} published,
 *       and from the moment it is chosen every acknowledgement waits for it, so a replica the stored
 *       set names never lacks an acknowledged version.
 *   <li>A replica whose node reports another incarnation (it reopened its index and lost what it had
 *       not committed) leaves the set at once ({@link OutOfSyncReason#RESTARTED}).
 * </ul>
 * The set's ZooKeeper writes run one at a time on a serial executor; the monitor of this object is
 * never held across them, and waiters wait on it with a bound.
 */
final class InSyncSet {
  private final NodeLog log;
  private final SerialExecutor writer;
  private final long timeoutNanos;
  private final int minInSync;
  private final LongSupplier clock;
  private final AtomicBoolean changeScheduled = new AtomicBoolean();

  // Guarded by this.
  private Leading leading;

  /** A replica's last install report: the run of its index, and the version. */
  record Install(long incarnation, long version) {}

  /** What this node leads, and what the set knows of it. */
  private static final class Leading {
    final Primary primary;
    final IndexElection election;
    final long epoch;
    /** The record as stored, null until the first write of this epoch landed. */
    InSyncRecord.Stored written;
    /** Replicas chosen to join and not yet stored (acknowledgements wait for them already). */
    final Map<Integer, Long> joining = new TreeMap<>();
    final Map<Integer, Install> installs = new HashMap<>();
    /** When each version published in this epoch was first seen, for the lag of those who lack it. */
    final TreeMap<Long, Long> publishedAt = new TreeMap<>();
    /** Set when the epoch is known lost (a write was refused on its check). */
    boolean lost;
    /**
     * The newest version a replicated acknowledgement waited for past its timeout: replicas lacking
     * it (for the timeout) leave. Nothing else removes a lagging replica, so an application that
     * acknowledges only LOCAL never shrinks the set (and so never narrows its elections): until then
     * it is {@link Long#MIN_VALUE}, which no replica lacks.
     */
    long removeLacking = Long.MIN_VALUE;

    Leading(Primary primary, IndexElection election, long epoch) {
      this.primary = primary;
      this.election = election;
      this.epoch = epoch;
    }
  }

  /**
   * @param timeout how long a replica may lack a published version before it leaves the set
   * @param minInSync in-sync replicas a replicated acknowledgement needs
   */
  InSyncSet(NodeLog log, SerialExecutor writer, Duration timeout, int minInSync, LongSupplier clock) {
    this.log = log;
    this.writer = writer;
    this.timeoutNanos = timeout.toNanos();
    this.minInSync = minInSync;
    this.clock = clock;
  }

  /** This node leads {@code epoch} with {@code primary} from now on: writes its first record. */
  void lead(Primary primary, IndexElection election, long epoch) {
    synchronized (this) {
      if (leading != null && leading.primary == primary) {
        return;
      }
      leading = new Leading(primary, election, epoch);
      leading.publishedAt.put(primary.version(), Long.MIN_VALUE);
      notifyAll();
    }
    primary.setInstallListener((node, incarnation, version) -> installed(primary, node, incarnation, version));
    // Members copy from the primary: their lag is a replicated acknowledgement's latency.
    primary.setDirectReplicas(id -> mustCopyFromPrimary.contains(id));
    scheduleChange();
  }

  /**
   * Members of the set as stored and those joining: the copy tree keeps them copying from the
   * primary. A volatile snapshot, so the primary's copy tree never takes this monitor.
   */
  private volatile Set<Integer> mustCopyFromPrimary = Set.of();

  /** This node no longer leads (stepped down, closed): waiting acknowledgements fail. */
  synchronized void stop() {
    leading = null;
    notifyAll();
  }

  private void installed(Primary p, int node, long incarnation, long version) {
    synchronized (this) {
      Leading l = leading;
      if (l == null || l.primary != p) {
        return;
      }
      Install old = l.installs.get(node);
      if (old == null || old.incarnation() != incarnation || old.version() < version) {
        l.installs.put(node, new Install(incarnation, version));
      }
      notifyAll();
    }
    scheduleChange();
  }

  /** {@code version} was just published by {@code p}: the lag of those who lack it counts from now. */
  void published(Primary p, long version) {
    synchronized (this) {
      Leading l = leading;
      if (l == null || l.primary != p) {
        return;
      }
      l.publishedAt.putIfAbsent(version, clock.getAsLong());
      while (l.publishedAt.size() > 4096) {
        l.publishedAt.pollFirstEntry();
      }
    }
  }

  /** Periodic look (about every 100 ms): a version published by other means, members that lag. */
  void tick() {
    Primary p;
    synchronized (this) {
      if (leading == null) {
        return;
      }
      p = leading.primary;
    }
    published(p, p.version());
    scheduleChange();
  }

  /** The set as last stored in this epoch, or null (not leading, or not written yet). */
  synchronized InSyncRecord current() {
    Leading l = leading;
    return l == null || l.written == null ? null : l.written.record();
  }

  /** The replicas known to hold {@code version} now (installed it, in the incarnation they reported last). */
  synchronized List<Integer> holding(Primary p, long version) {
    Leading l = leading;
    if (l == null || l.primary != p) {
      return List.of();
    }
    List<Integer> out = new ArrayList<>();
    l.installs.forEach((id, i) -> {
      if (i.version() >= version) {
        out.add(id);
      }
    });
    out.sort(null);
    return out;
  }

  /**
   * Waits until {@code version}, published by {@code p}, may be acknowledged as replicated; returns
   * the in-sync replicas that hold it. Bounded: {@code timeout} after its publication the replicas
   * lacking it are removed (ZooKeeper, bounded by {@code zkTimeoutMillis}), then it returns or fails.
   *
   * @throws NotPrimaryException this node no longer leads {@code p}'s epoch: nothing acknowledged
   * @throws io.nrtcluster.common.NotEnoughReplicasException fewer than {@code minInSyncReplicas} hold it
   * @throws NotPublishedException the set could not be recorded in time (ZooKeeper trouble): retry
   */
  List<Integer> await(Primary p, long version, long zkTimeoutMillis) throws NrtClusterException {
    long start = clock.getAsLong();
    long hardDeadline = start + timeoutNanos + TimeUnit.MILLISECONDS.toNanos(zkTimeoutMillis);
    boolean removalAsked = false;
    synchronized (this) {
      while (true) {
        Leading l = leading;
        if (l == null || l.primary != p || l.lost) {
          throw new NotPrimaryException(log.name() + " no longer leads the epoch that published version " + version
              + "; it is not acknowledged", null);
        }
        long now = clock.getAsLong();
        Long at = l.publishedAt.get(version);
        long deadline = (at == null || at == Long.MIN_VALUE ? start : at) + timeoutNanos;
        if (l.written != null) {
          Map<Integer, Long> required = new TreeMap<>(l.written.record().members());
          required.putAll(l.joining);
          List<Integer> holding = new ArrayList<>();
          List<Integer> lacking = new ArrayList<>();
          required.forEach((id, inc) -> {
            Install i = l.installs.get(id);
            (i != null && i.incarnation() == inc && i.version() >= version ? holding : lacking).add(id);
          });
          if (lacking.isEmpty()) {
            if (holding.size() >= minInSync) {
              return holding;
            }
            if (now >= deadline || p.replicaCount() < minInSync) {
              throw new NotEnoughReplicasException(log.name() + ": version " + version + " is held by "
                  + holding.size() + " in-sync replica(s) " + holding + ", fewer than the " + minInSync
                  + " required (minInSyncReplicas); not acknowledged", version, minInSync, holding);
            }
          } else if (now >= deadline && !removalAsked) {
            // The lagging replicas leave the set (the next change does it) before anything is acknowledged.
            removalAsked = true;
            l.removeLacking = Math.max(l.removeLacking, version);
            scheduleChange();
          }
        }
        if (now >= hardDeadline) {
          throw new NotPublishedException(log.name() + ": the in-sync set of version " + version
              + " could not be settled in ZooKeeper in time; not acknowledged");
        }
        long waitNanos = Math.min(hardDeadline, l.written != null && now < deadline ? deadline : hardDeadline) - now;
        try {
          TimeUnit.NANOSECONDS.timedWait(this, Math.max(1, Math.min(waitNanos, TimeUnit.MILLISECONDS.toNanos(50))));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new NotPublishedException("interrupted waiting for replicas to install version " + version, e);
        }
      }
    }
  }

  private void scheduleChange() {
    if (!changeScheduled.compareAndSet(false, true)) {
      return;
    }
    try {
      writer.execute(this::changeSafely);
    } catch (RejectedExecutionException e) {
      changeScheduled.set(false);
    }
  }

  private void changeSafely() {
    changeScheduled.set(false);
    try {
      change();
    } catch (RuntimeException e) {
      log.warn("updating the in-sync set failed: {}", e.toString());
    }
  }

  /** One step on the writer's thread: the first record, or the members that leave and join. */
  private void change() {
    Leading l;
    InSyncRecord.Stored base;
    InSyncRecord next;
    List<Integer> joined = new ArrayList<>();
    synchronized (this) {
      l = leading;
      if (l == null || l.lost) {
        return;
      }
      base = l.written;
    }
    if (base == null) {
      first(l);
      return;
    }
    synchronized (this) {
      if (leading != l) {
        return;
      }
      next = planned(l, base.record(), joined);
    }
    if (next.equals(base.record())) {
      return;
    }
    store(l, base, next, joined);
  }

  /** The record {@code base} becomes: laggards and restarted replicas out, caught-up ones in. Holding this. */
  private InSyncRecord planned(Leading l, InSyncRecord base, List<Integer> joined) {
    long now = clock.getAsLong();
    long newest = l.primary.version();
    long wallNow = System.currentTimeMillis();
    InSyncRecord next = base;
    for (Map.Entry<Integer, Long> m : base.members().entrySet()) {
      Install i = l.installs.get(m.getKey());
      if (i != null && i.incarnation() != m.getValue()) {
        next = next.without(m.getKey(), new InSyncRecord.Departure(OutOfSyncReason.RESTARTED, -1, wallNow));
        continue;
      }
      long has = i == null ? -1 : i.version();
      long since = lagStart(l, has);
      if (has < l.removeLacking && since != Long.MIN_VALUE && now - since >= timeoutNanos) {
        next = next.without(m.getKey(), new InSyncRecord.Departure(OutOfSyncReason.LAGGED, firstLacked(l, has), wallNow));
      }
    }
    // A joiner that stopped keeping up is dropped before it is stored (acknowledgements waited for it).
    l.joining.entrySet().removeIf(j -> {
      Install i = l.installs.get(j.getKey());
      if (i == null || i.incarnation() != j.getValue()) {
        return true;
      }
      long since = lagStart(l, i.version());
      return i.version() < l.removeLacking && since != Long.MIN_VALUE && now - since >= timeoutNanos;
    });
    for (Map.Entry<Integer, Install> e : l.installs.entrySet()) {
      int id = e.getKey();
      Install i = e.getValue();
      Long member = next.members().get(id);
      if (id == base.primary() || member != null && member == i.incarnation()) {
        continue;
      }
      if (i.version() >= newest && l.primary.copiesFromPrimary(id)) {
        // From here on every acknowledgement waits for it: it holds the newest published version now.
        l.joining.put(id, i.incarnation());
      }
    }
    for (Map.Entry<Integer, Long> j : l.joining.entrySet()) {
      Long member = next.members().get(j.getKey());
      if (member == null || member.longValue() != j.getValue()) {
        next = next.with(j.getKey(), j.getValue());
        joined.add(j.getKey());
      }
    }
    Set<Integer> direct = new HashSet<>(next.members().keySet());
    direct.addAll(l.joining.keySet());
    mustCopyFromPrimary = Set.copyOf(direct);
    return next;
  }

  /**
   * When the oldest version above {@code has} published in this epoch was first seen, or {@link
   * Long#MIN_VALUE} when there is none (the version this node opened at has no time: nobody lags for it).
   */
  private static long lagStart(Leading l, long has) {
    for (Map.Entry<Long, Long> e : l.publishedAt.tailMap(has, false).entrySet()) {
      if (e.getValue() != Long.MIN_VALUE) {
        return e.getValue();
      }
    }
    return Long.MIN_VALUE;
  }

  private static long firstLacked(Leading l, long has) {
    for (Map.Entry<Long, Long> e : l.publishedAt.tailMap(has, false).entrySet()) {
      if (e.getValue() != Long.MIN_VALUE) {
        return e.getKey();
      }
    }
    return -1;
  }

  /**
   * The first record of this epoch: the last record's replicas, minus this node, and the last
   * record's primary while it is a live member in the run that record names or between two runs of
   * its index. That primary holds every
   * version it acknowledged: it still runs as that primary, or it closed with all it published
   * committed and goes on as that run (a graceful hand-off commits before it resigns). Left out, a
   * hand-off's target that dies at once would leave its index no electable node.
   */
  private void first(Leading l) {
    InSyncRecord.Stored old;
    try {
      old = l.election.readInSync();
    } catch (NrtClusterException e) {
      log.warn("reading the in-sync set failed (retrying): {}", e.toString());
      retryLater();
      return;
    }
    InSyncRecord start = FirstInSyncRecord.of(old.record(), l.epoch, l.election.config().nodeId(), l.primary.incarnation(),
        l.election.cachedMembers());
    mustCopyFromPrimary = Set.copyOf(start.members().keySet());
    store(l, old, start, List.of());
  }

  private void store(Leading l, InSyncRecord.Stored base, InSyncRecord next, List<Integer> joined) {
    try {
      InSyncRecord.Stored stored = l.election.replaceInSync(next, base.zkVersion());
      synchronized (this) {
        l.written = stored;
        joined.forEach(l.joining::remove);
        notifyAll();
      }
      logChange(base.record(), next);
    } catch (NotPrimaryException e) {
      synchronized (this) {
        l.lost = true;
        notifyAll();
      }
      log.warn("the in-sync set cannot change: {}", e.getMessage());
    } catch (NrtClusterException e) {
      // The write may or may not have landed: read what is stored before deciding again. Joiners stay
      // joining meanwhile, so acknowledgements keep waiting for them.
      log.warn("writing the in-sync set failed (reading it again): {}", e.toString());
      try {
        InSyncRecord.Stored now = l.election.readInSync();
        if (now.record() != null && now.record().epoch() == l.epoch) {
          synchronized (this) {
            l.written = now;
            now.record().members().keySet().forEach(l.joining::remove);
            notifyAll();
          }
        }
      } catch (NrtClusterException again) {
        log.warn("reading the in-sync set failed: {}", again.toString());
      }
      retryLater();
    }
  }

  private void logChange(InSyncRecord before, InSyncRecord after) {
    if (before == null || before.epoch() != after.epoch()) {
      log.info("in-sync set of epoch {}: replicas {}", after.epoch(), after.members().keySet());
      return;
    }
    for (Integer id : before.members().keySet()) {
      if (!after.members().containsKey(id)) {
        InSyncRecord.Departure d = after.departed().get(id);
        log.warn("replica {} left the in-sync set ({}{}); in sync now: {}", id, d == null ? "?" : d.reason(),
            d != null && d.version() >= 0 ? ", lacked version " + d.version() : "", after.members().keySet());
      }
    }
    for (Integer id : after.members().keySet()) {
      if (!before.members().containsKey(id)) {
        log.info("replica {} joined the in-sync set; in sync now: {}", id, after.members().keySet());
      }
    }
  }

  private void retryLater() {
    try {
      writer.schedule(this::scheduleChange, 200, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // Closed.
    }
  }

  void close() {
    stop();
    writer.shutdownNow();
  }
}

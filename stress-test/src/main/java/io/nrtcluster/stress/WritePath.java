package io.nrtcluster.stress;

import io.nrtcluster.election.Role;
import io.nrtcluster.node.Durability;
import io.nrtcluster.stress.agent.AgentApi;
import io.nrtcluster.stress.agent.AgentApi.Op;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the harness writes, as a real application on this library must: every write goes to the
 * current primary and into the {@link TxLog}; any failure (refused, unreachable, timed out) marks
 * the path dirty, and nothing more is written until a resync has found the primary ZooKeeper names,
 * read its replay position and replayed the log from there. Refreshes carry the log position they
 * cover, which is what the next primary's replay position will be.
 *
 * <p>It follows the cluster's view as a client does ({@link #follow}, a few times a second): as soon
 * as ZooKeeper names another primary or generation than the target's, the path is dirty and every
 * write or refresh still waiting on the old target is given up ({@link WriteRoute}), so no write waits
 * out its timeout on a paused or cut-off node the view no longer names.
 *
 * <p>Writes run under the read side of a lock and resyncs and refresh snapshots under the write
 * side, so a refresh's position never covers a write still in flight, and a replay never races one.
 *
 * <p>With {@link Durability#REPLICATED} (an application with no replayable source) it never replays:
 * a resync only finds the new primary. Refreshes ask for a replicated acknowledgement, and a write
 * counts as acknowledged only once one on the primary that accepted it covered it ({@link
 * ReplicatedAcks}); a refresh refused for lack of in-sync replicas leaves the path clean (the primary
 * still leads) and only waits a moment, every other refusal makes it dirty as before.
 */
final class WritePath {
  private static final Logger LOG = LoggerFactory.getLogger(WritePath.class);
  private static final int REPLAY_BATCH = 500;
  /** Pause after a refresh refused for lack of in-sync replicas, so callers retrying it do not spin. */
  private static final long REFUSED_PAUSE_MS = 100;

  /** The primary writes go to, the generation it leads, and when ({@link System#nanoTime}) it was chosen. */
  record Target(NodeProcess node, long gen, long sinceNanos) {
    /** Why writes must leave this target by {@code view}, or null (see {@link WriteRoute#leave}). */
    String leave(WriteRoute.View view) {
      return WriteRoute.leave(node.id(), gen, sinceNanos, view);
    }
  }

  /** One acknowledged refresh: when the harness asked for it (wall-clock millis), and on which primary. */
  record Refresh(long startMillis, int primaryId) {}

  private final ChaosCluster cluster;
  private final TxLog log;
  private final Timeline timeline;
  private final AckLog acks;
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock(true);
  private final Condition resynced = lock.writeLock().newCondition();
  private volatile Target target;
  /** The newest view of who leads; null until one was read. */
  private volatile WriteRoute.View view;
  private volatile boolean dirty = true;
  private final Object dirtySignal = new Object();
  private final AtomicLong firstFailureAt = new AtomicLong();
  private final List<Long> failoverMillis = new ArrayList<>();
  private final ConcurrentHashMap<Long, Refresh> refreshes = new ConcurrentHashMap<>();
  private final AtomicLong replayed = new AtomicLong();
  private final AtomicLong refreshFailures = new AtomicLong();
  private final AtomicLong commits = new AtomicLong();
  private final WriteGaps gaps = new WriteGaps();
  private final Durability durability;
  private final ReplicatedAcks replicated = new ReplicatedAcks();

  WritePath(ChaosCluster cluster, TxLog log, Timeline timeline, AckLog acks) {
    this(cluster, log, timeline, acks, Durability.LOCAL);
  }

  WritePath(ChaosCluster cluster, TxLog log, Timeline timeline, AckLog acks, Durability durability) {
    this.durability = durability;
    this.cluster = cluster;
    this.log = log;
    this.timeline = timeline;
    this.acks = acks;
  }

  Target target() {
    return dirty ? null : target;
  }

  /**
   * Appends the ops {@code batch} makes to the log and sends them to the primary. Returns false
   * (nothing acknowledged) when the path needs a resync first or the primary did not acknowledge.
   */
  boolean write(Supplier<List<Op>> batch) {
    lock.readLock().lock();
    try {
      Target t = target;
      if (dirty || t == null) {
        return false;
      }
      List<Op> ops = batch.get();
      if (ops.isEmpty()) {
        return true;
      }
      try {
        AgentApi.WriteReply reply = t.node().client().write(ops, () -> t.leave(view));
        log.acknowledge(ops);
        if (durability == Durability.REPLICATED && reply.gen() == t.gen()) {
          replicated.accepted(t.node().id(), t.gen(), ops);
        }
        gaps.acknowledged(timeline.now());
        return true;
      } catch (AgentException e) {
        markDirty("write to N" + t.node().id() + " failed: " + e.getMessage());
        return false;
      }
    } finally {
      lock.readLock().unlock();
    }
  }

  /**
   * Takes a newer view of who leads (null: ZooKeeper did not answer; ignored): once it names another
   * primary or generation than the target's, the path is dirty at once, without waiting for a write
   * to fail.
   */
  void follow(WriteRoute.View v) {
    if (v == null) {
      return;
    }
    view = v;
    Target t = target;
    String why = t == null || dirty ? null : t.leave(v);
    if (why != null) {
      markDirty(why);
    }
  }

  private void markDirty(String why) {
    if (!dirty) {
      LOG.info("write path dirty: {}", why);
    }
    firstFailureAt.compareAndSet(0, System.currentTimeMillis());
    dirty = true;
    synchronized (dirtySignal) {
      dirtySignal.notifyAll();
    }
  }

  /** Waits (at most {@code millis}) until the path is dirty. */
  void awaitDirty(long millis) throws InterruptedException {
    synchronized (dirtySignal) {
      if (!dirty) {
        dirtySignal.wait(millis);
      }
    }
  }

  /** Something outside the write path (a fault) moved the primary: resync before the next write. */
  void invalidate(String why) {
    lock.writeLock().lock();
    try {
      markDirty(why);
    } finally {
      lock.writeLock().unlock();
    }
  }

  boolean dirty() {
    return dirty;
  }

  /** Waits until the path is clean (bounded); true if it is. */
  boolean awaitClean(long millis) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    lock.writeLock().lock();
    try {
      while (dirty) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        resynced.awaitNanos(left);
      }
      return true;
    } finally {
      lock.writeLock().unlock();
    }
  }

  /**
   * One attempt to make the path clean: find the primary, replay the log after its replay position,
   * and make it the target. Returns true if the path is clean afterwards.
   */
  boolean resync() {
    lock.writeLock().lock();
    try {
      if (!dirty) {
        return true;
      }
      long chosenAt = System.nanoTime();
      WriteRoute.View v = cluster.view();
      if (v == null || v.primaryId() < 0) {
        return false;
      }
      NodeProcess p = cluster.node(v.primaryId());
      if (p.state() != NodeProcess.State.UP) {
        return false;
      }
      follow(v);
      try {
        AgentApi.Status s = p.client().status();
        if (s.role() != Role.PRIMARY || !s.writable() || s.gen() != v.gen()) {
          // Still promoting (or fenced, or already replaced): its replay position is not known yet.
          return false;
        }
        long from = s.replayPosition() == null ? 0 : Long.parseLong(s.replayPosition());
        // An application with no replayable source (replicated durability) only finds the new primary.
        List<Op> tail = durability == Durability.LOCAL ? log.after(from) : List.of();
        for (int i = 0; i < tail.size(); i += REPLAY_BATCH) {
          List<Op> batch = tail.subList(i, Math.min(tail.size(), i + REPLAY_BATCH));
          p.client().write(batch, () -> WriteRoute.leave(p.id(), v.gen(), chosenAt, view));
          log.acknowledge(batch);
        }
        replayed.addAndGet(tail.size());
        Target before = target;
        Target now = new Target(p, s.gen(), chosenAt);
        long since = firstFailureAt.getAndSet(0);
        if (before != null && (before.node() != p || before.gen() != s.gen())) {
          long took = since == 0 ? 0 : System.currentTimeMillis() - since;
          synchronized (failoverMillis) {
            failoverMillis.add(took);
          }
          gaps.failover(timeline.now());
          LOG.info("failover: N{} gen={} -> N{} gen={} in {} ms, replayed {} writes after position {}",
              before.node().id(), before.gen(), p.id(), s.gen(), took, tail.size(), from);
        } else if (!tail.isEmpty()) {
          LOG.info("resynced with N{} gen={}: replayed {} writes after position {}", p.id(), s.gen(), tail.size(), from);
        }
        target = now;
        dirty = false;
        resynced.signalAll();
        return true;
      } catch (AgentException | NumberFormatException e) {
        LOG.debug("resync with N{} failed: {}", p.id(), e.getMessage());
        return false;
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  /**
   * Refreshes the primary with the log position every acknowledged write so far is covered by.
   * Returns the new version, or -1 if the path is dirty or the refresh failed.
   */
  long refresh() {
    Target t;
    long position;
    lock.writeLock().lock();
    try {
      if (dirty || target == null) {
        return -1;
      }
      t = target;
      position = log.lastSeq();
    } finally {
      lock.writeLock().unlock();
    }
    long start = System.currentTimeMillis();
    if (durability == Durability.REPLICATED) {
      return refreshReplicated(t, position, start);
    }
    try {
      AgentApi.RefreshReply r = t.node().client().refresh(position, () -> t.leave(view));
      acks.add(new AckLog.Ack(t.node().id(), r.gen(), r.version(), start, System.currentTimeMillis(), false,
          r.numDocs(), r.digest()));
      refreshes.putIfAbsent(r.version(), new Refresh(start, t.node().id()));
      return r.version();
    } catch (AgentException e) {
      refreshFailures.incrementAndGet();
      if (!dirty) {
        invalidate("refresh on N" + t.node().id() + " failed: " + e.getMessage());
      }
      return -1;
    }
  }

  /**
   * {@link #refresh()} asking for a replicated acknowledgement: returns the version only when it was
   * acknowledged and attributed to the target's generation, which acknowledges every write that
   * primary accepted up to {@code position}. A version refused for lack of in-sync replicas was still
   * published, so it is recorded for the safety checks like any publication (not as an
   * acknowledgement of writes).
   */
  private long refreshReplicated(Target t, long position, long start) {
    try {
      AgentApi.RefreshReply r = t.node().client().refresh(position, Durability.REPLICATED, () -> t.leave(view));
      acks.add(new AckLog.Ack(t.node().id(), r.gen(), r.version(), start, System.currentTimeMillis(), false,
          r.numDocs(), r.digest()));
      if (!r.acknowledged()) {
        replicated.refused(RefreshRefusal.NOT_ENOUGH_REPLICAS);
        LOG.info("refresh on N{} gen={} at position {} published version {} but was not acknowledged: {} "
            + "(in-sync replicas holding it: {})", t.node().id(), t.gen(), position, r.version(), r.refusal(), r.replicas());
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(REFUSED_PAUSE_MS));
        return -1;
      }
      if (r.gen() != t.gen()) {
        // Switched roles during the refresh: which generation's writes it covers is unknown.
        replicated.unattributed();
        return -1;
      }
      replicated.refreshed(t.node().id(), t.gen(), position, timeline.now());
      refreshes.putIfAbsent(r.version(), new Refresh(start, t.node().id()));
      return r.version();
    } catch (AgentException e) {
      refreshFailures.incrementAndGet();
      replicated.refused(RefreshRefusal.of(e));
      if (!dirty) {
        invalidate("replicated refresh on N" + t.node().id() + " failed: " + e.getMessage());
      }
      return -1;
    }
  }

  /** Which writes replicated refreshes acknowledged (empty with {@link Durability#LOCAL}). */
  ReplicatedAcks replicated() {
    return replicated;
  }

  Durability durability() {
    return durability;
  }

  /** The acknowledged writes that must survive: those no full-cluster crash voided ({@link ReplicatedAcks#surviving}). */
  ReplicatedAcks.Surviving surviving() {
    List<Long> crashes = timeline.events().stream().filter(e -> e.kind() == FaultKind.FULL_RESTART)
        .map(Timeline.Event::atMillis).toList();
    return replicated.surviving(crashes);
  }

  /** Commits on every node that is up (primary first); failures only counted. */
  void commitAll() {
    Target t = target;
    List<NodeProcess> order = new ArrayList<>();
    if (t != null) {
      order.add(t.node());
    }
    for (NodeProcess n : cluster.nodes()) {
      if (!order.contains(n)) {
        order.add(n);
      }
    }
    for (NodeProcess n : order) {
      if (n.state() != NodeProcess.State.UP) {
        continue;
      }
      long acknowledgedBefore = t == null ? 0 : replicated.acknowledgedPosition(t.gen());
      try {
        AgentApi.CommitReply c = n.client().commit();
        if (t != null && n == t.node() && c.gen() == t.gen()) {
          // The primary that held every acknowledged write committed them all (replicated durability's record).
          replicated.committed(acknowledgedBefore, timeline.now());
        }
        acks.commit(new AckLog.Commit(n.id(), c.version(), System.currentTimeMillis(), c.primary()));
        commits.incrementAndGet();
      } catch (AgentException e) {
        LOG.debug("commit on N{} failed: {}", n.id(), e.getMessage());
      }
    }
  }

  /** Every acknowledged refresh by the version it made (the first one, if a version was refreshed twice). */
  Map<Long, Refresh> refreshes() {
    return Map.copyOf(refreshes);
  }

  List<Long> failoverMillis() {
    synchronized (failoverMillis) {
      return List.copyOf(failoverMillis);
    }
  }

  /** The gaps between acknowledged writes, as the application saw them. */
  ChaosReport.WriteGap writeGaps() {
    return gaps.figures();
  }

  long replayed() {
    return replayed.get();
  }

  long commits() {
    return commits.get();
  }
}

package io.nrtcluster.objectstore;

import io.nrtcluster.common.NodeLog;
import io.nrtcluster.election.Role;
import io.nrtcluster.node.ClusterNode;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * When a host's indexes are swept: an index is swept by whichever node leads it, whenever its last
 * sweep ({@link RetentionRun}, recorded in the store by whoever swept) is {@code retentionInterval}
 * old or there is none. So a cluster whose primaries move often still sweeps: the schedule belongs
 * to the index, not to a node's time as primary.
 *
 * <p>One thread per host checks every {@link #tick(Duration) tick} (a tenth of the interval, between
 * 100 ms and 30 s), and an index at once when its node starts to lead it; an index's record is read again only once it is due by what this host last read
 * or wrote, and whenever this node starts to lead it (another primary may have swept meanwhile). A
 * sweep that fails is tried again after the tick's multiple below, never in a loop. The thread
 * waits for nothing but the store.
 */
final class RetentionSchedule implements AutoCloseable {
  /** One index this host may sweep. */
  interface Target {
    /** The index as open on this host, or null while it is not (yet). */
    ClusterNode node();

    ManifestStore manifests();

    NodeLog log();
  }

  private static final Duration RETRY_AFTER_FAILURE_MAX = Duration.ofMinutes(1);

  private final RetentionPolicy policy;
  private final Duration interval;
  private final int nodeId;
  private final Clock clock;
  private final ScheduledExecutorService thread;
  private final Map<String, Entry> targets = new ConcurrentHashMap<>();
  private final AtomicLong ticks = new AtomicLong();

  /** What this host knows of one index's schedule; touched by the schedule's thread only (and read by status). */
  private static final class Entry {
    final Target target;
    /** Whether this node led the index at the last tick (a new leadership reads the record again). */
    boolean leading;
    /** When the next sweep is due, by this host's clock; null: read the record first. */
    Instant due;
    volatile RetentionRun lastSeen;

    Entry(Target target) {
      this.target = target;
    }
  }

  RetentionSchedule(RetentionPolicy policy, Duration interval, int nodeId, Clock clock) {
    this.policy = policy;
    this.interval = interval;
    this.nodeId = nodeId;
    this.clock = clock;
    this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "nrt-N" + nodeId + "-backup-sweep");
      t.setDaemon(true);
      return t;
    });
    long every = tick(interval).toMillis();
    thread.scheduleWithFixedDelay(this::tickSafely, every, every, TimeUnit.MILLISECONDS);
  }

  /** How often the schedule looks: a tenth of the interval, at least 100 ms, at most 30 s. */
  static Duration tick(Duration interval) {
    Duration t = interval.dividedBy(10);
    return t.compareTo(Duration.ofMillis(100)) < 0 ? Duration.ofMillis(100)
        : t.compareTo(Duration.ofSeconds(30)) > 0 ? Duration.ofSeconds(30) : t;
  }

  void add(String index, Target target) {
    targets.put(index, new Entry(target));
  }

  void remove(String index) {
    targets.remove(index);
  }

  /**
   * Checks {@code index} soon, on the schedule's thread: its node may have started to lead it, and a
   * sweep overdue by its record runs then rather than a tick later.
   */
  void checkSoon(String index) {
    Entry e = targets.get(index);
    if (e == null) {
      return;
    }
    try {
      thread.execute(() -> {
        try {
          check(e);
        } catch (RuntimeException ex) {
          e.target.log().warn("retention check failed: {}", ex.toString());
        }
      });
    } catch (RejectedExecutionException closed) {
      // Closing: nothing more is swept.
    }
  }

  /** The last record of {@code index} this host read or wrote. */
  Optional<RetentionRun> lastSeen(String index) {
    Entry e = targets.get(index);
    return e == null ? Optional.empty() : Optional.ofNullable(e.lastSeen);
  }

  /** Checks done so far (for tests that wait for a few). */
  long ticks() {
    return ticks.get();
  }

  private void tickSafely() {
    for (Entry e : targets.values()) {
      try {
        check(e);
      } catch (RuntimeException ex) {
        e.target.log().warn("retention check failed: {}", ex.toString());
      }
      if (Thread.currentThread().isInterrupted()) {
        return;
      }
    }
    ticks.incrementAndGet();
  }

  private void check(Entry e) {
    ClusterNode node = e.target.node();
    if (node == null || node.role() != Role.PRIMARY) {
      e.leading = false;
      e.due = null;
      return;
    }
    if (!e.leading) {
      e.leading = true;
      e.due = null; // another primary may have swept since this node last looked
    }
    Instant now = clock.instant();
    if (e.due != null && now.isBefore(e.due)) {
      return;
    }
    ManifestStore manifests = e.target.manifests();
    try {
      Optional<RetentionRun> last;
      try {
        last = RetentionRun.read(manifests.blobStore(), manifests.layout());
      } catch (CorruptBackupException bad) {
        // A record nobody can read must not stop retention for good: this sweep writes a new one.
        e.target.log().warn("{}; sweeping and writing it again", bad.getMessage());
        last = Optional.empty();
      }
      last.ifPresent(r -> e.lastSeen = r);
      if (last.isPresent() && now.isBefore(last.get().finished().plus(interval))) {
        e.due = last.get().finished().plus(interval);
        return;
      }
      long gen = node.primaryGen();
      SweepResult result = new RetentionSweeper(manifests, e.target.log()).sweep(policy);
      RetentionRun run = RetentionRun.of(nodeId, gen, now, clock.instant(), result);
      run.write(manifests.blobStore(), manifests.layout());
      e.lastSeen = run;
      e.due = run.finished().plus(interval);
    } catch (InterruptedIOException closing) {
      Thread.currentThread().interrupt(); // the host closes: nothing to retry
    } catch (IOException | RuntimeException ex) {
      Duration retry = interval.compareTo(RETRY_AFTER_FAILURE_MAX) < 0 ? interval : RETRY_AFTER_FAILURE_MAX;
      e.due = now.plus(retry);
      e.target.log().warn("retention sweep failed, tried again in {}: {}", retry, ex.toString());
    }
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}

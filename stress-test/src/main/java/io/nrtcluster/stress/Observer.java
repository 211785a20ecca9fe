package io.nrtcluster.stress;

import io.nrtcluster.stress.agent.AgentApi;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * Watches every node a few times a second: records role and searching version on the
 * {@link Timeline}, collects when each node first searched each version (for replication lag), sums
 * the fault counters over process restarts, and prints one progress line every few seconds.
 */
final class Observer implements AutoCloseable {
  private static final long PERIOD_MS = 250;
  private static final long PROGRESS_MS = 5_000;
  /** Longest a node's status may take: the operator's view must not hang on a partition or a stuck copy. */
  static final long STATUS_BOUND_MS = 2_000;
  private final ChaosCluster cluster;
  private final Timeline timeline;
  private final Consumer<String> out;
  private final Supplier<String> progress;
  private final Thread thread;
  private volatile boolean running = true;
  /** node id -> version -> first-seen millis. */
  private final Map<Integer, Map<Long, Long>> firstSeen = new HashMap<>();
  /** "node/incarnation" -> the last status that process incarnation answered (its counters are process totals). */
  private final Map<String, AgentApi.Status> counters = new HashMap<>();
  /** "node/incarnation" -> sampled after the final check (false: ended, or silent then); set by {@link #settleFlips}. */
  private final Map<String, Boolean> liveAtEnd = new HashMap<>();
  private final Map<Integer, AgentApi.Status> last = new HashMap<>();
  private long statusAnswers;
  private long statusOverBound;
  private long statusMaxMillis;
  private final List<String> statusExamples = new ArrayList<>();

  Observer(ChaosCluster cluster, Timeline timeline, Consumer<String> out, Supplier<String> progress) {
    this.cluster = cluster;
    this.timeline = timeline;
    this.out = out;
    this.progress = progress;
    this.thread = Thread.ofPlatform().name("chaos-observer").daemon().unstarted(this::run);
  }

  void start() {
    thread.start();
  }

  private void run() {
    long nextProgress = System.currentTimeMillis() + PROGRESS_MS;
    while (running) {
      pollAll();
      long now = System.currentTimeMillis();
      if (now >= nextProgress) {
        out.accept(progress.get());
        nextProgress = now + PROGRESS_MS;
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(PERIOD_MS));
    }
  }

  /**
   * One round of status requests (also used once more at the end, to collect the last counters).
   * Returns the "node/incarnation" of every process that answered.
   */
  Set<String> pollAll() {
    Set<String> answered = new HashSet<>();
    for (NodeProcess n : cluster.nodes()) {
      NodeProcess.State state = n.state();
      if (state != NodeProcess.State.UP) {
        timeline.silent(n.id(), state);
        continue;
      }
      int incarnation = n.incarnation();
      int disturbed = n.disturbances();
      long start = System.nanoTime();
      try {
        AgentApi.Status s = n.client().statusDraining();
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        timeline.sample(n.id(), s.role(), s.version(), s.gen());
        synchronized (this) {
          statusAnswers++;
          statusMaxMillis = Math.max(statusMaxMillis, took);
          if (took > STATUS_BOUND_MS && disturbed >= 0 && n.disturbances() == disturbed) {
            overBound(n, "answered after " + took + " ms");
          }
          last.put(n.id(), s);
          Map<Long, Long> seen = firstSeen.computeIfAbsent(n.id(), k -> new HashMap<>());
          for (AgentApi.VersionSeen vt : s.versionTimes()) {
            seen.putIfAbsent(vt.version(), vt.epochMillis());
          }
          counters.put(n.id() + "/" + incarnation, s);
          answered.add(n.id() + "/" + incarnation);
        }
      } catch (AgentException e) {
        timeline.silent(n.id(), NodeProcess.State.UP);
        // Only a process the harness left alone, and that still runs, owes an answer.
        if (disturbed >= 0 && n.disturbances() == disturbed && n.alive() && n.state() == NodeProcess.State.UP) {
          synchronized (this) {
            statusMaxMillis = Math.max(statusMaxMillis, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            overBound(n, "did not answer: " + e.getMessage());
          }
        }
      }
    }
    return answered;
  }

  /**
   * After the final check: samples every node until none has bit flips pending (the last copies'
   * streams are closed on the event loop a moment after they end), for at most {@code timeoutMs},
   * and records which processes were sampled then (live) and which had ended. A flip still pending
   * in a live process after this is unaccounted ({@link WireFlipCheck}).
   */
  void settleFlips(long timeoutMs) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    Set<String> answered;
    while (true) {
      answered = pollAll();
      boolean settled = true;
      synchronized (this) {
        for (String key : answered) {
          settled &= counters.get(key).bitFlipsPending() == 0;
        }
      }
      if (settled || System.nanoTime() >= deadline) {
        break;
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(PERIOD_MS));
    }
    Map<Integer, Integer> running = new HashMap<>();
    for (NodeProcess n : cluster.nodes()) {
      if (n.state() == NodeProcess.State.UP) {
        running.put(n.id(), n.incarnation());
      }
    }
    synchronized (this) {
      for (String key : counters.keySet()) {
        String[] parts = key.split("/");
        Integer incarnation = running.get(Integer.parseInt(parts[0]));
        boolean stillRunning = incarnation != null && incarnation == Integer.parseInt(parts[1]);
        // A running process that did not answer is judged as live too: its pending flips are not excused.
        liveAtEnd.put(key, answered.contains(key) || stillRunning);
      }
    }
  }

  /**
   * The last bit-flip counters of every process incarnation; processes not known to be live after
   * the final check ({@link #settleFlips}) count as ended.
   */
  synchronized List<WireFlipCheck.Sample> flipSamples() {
    List<WireFlipCheck.Sample> out = new ArrayList<>();
    for (Map.Entry<String, AgentApi.Status> e : counters.entrySet()) {
      AgentApi.Status c = e.getValue();
      out.add(new WireFlipCheck.Sample(e.getKey(), c.bitFlipsInjected(), c.bitFlipsDetected(), c.bitFlipsDiscarded(),
          c.bitFlipsUndetected(), c.bitFlipsPending(), !liveAtEnd.getOrDefault(e.getKey(), false)));
    }
    return out;
  }

  private void overBound(NodeProcess n, String what) {
    statusOverBound++;
    if (statusExamples.size() < 10) {
      statusExamples.add("N" + n.id() + " status at " + timeline.now() + " ms " + what);
    }
  }

  /** Status requests answered, over the bound (or unanswered by a running, undisturbed node), the slowest answer. */
  record StatusFigures(long answers, long overBound, long maxMillis, long boundMillis, List<String> examples) {}

  synchronized StatusFigures statusFigures() {
    return new StatusFigures(statusAnswers, statusOverBound, statusMaxMillis, STATUS_BOUND_MS, List.copyOf(statusExamples));
  }

  /** The last status of each node that answered. */
  synchronized Map<Integer, AgentApi.Status> lastStatus() {
    return Map.copyOf(last);
  }

  /** One counter summed over every node and process incarnation. */
  private synchronized long total(ToLongFunction<AgentApi.Status> counter) {
    long sum = 0;
    for (AgentApi.Status c : counters.values()) {
      sum += counter.applyAsLong(c);
    }
    return sum;
  }

  long checksumMismatches() {
    return total(AgentApi.Status::checksumMismatches);
  }

  long bytesCopied() {
    return total(AgentApi.Status::bytesCopied);
  }

  /**
   * Replication lag samples: for each refresh (version, start millis, primary), how long until each
   * other node first searched that version. Versions a node skipped are not counted.
   */
  synchronized List<Long> lagMillis(Map<Long, WritePath.Refresh> refreshes) {
    List<Long> lags = new ArrayList<>();
    for (Map.Entry<Long, WritePath.Refresh> r : refreshes.entrySet()) {
      long start = r.getValue().startMillis();
      int primary = r.getValue().primaryId();
      for (Map.Entry<Integer, Map<Long, Long>> node : firstSeen.entrySet()) {
        if (node.getKey() == primary) {
          continue;
        }
        Long seen = node.getValue().get(r.getKey());
        if (seen != null && seen >= start) {
          lags.add(seen - start);
        }
      }
    }
    return lags;
  }

  static String format(String fmt, Object... args) {
    return String.format(Locale.ROOT, fmt, args);
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    thread.join(TimeUnit.SECONDS.toMillis(10));
  }
}

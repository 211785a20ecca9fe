package io.nrtcluster.stress.bench;

import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * Where the primaries of a {@link ScaleCluster} are, read from ZooKeeper's primary znodes, and how
 * they move until they settle: whatever moves them (the election, an automatic rebalancing, an
 * operator's call) shows the same way, so the figure needs no knowledge of how placement is decided.
 *
 * <p>A watch ends when primaries per node are within one of each other and have not changed for 2 s
 * ("within one"), when they have not changed for the quiet time ("quiet"; a minute when the node it
 * waits for never catches up: "quiet, not caught up"), or after 5 minutes ("deadline").
 */
final class PlacementWatch {
  private static final Duration PLACEMENT_DEADLINE = Duration.ofMinutes(1);
  private static final Duration DEADLINE = Duration.ofMinutes(5);
  private static final long SETTLE_NANOS = TimeUnit.SECONDS.toNanos(2);
  private static final Duration STUCK_QUIET = Duration.ofSeconds(60);

  /** Runs once the node a watch waits for has caught up (before the watch goes on). */
  @FunctionalInterface
  interface OnCaughtUp {
    void run() throws Exception;
  }

  private PlacementWatch() {}

  /**
   * Watches the primaries from {@code from} (nanoTime; the moment a watch's times count from) until they
   * settle among the nodes that are up.
   *
   * @param before index to node as it was at {@code from}: every change from it is a move
   * @param ready completes with when the watch may start counting quiet time (nanoTime), for example
   *     when a restarted node serves; moves are counted meanwhile
   * @param catchUpNode a node that must search every index before quiet time counts (null: none)
   * @param quiet how long unchanged primaries (not within one) end the watch
   */
  static BenchReport.Rebalance watch(ScaleCluster c, long from, Map<Integer, Integer> before, CompletableFuture<Long> ready,
      Integer catchUpNode, Duration quiet, OnCaughtUp onCaughtUp, Consumer<String> out) throws Exception {
    Map<Integer, Integer> owner = new HashMap<>(before);
    long caughtUp = -1;
    long lastChange = -1;
    int moves = 0;
    String endedBy = "deadline";
    Map<Integer, Integer> now = owner;
    long deadline = from + DEADLINE.toNanos();
    long stuckQuiet = Math.max(quiet.toNanos(), STUCK_QUIET.toNanos());
    long readyAt = -1;
    while (System.nanoTime() - deadline < 0) {
      now = c.primaries();
      for (Map.Entry<Integer, Integer> e : now.entrySet()) {
        Integer was = owner.put(e.getKey(), e.getValue());
        if (was != null && !was.equals(e.getValue())) {
          moves++;
          lastChange = System.nanoTime();
        }
      }
      if (readyAt < 0) {
        if (!ready.isDone()) {
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
          continue;
        }
        readyAt = ready.join();
        caughtUp = catchUpNode == null ? readyAt : -1;
      }
      if (caughtUp < 0 && c.notSearching(catchUpNode) == null) {
        caughtUp = System.nanoTime();
        out.accept(String.format(Locale.ROOT, "bench: scale: N%d caught up %.0f ms after its restart", catchUpNode,
            (caughtUp - from) / 1e6));
        onCaughtUp.run();
      }
      if (now.size() == c.indexes()) {
        long since = System.nanoTime() - Math.max(caughtUp < 0 ? readyAt : caughtUp, lastChange);
        if (placement(now, c.upIds()).withinOne() && since >= SETTLE_NANOS) {
          endedBy = "within one";
          break;
        }
        if (since >= (caughtUp < 0 ? stuckQuiet : quiet.toNanos())) {
          endedBy = caughtUp < 0 ? "quiet, not caught up" : "quiet";
          break;
        }
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
    }
    String notCaughtUp = caughtUp < 0 ? c.notSearching(catchUpNode) : null;
    if (notCaughtUp != null) {
      out.accept("bench: scale: N" + catchUpNode + " did not catch up: " + notCaughtUp);
    }
    double toCaughtUp = caughtUp < 0 ? -1 : round((caughtUp - from) / 1e6);
    double toEnd = round((Math.max(caughtUp < 0 ? Math.max(readyAt, from) : caughtUp, lastChange) - from) / 1e6);
    return new BenchReport.Rebalance(toCaughtUp, toEnd, moves, endedBy, placement(now, c.upIds()), notCaughtUp);
  }

  /** Waits (bounded) until every index has a primary among {@code ids}; returns index to node. */
  static Map<Integer, Integer> await(ScaleCluster c, Set<Integer> ids) throws IOException {
    long deadline = System.nanoTime() + PLACEMENT_DEADLINE.toNanos();
    while (true) {
      Map<Integer, Integer> p = c.primaries();
      if (p.size() == c.indexes() && ids.containsAll(p.values())) {
        return p;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IOException("waited " + PLACEMENT_DEADLINE.toSeconds() + " s in vain for every index of " + c.cluster()
            + " to have a primary among nodes " + ids + "; ZooKeeper names " + p);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
    }
  }

  /** Primaries per node among {@code ids} (every one listed), with max, min and whether they are within one. */
  static BenchReport.Placement placement(Map<Integer, Integer> primaries, Set<Integer> ids) {
    Map<Integer, Integer> perNode = ScaleCluster.perNode(primaries, ids);
    int max = perNode.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    int min = perNode.values().stream().mapToInt(Integer::intValue).min().orElse(0);
    return new BenchReport.Placement(perNode, max, min, max - min <= 1);
  }

  private static double round(double v) {
    return Math.round(v * 10) / 10.0;
  }
}

package io.nrtcluster.stress.bench;

import io.nrtcluster.common.NamedThreadFactory;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Samples this process's CPU time every 50 ms (keeping the last ten minutes), so the harness can ask
 * how much CPU it spent during a window another process measured, on the shared nanoTime clock.
 */
final class CpuSampler implements AutoCloseable {
  private static final int KEEP = 12_000;
  private final Deque<long[]> samples = new ArrayDeque<>();
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(new NamedThreadFactory("bench-cpu"));

  CpuSampler() {
    timer.scheduleAtFixedRate(this::sample, 0, 50, TimeUnit.MILLISECONDS);
  }

  private synchronized void sample() {
    samples.addLast(new long[] {System.nanoTime(), CpuClock.cpuNanos()});
    if (samples.size() > KEEP) {
      samples.removeFirst();
    }
  }

  /** CPU nanos spent between two nanoTime instants (linear between samples; the current value past the last). */
  synchronized long between(long from, long to) {
    sample();
    return at(to) - at(from);
  }

  private long at(long t) {
    long[] before = null;
    for (long[] s : samples) {
      if (s[0] >= t) {
        if (before == null) {
          return s[1];
        }
        double f = (double) (t - before[0]) / Math.max(1, s[0] - before[0]);
        return before[1] + (long) (f * (s[1] - before[1]));
      }
      before = s;
    }
    return before == null ? 0 : before[1];
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}

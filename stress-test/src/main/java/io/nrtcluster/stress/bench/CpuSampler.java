package io.nrtcluster.stress.bench;

import io.nrtcluster.common.NamedThreadFactory;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Samples this process's CPU time (and its user-mode part) every 50 ms, keeping the last ten minutes,
 * so the harness can ask how much CPU it spent during a window another process measured, on the
 * shared nanoTime clock.
 */
final class CpuSampler implements AutoCloseable {
  private static final int KEEP = 12_000;
  /** CPU spent in a window: all of it, and its user-mode part (-1 where the system does not say). */
  record Usage(long cpuNanos, long userNanos) {}

  private record Sample(long atNanos, long cpuNanos, long userNanos) {}

  private final Deque<Sample> samples = new ArrayDeque<>();
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(new NamedThreadFactory("bench-cpu"));

  CpuSampler() {
    timer.scheduleAtFixedRate(this::sample, 0, 50, TimeUnit.MILLISECONDS);
  }

  private synchronized void sample() {
    samples.addLast(new Sample(System.nanoTime(), CpuClock.cpuNanos(), CpuClock.userNanos()));
    if (samples.size() > KEEP) {
      samples.removeFirst();
    }
  }

  /** CPU spent between two nanoTime instants (linear between samples; the current value past the last). */
  synchronized Usage between(long from, long to) {
    sample();
    Sample a = at(from);
    Sample b = at(to);
    boolean user = a.userNanos() >= 0 && b.userNanos() >= 0;
    return new Usage(b.cpuNanos() - a.cpuNanos(), user ? b.userNanos() - a.userNanos() : -1);
  }

  private Sample at(long t) {
    Sample before = null;
    for (Sample s : samples) {
      if (s.atNanos() >= t) {
        if (before == null) {
          return s;
        }
        double f = (double) (t - before.atNanos()) / Math.max(1, s.atNanos() - before.atNanos());
        return new Sample(t, before.cpuNanos() + (long) (f * (s.cpuNanos() - before.cpuNanos())),
            before.userNanos() < 0 || s.userNanos() < 0 ? -1
                : before.userNanos() + (long) (f * (s.userNanos() - before.userNanos())));
      }
      before = s;
    }
    return before == null ? new Sample(t, 0, 0) : before;
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}

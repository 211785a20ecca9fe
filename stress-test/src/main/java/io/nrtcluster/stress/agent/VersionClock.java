package io.nrtcluster.stress.agent;

import io.nrtcluster.common.NamedThreadFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Notes the wall-clock time at which this node first searches each version (sampled every few
 * milliseconds), so the harness can compute replication lag against the primary's refresh times
 * on the same machine clock. Keeps what the harness has not collected yet, bounded.
 */
final class VersionClock implements AutoCloseable {
  private static final int MAX_PENDING = 10_000;
  private final LongSupplier version;
  private final ScheduledExecutorService sampler =
      Executors.newSingleThreadScheduledExecutor(new NamedThreadFactory("chaos-version-clock"));
  private final List<AgentApi.VersionSeen> pending = new ArrayList<>();
  private long last = Long.MIN_VALUE;

  VersionClock(LongSupplier version, long periodMillis) {
    this.version = version;
    sampler.scheduleAtFixedRate(this::sample, 0, periodMillis, TimeUnit.MILLISECONDS);
  }

  private void sample() {
    long v;
    try {
      v = version.getAsLong();
    } catch (RuntimeException e) {
      return;
    }
    long now = System.currentTimeMillis();
    synchronized (this) {
      if (v != last && v >= 0) {
        last = v;
        if (pending.size() < MAX_PENDING) {
          pending.add(new AgentApi.VersionSeen(v, now));
        }
      }
    }
  }

  /** The versions first seen since the last call, in the order seen. */
  synchronized List<AgentApi.VersionSeen> drain() {
    List<AgentApi.VersionSeen> out = new ArrayList<>(pending);
    pending.clear();
    return out;
  }

  @Override
  public void close() {
    sampler.shutdownNow();
  }
}

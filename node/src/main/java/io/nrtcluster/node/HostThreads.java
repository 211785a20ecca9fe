package io.nrtcluster.node;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.ExecutorSource;
import io.nrtcluster.common.Internal;
import io.nrtcluster.common.Stable;
import java.time.Duration;

/**
 * The sizes of a host's shared thread pools ({@link HostExecutors}), which every index of the host
 * runs its background work on, so that an index costs no thread of its own. Each pool starts a
 * thread only when every thread it has is busy, up to its maximum, and ends a thread idle for
 * {@link #idleTimeout}: an idle host keeps a few threads whatever its number of indexes, and a
 * maximum is reached only while that many tasks of its kind wait at once (a mass failover, a
 * primary that stopped answering). Built with {@link #builder()}, which validates every bound and
 * names the offending field; each maximum is 1 to {@value #MAX}.
 *
 * @param tick most threads for short periodic work that never waits (progress reports, failure
 *     detection, heartbeats, reconnects; {@link ExecutorSource.Pool#TICK}); default 2
 * @param election most election steps at once ({@link ExecutorSource.Pool#ELECTION}): a step waits
 *     for ZooKeeper and for the promotion or follow it decided, so this many indexes of the host can
 *     be promoted at once; default 32 (a third of 100 indexes in one failover)
 * @param events most role switches at once ({@link ExecutorSource.Pool#EVENTS}: opening and closing
 *     primaries and replicas); default 32
 * @param operator most operator requests carried out at once ({@link ExecutorSource.Pool#OPERATOR}:
 *     a hand-off waits for its target to catch up); default 4
 * @param work most catch-up steps, scrub steps and file checks at once ({@link
 *     ExecutorSource.Pool#WORK}: a catch-up step waits up to the request timeout for a primary's
 *     copy-state); default 32
 * @param copy most copy jobs copying at once ({@link ExecutorSource.Pool#COPY}; a job waits for
 *     file data from the network); default 32
 * @param idleTimeout how long a pool thread stays idle before it ends; 100 ms to 1 h, default 10 s
 */
@Stable
public record HostThreads(int tick, int election, int events, int operator, int work, int copy, Duration idleTimeout) {
  /** The largest accepted maximum of any pool. */
  public static final int MAX = 1024;

  /** Canonical constructor: validates; services build through {@link Builder}, which may gain fields. */
  @Internal
  public HostThreads {
    Checks.inRange("tick", tick, 1, MAX);
    Checks.inRange("election", election, 1, MAX);
    Checks.inRange("events", events, 1, MAX);
    Checks.inRange("operator", operator, 1, MAX);
    Checks.inRange("work", work, 1, MAX);
    Checks.inRange("copy", copy, 1, MAX);
    Checks.notNull("idleTimeout", idleTimeout);
    if (idleTimeout.compareTo(Duration.ofMillis(100)) < 0 || idleTimeout.compareTo(Duration.ofHours(1)) > 0) {
      throw new IllegalArgumentException("idleTimeout must be in [100 ms, 1 h], got " + idleTimeout);
    }
  }

  /** Every pool at its default bound. */
  public static HostThreads defaults() {
    return builder().build();
  }

  /** A builder with every default. */
  public static Builder builder() {
    return new Builder();
  }

  /** The maximum of {@code pool}. */
  public int max(ExecutorSource.Pool pool) {
    return switch (pool) {
      case TICK -> tick;
      case ELECTION -> election;
      case EVENTS -> events;
      case OPERATOR -> operator;
      case WORK -> work;
      case COPY -> copy;
    };
  }

  /** This, with the maximum of {@code pool} set to {@code threads} (validated). */
  public HostThreads with(ExecutorSource.Pool pool, int threads) {
    Builder b = builder().tick(tick).election(election).events(events).operator(operator).work(work).copy(copy)
        .idleTimeout(idleTimeout);
    Builder changed = switch (pool) {
      case TICK -> b.tick(threads);
      case ELECTION -> b.election(threads);
      case EVENTS -> b.events(threads);
      case OPERATOR -> b.operator(threads);
      case WORK -> b.work(threads);
      case COPY -> b.copy(threads);
    };
    return changed.build();
  }

  /** Builds a validated {@link HostThreads}. */
  public static final class Builder {
    private int tick = 2;
    private int election = 32;
    private int events = 32;
    private int operator = 4;
    private int work = 32;
    private int copy = 32;
    private Duration idleTimeout = Duration.ofSeconds(10);

    private Builder() {}

    /** Sets {@link HostThreads#tick()}; default {@code 2}. */
    public Builder tick(int v) {
      tick = v;
      return this;
    }

    /** Sets {@link HostThreads#election()}; default {@code 32}. */
    public Builder election(int v) {
      election = v;
      return this;
    }

    /** Sets {@link HostThreads#events()}; default {@code 32}. */
    public Builder events(int v) {
      events = v;
      return this;
    }

    /** Sets {@link HostThreads#operator()}; default {@code 4}. */
    public Builder operator(int v) {
      operator = v;
      return this;
    }

    /** Sets {@link HostThreads#work()}; default {@code 32}. */
    public Builder work(int v) {
      work = v;
      return this;
    }

    /** Sets {@link HostThreads#copy()}; default {@code 32}. */
    public Builder copy(int v) {
      copy = v;
      return this;
    }

    /** Sets {@link HostThreads#idleTimeout()}; default {@code Duration.ofSeconds(10)}. */
    public Builder idleTimeout(Duration v) {
      idleTimeout = v;
      return this;
    }

    /** The validated bounds; throws {@link IllegalArgumentException} naming the first bad field. */
    public HostThreads build() {
      return new HostThreads(tick, election, events, operator, work, copy, idleTimeout);
    }
  }
}

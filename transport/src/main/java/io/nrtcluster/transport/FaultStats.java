package io.nrtcluster.transport;

import io.netty.handler.traffic.ChannelTrafficShapingHandler;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runtime side of {@link FaultInjection}: the faults in force, the seeded random source and counters
 * of what was injected. Shared by all connections of one {@link Transport}.
 */
public final class FaultStats {
  private final SplittableRandom random;
  private final AtomicLong bitFlipsInjected = new AtomicLong();
  private final AtomicLong connectionsDropped = new AtomicLong();
  private final AtomicLong dropPointFileBytes = new AtomicLong();
  private final Set<ChannelTrafficShapingHandler> throttles = ConcurrentHashMap.newKeySet();
  private volatile FaultInjection config;

  FaultStats(FaultInjection config) {
    this.config = config;
    this.random = new SplittableRandom(config.seed());
  }

  /** The faults in force now. */
  public FaultInjection config() {
    return config;
  }

  /** Bits flipped in received file data so far. */
  public long bitFlipsInjected() {
    return bitFlipsInjected.get();
  }

  /** Connections the "dropAfterFileBytes" fault point closed so far. */
  public long connectionsDropped() {
    return connectionsDropped.get();
  }

  /**
   * File-data bytes that arrived at the "dropAfterFileBytes" fault point (the chunk a drop discards
   * included): what the peers sent this transport's connections, when that point is configured.
   */
  public long dropPointFileBytes() {
    return dropPointFileBytes.get();
  }

  void fileBytesArrived(int bytes) {
    dropPointFileBytes.addAndGet(bytes);
  }

  /**
   * Whether a connection that has received {@code fileBytes} bytes of file data is dropped now;
   * counts the drop (never more than {@code maxDrops} when that is set).
   */
  boolean dropNow(long fileBytes) {
    FaultInjection f = config;
    if (!f.dropsConnections() || fileBytes < f.dropAfterFileBytes()) {
      return false;
    }
    long n = connectionsDropped.incrementAndGet();
    if (f.maxDrops() > 0 && n > f.maxDrops()) {
      connectionsDropped.decrementAndGet();
      return false;
    }
    return true;
  }

  /** Returns the bit to flip in a frame of {@code bytes} bytes, or -1 to leave it alone. */
  synchronized long nextFlip(int bytes) {
    if (bytes == 0 || random.nextDouble() >= config.bitFlipProbability()) {
      return -1;
    }
    bitFlipsInjected.incrementAndGet();
    return random.nextLong((long) bytes * 8);
  }

  /** New rates for every connection, open or future. */
  void update(FaultInjection faults) {
    this.config = faults;
    long rate = faults.throttleBytesPerSecond();
    for (ChannelTrafficShapingHandler t : throttles) {
      t.configure(rate, rate);
    }
  }

  /** A throttle for a new connection, following later {@link #update}s until the connection closes. */
  ChannelTrafficShapingHandler newThrottle() {
    return new SwitchableThrottle(config.throttleBytesPerSecond(), throttles);
  }
}

package io.nrtcluster.transport;

import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runtime side of {@link FaultInjection}: the seeded random source and counters of what was
 * injected. Shared by all connections of one {@link Transport}.
 */
public final class FaultStats {
  private final FaultInjection config;
  private final SplittableRandom random;
  private final AtomicLong bitFlipsInjected = new AtomicLong();

  FaultStats(FaultInjection config) {
    this.config = config;
    this.random = new SplittableRandom(config.seed());
  }

  public FaultInjection config() {
    return config;
  }

  /** Bits flipped in received file data so far. */
  public long bitFlipsInjected() {
    return bitFlipsInjected.get();
  }

  /** Returns the bit to flip in a frame of {@code bytes} bytes, or -1 to leave it alone. */
  synchronized long nextFlip(int bytes) {
    if (bytes == 0 || random.nextDouble() >= config.bitFlipProbability()) {
      return -1;
    }
    bitFlipsInjected.incrementAndGet();
    return random.nextLong((long) bytes * 8);
  }
}

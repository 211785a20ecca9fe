package io.nrtcluster.transport;

import io.nrtcluster.common.Checks;

/**
 * Faults injected into the real pipeline of every connection this transport makes or accepts. Off by
 * default ({@link #NONE}); switched on by configuration only, never by code changes.
 *
 * <p>Bit flips hit the payload of received file-data frames (after framing, before the copy job
 * sees them), so they model a flaky link or bad RAM that TCP checksums missed: exactly what Lucene's
 * end-to-end checksums must catch. Throttling limits each connection's read and write rate.
 *
 * @param bitFlipProbability chance, per received file-data frame, that one random bit is flipped
 * @param throttleBytesPerSecond per-connection read and write limit; 0 means unlimited
 * @param seed seeds the fault schedule so a run can be reproduced
 * @param switchable installs the fault handlers on every connection even while they inject nothing,
 *     so that {@link Transport#updateFaults} can turn faults on and off while the node runs (what a
 *     chaos test does); off by default, which keeps fault-free pipelines free of them
 */
public record FaultInjection(double bitFlipProbability, long throttleBytesPerSecond, long seed, boolean switchable) {

  /** No faults. */
  public static final FaultInjection NONE = new FaultInjection(0.0, 0, 0, false);

  public FaultInjection {
    Checks.probability("faults.bitFlipProbability", bitFlipProbability);
    Checks.inRange("faults.throttleBytesPerSecond", throttleBytesPerSecond, 0, Long.MAX_VALUE);
  }

  public boolean flipsBits() {
    return bitFlipProbability > 0;
  }

  public boolean throttles() {
    return throttleBytesPerSecond > 0;
  }

  /** The same faults with new rates (seed and switchability kept). */
  public FaultInjection withRates(double bitFlipProbability, long throttleBytesPerSecond) {
    return new FaultInjection(bitFlipProbability, throttleBytesPerSecond, seed, switchable);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Builds a validated {@link FaultInjection}. */
  public static final class Builder {
    private double bitFlipProbability;
    private long throttleBytesPerSecond;
    private long seed = 42;
    private boolean switchable;

    public Builder bitFlipProbability(double p) {
      this.bitFlipProbability = p;
      return this;
    }

    public Builder throttleBytesPerSecond(long bytesPerSecond) {
      this.throttleBytesPerSecond = bytesPerSecond;
      return this;
    }

    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /** See {@link FaultInjection#switchable()}. */
    public Builder switchable(boolean switchable) {
      this.switchable = switchable;
      return this;
    }

    public FaultInjection build() {
      return new FaultInjection(bitFlipProbability, throttleBytesPerSecond, seed, switchable);
    }
  }
}

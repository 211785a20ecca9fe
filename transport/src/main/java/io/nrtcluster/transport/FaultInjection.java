package io.nrtcluster.transport;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.Experimental;

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
 * @param dropAfterFileBytes fault point "dropAfterFileBytes": a connection that has received this
 *     many bytes of file data is closed, as a link that drops mid-copy; 0 (the default) never drops
 * @param maxDrops how many connections the drop fault point closes in all (per transport); 0 means
 *     no limit, so that a copy that restarts its files can be shown never to finish
 * @param linkDelayMillis fault point "linkDelay": every frame this transport sends (file data and the
 *     TLS and handshake bytes included) leaves for the socket this many milliseconds after it was
 *     written, in the order written, as over a long link; set on both ends it is added each way (25
 *     on both: a 50 ms round trip). 0 (the default) adds nothing
 */
@Experimental
public record FaultInjection(double bitFlipProbability, long throttleBytesPerSecond, long seed, boolean switchable,
    long dropAfterFileBytes, int maxDrops, long linkDelayMillis) {

  /** No faults. */
  public static final FaultInjection NONE = new FaultInjection(0.0, 0, 0, false, 0, 0, 0);

  /** Longest one-way delay the "linkDelay" point accepts: a minute is already no link anyone runs. */
  public static final long MAX_LINK_DELAY_MILLIS = 60_000;

  public FaultInjection {
    Checks.probability("faults.bitFlipProbability", bitFlipProbability);
    Checks.inRange("faults.throttleBytesPerSecond", throttleBytesPerSecond, 0, Long.MAX_VALUE);
    Checks.inRange("faults.dropAfterFileBytes", dropAfterFileBytes, 0, Long.MAX_VALUE);
    Checks.inRange("faults.maxDrops", maxDrops, 0, Integer.MAX_VALUE);
    Checks.inRange("faults.linkDelayMillis", linkDelayMillis, 0, MAX_LINK_DELAY_MILLIS);
  }

  /** Bit flips, throttling and connection drops as given, no link delay. */
  public FaultInjection(double bitFlipProbability, long throttleBytesPerSecond, long seed, boolean switchable,
      long dropAfterFileBytes, int maxDrops) {
    this(bitFlipProbability, throttleBytesPerSecond, seed, switchable, dropAfterFileBytes, maxDrops, 0);
  }

  /** Bit flips and throttling as given, no connection drops. */
  public FaultInjection(double bitFlipProbability, long throttleBytesPerSecond, long seed, boolean switchable) {
    this(bitFlipProbability, throttleBytesPerSecond, seed, switchable, 0, 0, 0);
  }

  public boolean delaysLinks() {
    return linkDelayMillis > 0;
  }

  public boolean dropsConnections() {
    return dropAfterFileBytes > 0;
  }

  public boolean flipsBits() {
    return bitFlipProbability > 0;
  }

  public boolean throttles() {
    return throttleBytesPerSecond > 0;
  }

  /** The same faults with new rates (seed and switchability kept). */
  public FaultInjection withRates(double bitFlipProbability, long throttleBytesPerSecond) {
    return new FaultInjection(bitFlipProbability, throttleBytesPerSecond, seed, switchable, dropAfterFileBytes, maxDrops,
        linkDelayMillis);
  }

  /** These faults with the "linkDelay" point at {@code linkDelayMillis} (0: off). */
  public FaultInjection withLinkDelay(long linkDelayMillis) {
    return new FaultInjection(bitFlipProbability, throttleBytesPerSecond, seed, switchable, dropAfterFileBytes, maxDrops,
        linkDelayMillis);
  }

  /** These faults with the connection drop point at {@code dropAfterFileBytes} (0: off) and {@code maxDrops}. */
  public FaultInjection withDrops(long dropAfterFileBytes, int maxDrops) {
    return new FaultInjection(bitFlipProbability, throttleBytesPerSecond, seed, switchable, dropAfterFileBytes, maxDrops,
        linkDelayMillis);
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
    private long dropAfterFileBytes;
    private int maxDrops;
    private long linkDelayMillis;

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

    /** See {@link FaultInjection#dropAfterFileBytes()}. */
    public Builder dropAfterFileBytes(long bytes) {
      this.dropAfterFileBytes = bytes;
      return this;
    }

    /** See {@link FaultInjection#maxDrops()}. */
    public Builder maxDrops(int drops) {
      this.maxDrops = drops;
      return this;
    }

    /** See {@link FaultInjection#linkDelayMillis()}. */
    public Builder linkDelayMillis(long millis) {
      this.linkDelayMillis = millis;
      return this;
    }

    public FaultInjection build() {
      return new FaultInjection(bitFlipProbability, throttleBytesPerSecond, seed, switchable, dropAfterFileBytes, maxDrops,
          linkDelayMillis);
    }
  }
}

package io.nrtcluster.transport;

import io.netty.handler.traffic.ChannelTrafficShapingHandler;
import io.nrtcluster.common.Experimental;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runtime side of {@link FaultInjection}: the faults in force, the seeded random source and counters
 * of what was injected. Shared by all connections of one {@link Transport}.
 *
 * <p>Every injected bit flip is accounted for: it is pending while its chunk waits in the transport
 * and while the file its byte was read into is being copied, until it is released unread
 * (discarded), or the reader reports the file's fate ({@link #flipsResolved}): detected by the
 * file's checksum, discarded with the file, or undetected (a corrupt file accepted). The counters
 * change under one lock and {@link #flipCounts()} reads them under it, so a snapshot always adds up:
 * {@code injected == detected + discarded + undetected + pending}. Pending flips that stay pending
 * once nothing is copied any more are flips some path lost track of.
 */
@Experimental
public final class FaultStats {
  /** What became of flipped bytes a file-stream reader took. */
  public enum FlipOutcome {
    /** The file they were read into failed its checksum and was thrown away. */
    DETECTED,
    /** The file they were read into was thrown away (its copy cancelled or abandoned) before it was complete. */
    DISCARDED,
    /** The file they were read into passed its checksum: corrupt bytes were accepted. */
    UNDETECTED
  }

  /**
   * A consistent snapshot of the bit-flip accounting.
   *
   * @param injected bits flipped in received file data
   * @param detected flips in files that failed their checksum
   * @param discarded flips released unread, or in files thrown away before they were complete
   * @param undetected flips in files that passed their checksum (must stay 0)
   * @param pending flips in chunks not yet read plus flips in files still being copied
   */
  public record FlipCounts(long injected, long detected, long discarded, long undetected, long pending) {
    /** Flips a snapshot fails to place: 0 whenever the accounting is right. */
    public long unaccounted() {
      return injected - detected - discarded - undetected - pending;
    }
  }


  private final SplittableRandom random;
  private final AtomicLong bitFlipsInjected = new AtomicLong();
  private final AtomicLong connectionsDropped = new AtomicLong();
  /** Drops counted before the last {@link #updateDrops}: {@code maxDrops} bounds the drops since. */
  private volatile long dropsBefore;
  private final AtomicLong dropPointFileBytes = new AtomicLong();
  private final Set<ChannelTrafficShapingHandler> throttles = ConcurrentHashMap.newKeySet();
  private volatile FaultInjection config;
  // Bit-flip accounting, guarded by this.
  private long flipsInTransport;
  private long flipsInFiles;
  private long flipsDetected;
  private long flipsDiscarded;
  private long flipsUndetected;

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

  /** The bit-flip accounting as of one instant. */
  public synchronized FlipCounts flipCounts() {
    return new FlipCounts(bitFlipsInjected.get(), flipsDetected, flipsDiscarded, flipsUndetected,
        flipsInTransport + flipsInFiles);
  }

  /**
   * A file-stream reader reports the fate of {@code n} flipped bytes it read ({@link
   * InboundFileStream#flipsRead()}) into one file: called once per file and outcome, by whoever
   * decides to keep or throw away the file.
   */
  public synchronized void flipsResolved(FlipOutcome outcome, long n) {
    if (n <= 0) {
      return;
    }
    flipsInFiles -= n;
    switch (outcome) {
      case DETECTED -> flipsDetected += n;
      case DISCARDED -> flipsDiscarded += n;
      case UNDETECTED -> flipsUndetected += n;
    }
  }

  /** A flipped byte was handed to a file-stream reader. */
  synchronized void flipDelivered() {
    flipsInTransport--;
    flipsInFiles++;
  }

  /** A flipped chunk was released before its flipped byte was read. */
  synchronized void flipDropped() {
    flipsInTransport--;
    flipsDiscarded++;
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
    if (f.maxDrops() > 0 && n - dropsBefore > f.maxDrops()) {
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
    flipsInTransport++;
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

  /** New connection-drop settings for every connection, open or future; {@code maxDrops} counts from now. */
  void updateDrops(FaultInjection faults) {
    dropsBefore = connectionsDropped.get();
    this.config = faults;
  }

  /** A new link delay for every connection, open or future (the other faults as they are). */
  void updateLinkDelay(FaultInjection faults) {
    this.config = faults;
  }

  /** A throttle for a new connection, following later {@link #update}s until the connection closes. */
  ChannelTrafficShapingHandler newThrottle() {
    return new SwitchableThrottle(config.throttleBytesPerSecond(), throttles);
  }
}

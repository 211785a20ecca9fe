package io.nrtcluster.replica;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.Internal;
import io.nrtcluster.common.Stable;
import java.time.Duration;

/**
 * Pace of a replica's background scrub, which rereads every file of the point-in-time it searches
 * and recomputes its whole checksum, to find bit rot that the check at start cannot see (a file
 * verified once is not read again at start while its length, checksum and modification time are
 * unchanged). Built with {@link #builder()}, which validates every bound and names the bad field.
 *
 * @param bytesPerSecond read pace; 0 turns the scrub off. Default 4 MiB/s: a 10 GiB index is
 *     reread in about 43 minutes, a small share of a disk's bandwidth
 * @param interval time from the start of one pass to the start of the next (a pass that takes longer
 *     is followed by the next one at once). Default 1 hour
 */
@Stable
public record ScrubConfig(long bytesPerSecond, Duration interval) {
  /** Largest accepted pace (1 TiB/s), far above any disk: effectively unlimited. */
  public static final long MAX_BYTES_PER_SECOND = 1L << 40;

  /** Canonical constructor: validates; services build through {@link Builder}, which may gain fields. */
  @Internal
  public ScrubConfig {
    Checks.inRange("bytesPerSecond", bytesPerSecond, 0, MAX_BYTES_PER_SECOND);
    Checks.positive("interval", interval);
  }

  /** The default: 4 MiB/s, a pass at most every hour. */
  public static ScrubConfig defaults() {
    return builder().build();
  }

  /** No scrub. */
  public static ScrubConfig off() {
    return builder().bytesPerSecond(0).build();
  }

  /** Whether the scrub runs at all ({@link #bytesPerSecond()} above zero). */
  public boolean enabled() {
    return bytesPerSecond > 0;
  }

  /** A builder with every default. */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a validated {@link ScrubConfig}. */
  public static final class Builder {
    private long bytesPerSecond = 4L << 20;
    private Duration interval = Duration.ofHours(1);

    /** Sets {@link ScrubConfig#bytesPerSecond()}; default {@code 4L << 20}. */
    public Builder bytesPerSecond(long v) {
      bytesPerSecond = v;
      return this;
    }

    /** Sets {@link ScrubConfig#interval()}; default {@code Duration.ofHours(1)}. */
    public Builder interval(Duration v) {
      interval = v;
      return this;
    }

    /** The validated configuration; throws {@link IllegalArgumentException} naming the first bad field. */
    public ScrubConfig build() {
      return new ScrubConfig(bytesPerSecond, interval);
    }
  }
}

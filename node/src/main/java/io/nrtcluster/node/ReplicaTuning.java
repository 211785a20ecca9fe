package io.nrtcluster.node;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.Internal;
import io.nrtcluster.common.Stable;
import io.nrtcluster.replica.ReplicaConfig;
import io.nrtcluster.replica.ScrubConfig;
import java.time.Duration;

/**
 * How every replica of a host checks its files and copes with bad ones and dropped copies. Built
 * with {@link #builder()}, which validates every bound and names the offending field; the defaults
 * are {@link ReplicaConfig}'s.
 *
 * @param scrub pace of the background scrub that rereads every searched file ({@link ScrubConfig#off()}:
 *     none); a node's primary scrubs its files at the same pace
 * @param corruptFileReportAfter checksum failures of one file from one primary before the replica
 *     asks that primary to verify it
 * @param badFileBackoffMin first wait before fetching a reported file again (doubling up to the max)
 * @param badFileBackoffMax longest such wait
 * @param copyResumeWindow how long a copy whose connection dropped waits to resume where it stopped
 *     (zero: it always starts over)
 * @param preCopyBytesPerSecond pace of each replica's merge pre-copies, so searches keep the CPU and
 *     disk while a large merged segment arrives; NRT point copies are never paced (0, the default:
 *     unpaced; see {@link ReplicaConfig#preCopyBytesPerSecond()} for what a pace costs)
 */
@Stable
public record ReplicaTuning(ScrubConfig scrub, int corruptFileReportAfter, Duration badFileBackoffMin,
    Duration badFileBackoffMax, Duration copyResumeWindow, long preCopyBytesPerSecond) {

  /** Canonical constructor: validates; services build through {@link Builder}, which may gain fields. */
  @Internal
  public ReplicaTuning {
    Checks.notNull("scrub", scrub);
    Checks.inRange("corruptFileReportAfter", corruptFileReportAfter, 1, 1000);
    Checks.positive("badFileBackoffMin", badFileBackoffMin);
    Checks.positive("badFileBackoffMax", badFileBackoffMax);
    if (badFileBackoffMax.compareTo(badFileBackoffMin) < 0) {
      throw new IllegalArgumentException("badFileBackoffMax must be >= badFileBackoffMin");
    }
    Checks.notNull("copyResumeWindow", copyResumeWindow);
    if (copyResumeWindow.isNegative() || copyResumeWindow.compareTo(Duration.ofMinutes(10)) > 0) {
      throw new IllegalArgumentException("copyResumeWindow must be in [0, PT10M], got " + copyResumeWindow);
    }
    Checks.inRange("preCopyBytesPerSecond", preCopyBytesPerSecond, 0, ReplicaConfig.MAX_PRE_COPY_BYTES_PER_SECOND);
  }

  /** {@link ReplicaConfig}'s defaults. */
  public static ReplicaTuning defaults() {
    return builder().build();
  }

  /** A builder with every default. */
  public static Builder builder() {
    return new Builder();
  }

  /** Applies these settings to a replica's configuration. */
  ReplicaConfig.Builder applyTo(ReplicaConfig.Builder b) {
    return b.scrub(scrub).corruptFileReportAfter(corruptFileReportAfter).badFileBackoffMin(badFileBackoffMin)
        .badFileBackoffMax(badFileBackoffMax).copyResumeWindow(copyResumeWindow)
        .preCopyBytesPerSecond(preCopyBytesPerSecond);
  }

  /** Builds a validated {@link ReplicaTuning}. */
  public static final class Builder {
    private ScrubConfig scrub = ScrubConfig.defaults();
    private int corruptFileReportAfter = ReplicaConfig.DEFAULT_CORRUPT_FILE_REPORT_AFTER;
    private Duration badFileBackoffMin = ReplicaConfig.DEFAULT_BAD_FILE_BACKOFF_MIN;
    private Duration badFileBackoffMax = ReplicaConfig.DEFAULT_BAD_FILE_BACKOFF_MAX;
    private Duration copyResumeWindow = ReplicaConfig.DEFAULT_COPY_RESUME_WINDOW;
    private long preCopyBytesPerSecond;

    private Builder() {}

    /** Sets {@link ReplicaTuning#scrub()}; default {@code ScrubConfig.defaults()}. */
    public Builder scrub(ScrubConfig v) {
      scrub = v;
      return this;
    }

    /**
     * Sets {@link ReplicaTuning#corruptFileReportAfter()}; default {@code ReplicaConfig.DEFAULT_CORRUPT_FILE_REPORT_AFTER}.
     */
    public Builder corruptFileReportAfter(int v) {
      corruptFileReportAfter = v;
      return this;
    }

    /**
     * Sets {@link ReplicaTuning#badFileBackoffMin()} and {@link ReplicaTuning#badFileBackoffMax()}
     * together (the max at least the min).
     */
    public Builder badFileBackoff(Duration min, Duration max) {
      badFileBackoffMin = min;
      badFileBackoffMax = max;
      return this;
    }

    /** Sets {@link ReplicaTuning#copyResumeWindow()}; default {@code ReplicaConfig.DEFAULT_COPY_RESUME_WINDOW}. */
    public Builder copyResumeWindow(Duration v) {
      copyResumeWindow = v;
      return this;
    }

    /** See {@link ReplicaTuning#preCopyBytesPerSecond()}; 0: unpaced. */
    public Builder preCopyBytesPerSecond(long v) {
      preCopyBytesPerSecond = v;
      return this;
    }

    /** The validated tuning; throws {@link IllegalArgumentException} naming the first bad field. */
    public ReplicaTuning build() {
      return new ReplicaTuning(scrub, corruptFileReportAfter, badFileBackoffMin, badFileBackoffMax, copyResumeWindow,
          preCopyBytesPerSecond);
    }
  }
}

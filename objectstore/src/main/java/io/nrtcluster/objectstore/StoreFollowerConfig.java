package io.nrtcluster.objectstore;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.Experimental;
import io.nrtcluster.common.Internal;
import java.time.Duration;

/**
 * How a {@link StoreFollower} follows an index through the store. Immutable; built by {@link
 * #builder()}, whose {@code build()} names the bad field.
 *
 * @param pollInterval how long after one look at the store's manifests the next is taken (10 ms to 1
 *     hour, 500 ms by default): with the download, the bound of how far behind the newest backup a
 *     follower falls; each look is one LIST request, so a short interval costs requests, not bytes
 * @param maxParallelDownloads how many files (or parts of a large file) are downloaded at once (1 to
 *     64, 4 by default)
 */
@Experimental
public record StoreFollowerConfig(Duration pollInterval, int maxParallelDownloads) {
  public static final Duration MIN_POLL_INTERVAL = Duration.ofMillis(10);
  public static final Duration MAX_POLL_INTERVAL = Duration.ofHours(1);

  /** Canonical constructor: validates; build through {@link Builder}, which may gain fields. */
  @Internal
  public StoreFollowerConfig {
    Checks.notNull("pollInterval", pollInterval);
    Checks.atMost("pollInterval", pollInterval, MAX_POLL_INTERVAL);
    if (pollInterval.compareTo(MIN_POLL_INTERVAL) < 0) {
      throw new IllegalArgumentException("pollInterval must be at least " + MIN_POLL_INTERVAL + ", got " + pollInterval);
    }
    Checks.inRange("maxParallelDownloads", maxParallelDownloads, 1, 64);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Defaults: a look every 500 ms, 4 downloads at once. */
  public static final class Builder {
    private Duration pollInterval = Duration.ofMillis(500);
    private int maxParallelDownloads = 4;

    public Builder pollInterval(Duration v) {
      pollInterval = v;
      return this;
    }

    public Builder maxParallelDownloads(int v) {
      maxParallelDownloads = v;
      return this;
    }

    public StoreFollowerConfig build() {
      return new StoreFollowerConfig(pollInterval, maxParallelDownloads);
    }
  }
}

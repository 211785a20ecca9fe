package io.nrtcluster.objectstore;

import io.nrtcluster.common.Experimental;
import java.time.Duration;

/**
 * What a {@link StoreFollower} serves and how far behind the store it is, at one moment. Immutable.
 *
 * @param version the version its searcher serves, -1 before its first point
 * @param primaryGen the primary generation that backed that point up, -1 before its first point or
 *     while it serves a point an earlier run installed (not recorded on disk)
 * @param newestVersion the highest version among the manifests of its last successful look at the
 *     store, -1 before any (or when the store held none)
 * @param lagVersions {@code newestVersion - version} when the newest point is ahead of the one served
 *     (all of it before the first point), else 0
 * @param lag how long ago the store wrote the newest manifest seen, when that point is not served yet;
 *     {@link Duration#ZERO} when caught up (the store's clock against this host's: skew shows here)
 * @param pointsInstalled points installed and opened since the follower started
 * @param filesDownloaded files downloaded and verified for those points
 * @param bytesDownloaded their bytes
 * @param filesReused files a point needed that were already here with the same name, length and checksum
 * @param failures looks at the store or installs that failed (store unreachable, an object damaged or gone)
 * @param lastError what the last failure was, null before any; it stays after later successes
 */
@Experimental
public record FollowerStatus(
    long version,
    long primaryGen,
    long newestVersion,
    long lagVersions,
    Duration lag,
    long pointsInstalled,
    long filesDownloaded,
    long bytesDownloaded,
    long filesReused,
    long failures,
    String lastError) {

  /** Whether it serves the newest point it saw in the store (and has served one at all). */
  public boolean caughtUp() {
    return version >= 0 && lagVersions == 0;
  }
}

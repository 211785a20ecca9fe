package io.nrtcluster.common;

/**
 * The application's replay position travels with each NRT point and commit inside Lucene's segment
 * user data under {@link #KEY}. nrtcluster keeps no transaction log: after a failover the new
 * primary reports the position of the last point-in-time it holds, and the application replays its
 * own source from there.
 */
@Internal
public final class ReplayPositions {
  /** User-data key of the replay position in a point-in-time's {@code SegmentInfos}. */
  public static final String KEY = "nrtcluster.replayPosition";

  private ReplayPositions() {}
}

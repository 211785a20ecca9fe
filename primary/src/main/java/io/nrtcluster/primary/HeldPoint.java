package io.nrtcluster.primary;

import io.nrtcluster.common.Experimental;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.lucene.replicator.nrt.CopyState;
import org.apache.lucene.store.Directory;

/**
 * A point-in-time of a primary whose files are held on disk until {@link #close()} (the primary's
 * {@code CopyState}, incRef'd in its writer's deleter). Closing is idempotent and safe after the
 * primary closed (its files are then no longer held: a reader of them must expect them gone).
 */
@Experimental
public final class HeldPoint implements AutoCloseable {
  private final CopyState state;
  private final Directory directory;
  private final boolean commit;
  private final Map<String, String> userData;
  private final Runnable release;
  private final AtomicBoolean closed = new AtomicBoolean();

  HeldPoint(CopyState state, Directory directory, boolean commit, Map<String, String> userData, Runnable release) {
    this.state = state;
    this.directory = directory;
    this.commit = commit;
    this.userData = Map.copyOf(userData);
    this.release = release;
  }

  /** The point: version, primary generation, serialized {@code SegmentInfos}, files with lengths and checksums. */
  public CopyState state() {
    return state;
  }

  /** The directory the point's files are in. */
  public Directory directory() {
    return directory;
  }

  /** True when a commit made this point durable; false for an NRT point a refresh published. */
  public boolean commit() {
    return commit;
  }

  /** The node's facts about the point, for example its replay position ({@code ReplayPositions.KEY}). */
  public Map<String, String> userData() {
    return userData;
  }

  /** Lets the point's files go; later calls do nothing. */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      release.run();
    }
  }

  @Override
  public String toString() {
    return "HeldPoint[version=" + state.version() + ", primaryGen=" + state.primaryGen() + ", files="
        + state.files().size() + (commit ? ", commit" : "") + "]";
  }
}

package io.nrtcluster.replica;

import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.IndexSearcher;

/**
 * The last searcher a replica serves while it reopens its index (a resync), holding one reference
 * to it until the reopened index serves or the replica closes.
 *
 * <p>Guarantees: the held reference is released exactly once, however many paths give it up at the
 * same moment (the catch-up's reopen, the scrub's repair and close can race): taking it is one
 * atomic swap, so only the path that took it releases it. Holding another searcher releases the one
 * held before, so a second resync does not leak the first one's reference.
 *
 * <p>It serves until a point copied from a primary is installed, not merely until the reopen: a
 * reopen that found an emptied directory (Lucene drops the starting commit before it syncs) or an
 * older local commit must not answer searches with that.
 */
final class FallbackSearcher {
  private final Consumer<IndexSearcher> release;
  private final Runnable afterTake;
  private final AtomicReference<IndexSearcher> held = new AtomicReference<>();

  /** @param release gives up one reference to a searcher (the replica's own {@code releaseSearcher}) */
  FallbackSearcher(Consumer<IndexSearcher> release) {
    this(release, () -> {});
  }

  /**
   * @param afterTake named injection point: runs after {@link #release()} took the searcher it
   *     releases, before it releases it (a test pauses racing releases there)
   */
  FallbackSearcher(Consumer<IndexSearcher> release, Runnable afterTake) {
    this.release = release;
    this.afterTake = afterTake;
  }

  /** Holds {@code s}, whose reference the caller acquired for this holder (null: holds nothing). */
  void hold(IndexSearcher s) {
    IndexSearcher before = held.getAndSet(s);
    if (before != null) {
      release.accept(before);
    }
  }

  /** A new reference to the held searcher for a search (released by the caller), or null. */
  IndexSearcher acquire() {
    IndexSearcher f = held.get();
    // tryIncRef: a release may have taken and closed it since the read.
    return f != null && f.getIndexReader().tryIncRef() ? f : null;
  }

  /** True while a searcher is held. */
  boolean isHeld() {
    return held.get() != null;
  }

  /** The version of the held point-in-time, or -1 when none is held. */
  long version() {
    IndexSearcher f = held.get();
    return f != null && f.getIndexReader() instanceof DirectoryReader d ? d.getVersion() : -1;
  }

  /** Releases the held searcher, if any, and holds nothing from then on. */
  void release() {
    IndexSearcher f = held.getAndSet(null);
    afterTake.run();
    if (f != null) {
      release.accept(f);
    }
  }
}

package io.nrtcluster.replica;

import java.util.function.Consumer;
import org.apache.lucene.search.IndexSearcher;

/**
 * The last searcher a replica serves while it reopens its index (a resync), holding one reference
 * to it until the reopened index serves or the replica closes.
 */
final class FallbackSearcher {
  private final Consumer<IndexSearcher> release;
  private final Runnable afterTake;
  private volatile IndexSearcher held;

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
    held = s;
  }

  /** A new reference to the held searcher for a search (released by the caller), or null. */
  IndexSearcher acquire() {
    IndexSearcher f = held;
    return f != null && f.getIndexReader().tryIncRef() ? f : null;
  }

  /** Releases the held searcher, if any, and holds nothing from then on. */
  void release() {
    IndexSearcher f = held;
    afterTake.run();
    held = null;
    if (f != null) {
      release.accept(f);
    }
  }
}

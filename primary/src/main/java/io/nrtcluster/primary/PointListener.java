package io.nrtcluster.primary;

import io.nrtcluster.common.Experimental;

/**
 * Hears each point-in-time a primary made durable (every commit) and, when it asks to, each NRT
 * point it published, with the point's files held for it: for example to copy them elsewhere (the
 * {@code objectstore} module's backups), without this module knowing where.
 *
 * <p>Guarantees: only a point whose version passed the publish gate is handed over (so no later
 * primary reuses its version number with other contents); points arrive in version order, each at
 * most once per commit or publication. {@link #pointReady} runs on the refreshing or committing thread
 * while it holds the primary's publication order: it must return at once (hand the point to a thread
 * of its own), must not throw, and must {@link HeldPoint#close() close} the point exactly once, when
 * done with its files; until then they stay on disk (merges and commits go on around them).
 */
@Experimental
public interface PointListener {
  /** True to hear every published NRT point as well; false (the default) for commits only. */
  default boolean everyRefresh() {
    return false;
  }

  /** A point is ready; its files stay until {@code point} is closed. */
  void pointReady(HeldPoint point);
}

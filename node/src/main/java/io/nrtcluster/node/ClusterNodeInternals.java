package io.nrtcluster.node;

import io.nrtcluster.common.Internal;
import io.nrtcluster.primary.Primary;

/**
 * What {@link ClusterNode} keeps out of its public API, for nrtcluster's own modules (the object
 * store's backups), its benchmarks and tests. Not for applications: the {@link Primary} handed out
 * here writes, refreshes and commits without the checks {@link ClusterNode} makes on the same
 * operations (admission only while leading the current epoch, the free-space floor, a lost writer),
 * so a write through it may be acknowledged by a node that is no longer the primary.
 */
@Internal
public final class ClusterNodeInternals {
  private ClusterNodeInternals() {}

  /** The primary of {@code node} while it is one, else null; unchecked (see the class). */
  public static Primary primaryOf(ClusterNode node) {
    return node.primary();
  }
}

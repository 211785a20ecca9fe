package io.nrtcluster.node;

import io.nrtcluster.common.NodeClosedException;
import io.nrtcluster.primary.Primary;
import io.nrtcluster.replica.Replica;
import java.io.IOException;
import java.util.function.Supplier;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.search.IndexSearcher;

/**
 * The application's writes, refreshes, commits and searches, run against whichever role {@link
 * RoleSwitch} has open.
 *
 * <p>Guarantees: each operation runs under the read side of the switch lock, so it never sees a
 * half-switched node and a hand-off (which takes the write side to stop writes) knows every
 * acknowledged write is in its final version; writes, refreshes and a primary's commits fail with
 * {@link io.nrtcluster.common.NotPrimaryException} unless this node is a writable primary; with no
 * open role an operation fails with {@link NodeClosedException}.
 */
final class RoleOperations {
  private final RoleSwitch roles;
  private final int nodeId;
  private final String index;
  private final Supplier<IndexMetrics> metrics;

  /** @param metrics the node's metrics; a supplier because they are registered after this is built */
  RoleOperations(RoleSwitch roles, int nodeId, String index, Supplier<IndexMetrics> metrics) {
    this.roles = roles;
    this.nodeId = nodeId;
    this.index = index;
    this.metrics = metrics;
  }

  /** One change through the primary's writer. */
  @FunctionalInterface
  interface WriteOp {
    void apply(IndexWriter writer) throws IOException;
  }

  /** Runs a write on the primary ({@code what} names it in the refusal). */
  void write(String what, WriteOp op) throws IOException {
    roles.readLock().lock();
    try {
      op.apply(roles.requirePrimary(what).writer());
    } finally {
      roles.readLock().unlock();
    }
  }

  /** Refreshes the primary, recording {@code sourcePosition} when not null; returns the new version. */
  long refresh(String sourcePosition) throws IOException {
    roles.readLock().lock();
    try {
      Primary p = roles.requirePrimary("refresh");
      long started = System.nanoTime();
      long version = sourcePosition == null ? p.refresh() : p.refresh(sourcePosition);
      metrics.get().refreshed(System.nanoTime() - started);
      return version;
    } finally {
      roles.readLock().unlock();
    }
  }

  /** Commits the open role: a primary only while writable, a replica always. */
  void commit() throws IOException {
    roles.readLock().lock();
    try {
      Primary p = roles.primary();
      if (p != null) {
        roles.requirePrimary("commit");
        p.commit();
      } else {
        Replica r = roles.replica();
        if (r == null) {
          throw new NodeClosedException("node " + nodeId + " has no open index " + index);
        }
        r.commit();
      }
    } finally {
      roles.readLock().unlock();
    }
  }

  /** A searcher of the open role's current version. */
  IndexSearcher acquireSearcher() throws IOException {
    roles.readLock().lock();
    try {
      roles.ensureOpen();
      Primary p = roles.primary();
      if (p != null) {
        return p.acquireSearcher();
      }
      Replica r = roles.replica();
      if (r == null) {
        throw new NodeClosedException("node " + nodeId + " has no open index " + index);
      }
      return r.acquireSearcher();
    } finally {
      roles.readLock().unlock();
    }
  }
}

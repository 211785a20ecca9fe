package io.nrtcluster.node;

import io.nrtcluster.common.IndexUnavailableException;
import io.nrtcluster.common.InsufficientStorageException;
import io.nrtcluster.common.NodeClosedException;
import io.nrtcluster.common.NotPrimaryException;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.WriterLostException;
import io.nrtcluster.primary.Primary;
import io.nrtcluster.replica.Replica;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.AlreadyClosedException;

/**
 * The application's writes, refreshes, commits and searches, run against the role the index's
 * {@link IndexStateMachine} has open.
 *
 * <p>Guarantees: a write is admitted only in {@link IndexState#LEADING}, checked under the read side
 * of the admission lock that a transition out of that state takes exclusively, so a hand-off knows
 * every acknowledged write is in its final version; refreshes and a primary's commits are admitted
 * only while leading too, but hold no lock (a refresh waits for ZooKeeper); everything else fails at
 * once with {@link NotPrimaryException} naming the primary when known. Searches and replica commits
 * read a snapshot; during a role switch they wait for it (at most {@code switchWait}), on a closed
 * index they fail with {@link NodeClosedException}. A write is refused with {@link
 * InsufficientStorageException} while the data directory is below its free-space floor ({@link
 * DiskFloor}; refreshes and commits go on). When the writer is lost (Lucene's tragic event), the
 * failed operation and every write until this node follows a new primary fail with {@link
 * WriterLostException} naming the cause ({@link LostWriterWatch}), not with a retry-me refusal.
 */
final class RoleOperations {
  private final RoleSwitch roles;
  private final int nodeId;
  private final String index;
  private final Supplier<IndexMetrics> metrics;
  private final long switchWaitMillis;
  private final LostWriterWatch lostWriter;
  private final DiskFloor floor;
  private final InSyncSet inSync;

  /**
   * @param metrics the node's metrics; a supplier because they are registered after this is built
   * @param switchWaitMillis how long a search or commit waits for a role switch to finish
   */
  RoleOperations(RoleSwitch roles, int nodeId, String index, Supplier<IndexMetrics> metrics, long switchWaitMillis,
      LostWriterWatch lostWriter, DiskFloor floor, InSyncSet inSync) {
    this.inSync = inSync;
    this.lostWriter = lostWriter;
    this.floor = floor;
    this.roles = roles;
    this.nodeId = nodeId;
    this.index = index;
    this.metrics = metrics;
    this.switchWaitMillis = switchWaitMillis;
  }

  /** One change through the primary's writer. */
  @FunctionalInterface
  interface WriteOp {
    void apply(IndexWriter writer) throws IOException;
  }

  /** Runs a write on the primary ({@code what} names it in the refusal). */
  void write(String what, WriteOp op) throws IOException {
    IndexStateMachine machine = roles.machine();
    machine.admission().lock();
    try {
      IndexSnapshot s = machine.snapshot();
      if (!s.state().admitsWrites()) {
        throw notPrimary(what, s);
      }
      try {
        floor.checkWrite(what, nodeId, index);
      } catch (InsufficientStorageException e) {
        metrics.get().writeRefusedForSpace();
        throw e;
      }
      Primary p = s.primary();
      Throwable tragic = p.writer().getTragicException();
      if (tragic != null) {
        // A writer lost a moment ago may still take documents it will never flush: refuse first.
        throw lostOr(p, what, new IOException("the index writer is lost", tragic));
      }
      try {
        op.apply(p.writer());
      } catch (IOException | RuntimeException e) {
        throw lostOr(p, what, e);
      }
    } finally {
      machine.admission().unlock();
    }
  }

  /**
   * Refreshes the primary, recording {@code sourcePosition} when not null; returns what was
   * acknowledged: with {@link Durability#REPLICATED} only once the in-sync replicas installed the new
   * version ({@link InSyncSet#await}).
   */
  Acknowledgement refresh(String sourcePosition, Durability durability) throws IOException {
    IndexSnapshot s = roles.snapshot();
    if (!s.state().admitsWrites()) {
      throw notPrimary("refresh", s);
    }
    Primary p = s.primary();
    long started = System.nanoTime();
    long version;
    try {
      version = sourcePosition == null ? p.refresh() : p.refresh(sourcePosition);
      metrics.get().refreshed(System.nanoTime() - started);
    } catch (NodeClosedException | AlreadyClosedException e) {
      throw switchedAway("refresh", p, lostOrSame(p, "refresh", e));
    } catch (IOException | RuntimeException e) {
      throw lostOr(p, "refresh", e);
    }
    inSync.published(p, version);
    if (durability == Durability.LOCAL) {
      return new Acknowledgement(version, Durability.LOCAL, inSync.holding(p, version));
    }
    inSync.lead(p, roles.election(), p.primaryGen());
    try {
      return new Acknowledgement(version, Durability.REPLICATED, inSync.await(p, version, switchWaitMillis));
    } catch (NotPrimaryException e) {
      throw switchedAway("refresh", p, e);
    }
  }

  /** Commits the open role: a primary only while leading, a replica always. */
  void commit() throws IOException {
    IndexSnapshot s = settled();
    if (s.primary() != null) {
      if (!s.state().admitsWrites()) {
        throw notPrimary("commit", s);
      }
      try {
        s.primary().commit();
      } catch (NodeClosedException | AlreadyClosedException e) {
        throw switchedAway("commit", s.primary(), lostOrSame(s.primary(), "commit", e));
      } catch (IOException | RuntimeException e) {
        throw lostOr(s.primary(), "commit", e);
      }
      return;
    }
    Replica r = s.replica();
    if (r == null) {
      throw closed(s);
    }
    r.commit();
  }

  /** A searcher of the open role's current version. */
  IndexSearcher acquireSearcher() throws IOException {
    IndexSearcher bridged = bridge(roles.snapshot());
    if (bridged != null) {
      return bridged;
    }
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(switchWaitMillis);
    while (true) {
      IndexSnapshot s = settled();
      // A step-down may have begun after the first look: the settled replica then serves its
      // reopened commit, older (or holding unpublished writes), so the bridge still comes first.
      bridged = bridge(s);
      if (bridged != null) {
        return bridged;
      }
      try {
        if (s.primary() != null) {
          return s.primary().acquireSearcher();
        }
        if (s.replica() != null) {
          return s.replica().acquireSearcher();
        }
        throw closed(s);
      } catch (NodeClosedException | AlreadyClosedException e) {
        // The role closed under us: a switch; look again at the next snapshot.
        if (roles.snapshot() == s || System.nanoTime() > deadline) {
          throw e;
        }
      }
    }
  }

  /**
   * After a step-down: the primary's last published searcher, while the replica that replaced it
   * searches something older (or is not open yet); null otherwise.
   */
  private static IndexSearcher bridge(IndexSnapshot s) {
    IndexSnapshot.Bridge b = s.bridge();
    // Served as long as it is set: a replica's higher version may be a reopened commit holding
    // unpublished writes; the role switch drops the bridge once a copied point is searched.
    if (b == null) {
      return null;
    }
    return b.searcher().getIndexReader().tryIncRef() ? b.searcher() : null;
  }

  /** The current snapshot once no switch is under way (waiting at most {@code switchWait}). */
  private IndexSnapshot settled() throws IOException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(switchWaitMillis);
    IndexStateMachine machine = roles.machine();
    IndexSnapshot s = machine.snapshot();
    while (switching(s.state())) {
      long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      if (left <= 0) {
        throw new IndexUnavailableException("node " + nodeId + " is still switching " + index + " (" + s.state()
            + ") after " + switchWaitMillis + " ms; retry");
      }
      try {
        s = machine.awaitChange(s, left);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IndexUnavailableException("interrupted waiting for node " + nodeId + " to switch " + index);
      }
    }
    return s;
  }

  private static boolean switching(IndexState state) {
    return state == IndexState.STARTING || state == IndexState.PROMOTING || state == IndexState.DEMOTING;
  }

  private NodeClosedException closed(IndexSnapshot s) {
    return new NodeClosedException("node " + nodeId + " has no open index " + index + " (" + s.state() + ")");
  }

  /** {@code failure} of {@code what} on {@code p}, or the typed refusal when its writer is lost. */
  private IOException lostOr(Primary p, String what, Exception failure) {
    WriterLostException lost = lostWriter.afterFailure(p, what, failure);
    if (lost != null) {
      return lost;
    }
    if (failure instanceof IOException io) {
      return io;
    }
    throw (RuntimeException) failure;
  }

  /** As {@link #lostOr}, without throwing: for {@link #switchedAway}. */
  private Exception lostOrSame(Primary p, String what, Exception failure) {
    WriterLostException lost = lostWriter.afterFailure(p, what, failure);
    return lost != null ? lost : failure;
  }

  private NrtClusterException notPrimary(String what, IndexSnapshot s) throws NodeClosedException {
    if (s.state() == IndexState.CLOSING || s.state() == IndexState.CLOSED) {
      throw closed(s);
    }
    WriterLostException lost = lostWriter.pendingRefusal(what, s);
    if (lost != null) {
      return lost;
    }
    return new NotPrimaryException("node " + nodeId + " cannot " + what + " on " + index + " (" + s.state() + ")",
        s.followed() == null ? null : s.followed().address());
  }

  /** An operation on a primary that a switch closed meanwhile: refused like any other non-primary. */
  private IOException switchedAway(String what, Primary p, Exception e) throws IOException {
    IndexSnapshot now = roles.snapshot();
    if (now.primary() == p && now.state().holdsPrimary()) {
      if (e instanceof IOException io) {
        throw io;
      }
      throw (RuntimeException) e;
    }
    NrtClusterException n = notPrimary(what, now);
    n.addSuppressed(e);
    return n;
  }
}

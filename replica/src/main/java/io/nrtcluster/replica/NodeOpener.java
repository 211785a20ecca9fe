package io.nrtcluster.replica;

import io.nrtcluster.common.Incarnations;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.transport.Connection;
import java.io.IOException;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.lucene.index.IndexNotFoundException;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.replicator.nrt.Node;
import org.apache.lucene.search.SearcherFactory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.IOUtils;

/**
 * Opens a replica's local index as the node it runs: at start (the bootstrap: synced with the
 * primary when it answers, else the last commit as it is), and again after a resync or a corrupt
 * file made the replica drop it; closes the last one when the replica closes, recording for the
 * next bootstrap whether it may go on as this run.
 *
 * <p>Guarantees: every opening verifies the local files first ({@link FileIntegrity}); one
 * reopening runs at a time, and a node opened for a replica that closed meanwhile is closed here,
 * so nothing stays open holding the index's write lock; while a resync reopens, the last good
 * searcher keeps serving ({@link FallbackSearcher}) until a point copied from a primary is
 * installed, and a reopen that fails leaves it serving for the catch-up to retry.
 */
final class NodeOpener {
  private final ReplicaConfig config;
  private final ReplicaContext ctx;
  private final NodeLog log;
  private final ReplicaLifecycle lifecycle;
  private final FileIntegrity integrity;
  private final FallbackSearcher fallback;
  private final PrimaryLink link;
  private final CopyJobRunner runner;
  private final ReplicatingReplicaNode.CopyListener copyEvents;
  private final BadFileTracker badFiles;
  /** Held by whoever reopens the index (the catch-up thread, or the scrub after a corrupt file). */
  private final ReentrantLock reopening = new ReentrantLock();

  NodeOpener(ReplicaContext ctx, ReplicaLifecycle lifecycle, FileIntegrity integrity, FallbackSearcher fallback,
      PrimaryLink link, CopyJobRunner runner, ReplicatingReplicaNode.CopyListener copyEvents, BadFileTracker badFiles) {
    this.config = ctx.config();
    this.ctx = ctx;
    this.log = ctx.log();
    this.lifecycle = lifecycle;
    this.integrity = integrity;
    this.fallback = fallback;
    this.link = link;
    this.runner = runner;
    this.copyEvents = copyEvents;
    this.badFiles = badFiles;
  }

  /**
   * Opens the node the replica starts with: synced with the primary if it answers now, else (or if
   * that sync fails) the last local commit; the replica runs it from then on.
   */
  void bootstrap() throws IOException {
    // Before anything reads the commit: a corrupt segments file would fail that read.
    integrity.verifyBeforeOpen();
    Connection c = link.connectOnce();
    long commitGen = commitGeneration();
    ctx.store().observeGeneration(Math.max(commitGen, -1));
    // A clean close left a commit holding everything its run searched: this opening goes on as that run.
    long resumed = ctx.store().takeCleanClose();
    long incarnation = resumed != 0 ? resumed : Incarnations.next();
    ReplicatingReplicaNode n;
    if (c != null) {
      try {
        n = openNode(c.peerPrimaryGen(), incarnation);
      } catch (IOException | RuntimeException e) {
        log.warn("initial sync with primary generation {} failed; starting from local index: {}", c.peerPrimaryGen(), e.toString());
        n = openNode(commitGeneration(), incarnation);
      }
    } else {
      log.info("primary {} unreachable; serving the last commit and retrying in the background", config.primary());
      n = openNode(commitGen, incarnation);
    }
    lifecycle.started(n);
  }

  /**
   * Closes {@code n}, the node a closing replica ran last (null: none), once nothing copies any
   * more; when its last commit holds what this run searched, records a clean close, so the next
   * bootstrap goes on as this run. {@code clean}: the next process may trust the record of verified
   * files too (a halt must look like a crash).
   */
  void closeLast(ReplicatingReplicaNode n, boolean clean) throws IOException {
    // Nothing copies any more: whether the last commit holds what this run searches (this close's
    // commit, or one made just before it, as a promotion does).
    boolean holdsAll = n != null && n.isStarted()
        && (n.searchesUnpublishedCommit() || n.getCurrentSearchingVersion() == ctx.store().committedVersion());
    if (n != null) {
      n.close();
    }
    if (clean) {
      integrity.stoppedCleanly();
    }
    if (holdsAll) {
      ctx.store().recordCleanClose(n.incarnation());
    }
  }

  /**
   * Drops the local commit and copies the new primary's point-in-time from scratch (only files that
   * differ cross the wire). The last searcher keeps serving until the new one is open; a reopen that
   * fails is retried by the catch-up loop. Runs on the catch-up executor.
   */
  void resync(long primaryGen) {
    ReplicaLifecycle.Taken taken = lifecycle.resync(primaryGen);
    if (taken == null) {
      return;
    }
    ReplicatingReplicaNode old = taken.node();
    // A fallback still held means no copy was installed since the last resync: what the old node
    // searches is an emptied or older local index, not a better point.
    if (!fallback.isHeld()) {
      try {
        fallback.hold(old.getSearcherManager().acquire());
      } catch (IOException | RuntimeException e) {
        log.warn("cannot keep the last searcher across the resync: {}", e.toString());
      }
    }
    ctx.stats().resynced();
    IOUtils.closeWhileHandlingException(old);
    reopen();
  }

  /**
   * Opens the local index again after a resync dropped it; true once the replica runs again. When
   * the replica was closed meanwhile, the fresh node is closed here, so nothing stays open holding
   * the index's write lock.
   */
  boolean reopen() {
    if (!reopening.tryLock()) {
      // The scrub is reopening after a corrupt file: the catch-up retries once it is done.
      return false;
    }
    try {
      return reopenLocked();
    } finally {
      reopening.unlock();
    }
  }

  private boolean reopenLocked() {
    long gen = lifecycle.resyncGen();
    ReplicatingReplicaNode fresh;
    try {
      fresh = openNode(gen);
    } catch (IOException | RuntimeException e) {
      try {
        // Lucene drops the starting commit before it syncs: with none left, "what is left locally"
        // is an empty index, worse than the last searcher, which keeps serving until a retry works.
        long local = commitGeneration();
        if (local < 0) {
          log.warn("resync with generation {} failed and no local commit is left; retrying: {}", gen, e.toString());
          return false;
        }
        log.warn("resync with generation {} failed; starting from what is left locally: {}", gen, e.toString());
        fresh = openNode(local);
      } catch (IOException | RuntimeException e2) {
        log.error("cannot reopen the local index; retrying: {}", e2.toString());
        return false;
      }
    }
    if (!lifecycle.reopened(fresh)) {
      IOUtils.closeWhileHandlingException(fresh);
      return false;
    }
    if (fresh.installedPrimaryGen() >= 0) {
      fallback.release();
    } else if (fallback.isHeld()) {
      // Opened without a copy (an emptied directory, or an older local commit): the last good
      // searcher serves until the first point copied from a primary is installed.
      log.info("reopened without a copy from a primary; version {} serves until a copied point is installed",
          fallback.version());
    }
    link.announce();
    return true;
  }

  /**
   * Quarantines corrupt {@code fileName} found by the scrub or after a read: stops serving the searcher
   * that reads it at once (no earlier searcher stands in: it may read the same bytes), reopens the index
   * from what is verified; false when there was nothing to repair (starting or closed), else the catch-up
   * must copy the rest from the primary. Runs on their executors.
   */
  boolean repair(String fileName, boolean byScrub) {
    try {
      integrity.found(fileName, byScrub);
    } catch (IOException e) {
      log.warn("could not update the record of verified files: {}", e.toString());
    }
    ReplicaLifecycle.Taken taken = lifecycle.repair();
    if (taken == null) {
      return false;
    }
    fallback.release();
    if (taken.node() != null) {
      IOUtils.closeWhileHandlingException(taken.node());
    }
    reopen();
    return true;
  }

  private long commitGeneration() throws IOException {
    try (Directory dir = FSDirectory.open(config.indexPath())) {
      String gen = SegmentInfos.readLatestCommit(dir).getUserData().get(Node.PRIMARY_GEN_KEY);
      return gen == null ? -1 : Long.parseLong(gen);
    } catch (IndexNotFoundException e) {
      return -1;
    }
  }

  private ReplicatingReplicaNode openNode(long primaryGen) throws IOException {
    return openNode(primaryGen, Incarnations.next());
  }

  private ReplicatingReplicaNode openNode(long primaryGen, long incarnation) throws IOException {
    config.storageFaults().beforeIndexOpen(config.indexPath().toString());
    integrity.verifyBeforeOpen();
    Directory dir = FaultInjectingDirectory.wrap(FSDirectory.open(config.indexPath()), config.storageFaults());
    ReplicatingReplicaNode n;
    try {
      n = new ReplicatingReplicaNode(config.nodeId(), dir, new SearcherFactory(), ctx, link,
          runner, copyEvents, badFiles, incarnation);
    } catch (IOException | RuntimeException e) {
      IOUtils.closeWhileHandlingException(dir);
      throw e;
    }
    try {
      n.startAt(primaryGen);
      return n;
    } catch (IOException | RuntimeException e) {
      IOUtils.closeWhileHandlingException(n);
      throw e;
    }
  }
}

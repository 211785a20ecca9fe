package io.nrtcluster.primary;

import io.nrtcluster.common.GenerationStore;
import io.nrtcluster.common.NodeLog;
import java.io.IOException;

/**
 * The primary's commits: makes everything written so far durable with the replay position of the
 * last refresh, once the commit's own version passed the publish gate, and records the commit in the
 * node state; at close, says whether the next opening goes on as this run.
 *
 * <p>Guarantees: nothing new becomes durable under a version the gate refused (the one prepared
 * commit it refused waits for the next commit, which finishes it first, or for close, which rolls it
 * back); commits run in the publication order ({@link PrimaryPublications#inOrder}), so a refresh never
 * runs between a commit's preparation and its end; each commit's point is handed to the point
 * listener once.
 */
final class PrimaryCommits {
  private final ReplicatingPrimaryNode node;
  private final GenerationStore store;
  private final PrimaryPublications publications;
  private final NodeLog log;
  /**
   * A commit prepared (flushed, its segments file pending) whose version the publish gate refused;
   * guarded by the publication order. The writer holds at most one: the next commit finishes it once
   * the gate lets its version through, and close rolls it back.
   */
  private PreparedCommit prepared;
  /** The newest commit's own version, which may be above the NRT point it recorded. */
  private volatile long committedVersion = -1;

  /** A prepared commit: its own version, and the NRT point and replay position it records. */
  private record PreparedCommit(long version, long copyVersion, String position) {}

  PrimaryCommits(ReplicatingPrimaryNode node, GenerationStore store, PrimaryPublications publications, NodeLog log) {
    this.node = node;
    this.store = store;
    this.publications = publications;
    this.log = log;
  }

  /** See {@link Primary#commit()}. */
  void commit() throws IOException {
    publications.inOrder(() -> {
      while (true) {
        boolean fresh = prepared == null;
        if (fresh) {
          publications.atPoint(() -> {
            long copyVersion = node.getCopyStateVersion();
            String position = publications.replayPosition();
            prepared = new PreparedCommit(node.prepareCommit(), copyVersion, position);
          });
        }
        PreparedCommit c = prepared;
        publications.passGate(c.version());
        publications.atPoint(() -> {
          node.finishCommit();
          prepared = null;
          committedVersion = Math.max(committedVersion, c.version());
          store.recordCommit(c.copyVersion(), c.position());
        });
        if (fresh) {
          // The commit holds every write up to c.version(), which passed the gate: so did the
          // NRT point it covers, the one handed over (a refresh cannot run in between).
          publications.committed();
          return;
        }
      }
    });
  }

  /** See {@link Primary#lastCommitVersion()}. */
  long lastCommitVersion() {
    return Math.max(node.getLastCommitVersion(), committedVersion);
  }

  /**
   * On close: when the last commit holds every version this primary published through its gate (it
   * committed last, or published nothing since it opened), the next opening of this data directory
   * goes on as run {@code incarnation} ({@link GenerationStore#recordCleanClose}); otherwise the
   * published versions beyond the commit are gone with this process, and the next opening is a new run.
   */
  void recordCleanCloseIfCommitted(long incarnation) {
    try {
      // Not in the publication order: a refresh may hold it across a stuck gate. A version that
      // passes the gate after this read is never announced (this primary is closed by then).
      long gated = publications.gatedVersion();
      // Nothing passed the gate (the version this primary opened at may have been raised above the
      // commit's, with the same contents), or the last commit covers what did.
      if (gated < 0 || gated <= Math.max(committedVersion, node.getLastCommitVersion())) {
        store.recordCleanClose(incarnation);
      }
    } catch (IOException | RuntimeException e) {
      log.warn("could not record a clean close: {}", e.toString());
    }
  }
}

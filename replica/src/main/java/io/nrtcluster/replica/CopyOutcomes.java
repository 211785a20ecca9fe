package io.nrtcluster.replica;

import org.apache.lucene.replicator.nrt.CopyJob;

/**
 * What follows an NRT copy on a replica: its listeners hear of the copied version as soon as
 * searches see it, and once the copy ends, an installed copy gives up the fallback searcher and the
 * pushed copy-state it made useless, records its files as verified and lets the catch-up look again
 * at once, while a copy that failed (not one a newer point superseded) makes it retry after a
 * backoff.
 *
 * <p>Guarantees: the listeners hear of each installed version once; a replica repairing corrupt
 * files tells them only once the record of verified files says those are replaced. Both calls run
 * on the copy's finishing thread, in order.
 */
final class CopyOutcomes implements ReplicatingReplicaNode.CopyListener {
  private final FileIntegrity integrity;
  private final SearchedVersions versions;
  private final FallbackSearcher fallback;
  private final PushedCopyStates pushed;
  private volatile CatchUpLoop catchUp;
  /** The version whose listeners were told at its searcher switch (read and written on the finishing thread). */
  private long told = -1;

  CopyOutcomes(FileIntegrity integrity, SearchedVersions versions, FallbackSearcher fallback, PushedCopyStates pushed) {
    this.integrity = integrity;
    this.versions = versions;
    this.fallback = fallback;
    this.pushed = pushed;
  }

  /**
   * The catch-up the copies' outcomes wake; set before the replica starts, since the catch-up is
   * built after the nodes' opener, which takes this as their copy listener.
   */
  void attach(CatchUpLoop catchUp) {
    this.catchUp = catchUp;
  }

  @Override
  public void onSearcherSwitched(CopyJob job) {
    // Searches see the version from the searcher switch on, so listeners hear of it before the node
    // records the version and reports the install, and before the record of verified files is
    // rewritten (file writes and a directory listing: milliseconds on a busy disk). A replica
    // repairing corrupt files serves no searcher until that record says they are replaced: it is
    // told only then, in onNrtCopyDone.
    if (!integrity.awaitingRepair()) {
      told = job.getCopyState().version();
      versions.searched(job);
    }
  }

  @Override
  public void onNrtCopyDone(CopyJob job, boolean installed) {
    if (!installed) {
      if (!((StreamingCopyJob) job).superseded()) {
        catchUp.retryLater();
      }
      return;
    }
    long version = job.getCopyState().version();
    fallback.release();
    pushed.dropUpTo(job.getCopyState().primaryGen(), version);
    integrity.installed(job.getCopyState());
    if (told != version) {
      versions.searched(job);
    }
    catchUp.copySucceeded();
  }
}

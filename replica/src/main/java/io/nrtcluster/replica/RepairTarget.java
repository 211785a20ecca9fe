package io.nrtcluster.replica;

import io.nrtcluster.replica.Replica.State;
import java.io.IOException;
import java.util.Collection;
import java.util.List;
import org.apache.lucene.store.AlreadyClosedException;

/**
 * What the scrub and the repairs after failed reads see of a replica: the files it searches now,
 * and the repair of one found corrupt, which drops the node reading it ({@link NodeOpener#repair})
 * and wakes the catch-up to copy the file again from the primary.
 *
 * <p>Guarantees: nothing is scrubbed while the replica does not run; a repair found with nothing to
 * repair (the replica starting or closed) wakes nothing.
 */
final class RepairTarget implements Scrubber.Target {
  private final ReplicaLifecycle lifecycle;
  private final NodeOpener opener;
  private final CatchUpLoop catchUp;

  RepairTarget(ReplicaLifecycle lifecycle, NodeOpener opener, CatchUpLoop catchUp) {
    this.lifecycle = lifecycle;
    this.opener = opener;
    this.catchUp = catchUp;
  }

  @Override
  public Collection<String> searchedFiles() {
    ReplicatingReplicaNode n = lifecycle.node();
    if (lifecycle.state() != State.RUNNING || n == null || !n.isStarted()) {
      return List.of();
    }
    try {
      return n.searchedFileNames();
    } catch (IOException | AlreadyClosedException e) {
      return List.of();
    }
  }

  @Override
  public void corrupt(String fileName, String reason) {
    repair(fileName, true);
  }

  /** A corrupt file was found: once the node reading it is dropped, the catch-up copies it again. */
  void repair(String fileName, boolean byScrub) {
    if (opener.repair(fileName, byScrub)) {
      catchUp.wakeUp();
    }
  }
}

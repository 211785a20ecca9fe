package io.nrtcluster.node;

import io.nrtcluster.election.PrimaryInfo;
import io.nrtcluster.election.Role;
import io.nrtcluster.election.Standing;
import io.nrtcluster.election.StepDown;
import io.nrtcluster.primary.Primary;
import io.nrtcluster.replica.Replica;
import org.apache.lucene.search.IndexSearcher;

/**
 * One immutable view of an index's state: what readers (searches, status, logging, metrics, the
 * member record, the election's view of this node's standing) use, read through one volatile field
 * and never under a lock.
 *
 * @param state the state
 * @param primary the open primary while the state holds one, else null
 * @param replica the open replica while replicating, else null
 * @param followed the primary the election last named (null while this node is primary or none is known)
 * @param generation the primary generation led or followed, -1 when unknown
 * @param bridge after a step-down, the last searcher the primary published (one reference owned by
 *     the snapshot), served until the replica searches a newer version: searches never go back in
 *     time; else null
 * @param candidacy whether this node may be elected
 * @param loss the last lost writer this node gave its epoch up for, or null if none
 */
record IndexSnapshot(IndexState state, Primary primary, Replica replica, PrimaryInfo followed, long generation,
    Bridge bridge, Candidacy candidacy, WriterLoss loss) {
  static final IndexSnapshot INITIAL = new IndexSnapshot(IndexState.STARTING, null, null, null, -1, null,
      Candidacy.CANDIDATE, null);

  /** A published point-in-time of a primary that stepped down, and its version. */
  record Bridge(IndexSearcher searcher, long version) {}

  /**
   * The primary of generation {@code primaryGen} in run {@code incarnation} lost its Lucene writer and
   * was acted on once: why (as the member record publishes it), Lucene's tragic exception (the cause
   * of every refusal until a new primary is followed), and when ({@link System#nanoTime}). The
   * primary itself is not kept: closed, it goes.
   */
  record WriterLoss(long primaryGen, long incarnation, StepDown why, Throwable tragic, long atNanos) {
    static WriterLoss of(Primary p, StepDown why, Throwable tragic) {
      return new WriterLoss(p.primaryGen(), p.incarnation(), why, tragic, System.nanoTime());
    }

    boolean isOf(Primary p) {
      return p.primaryGen() == primaryGen && p.incarnation() == incarnation;
    }
  }

  IndexSnapshot to(IndexState next) {
    return new IndexSnapshot(next, primary, replica, followed, generation, bridge, candidacy, loss);
  }

  IndexSnapshot replicating(Replica r, PrimaryInfo f) {
    return new IndexSnapshot(IndexState.REPLICATING, null, r, f, f == null ? (r == null ? -1 : r.primaryGen()) : f.primaryGen(),
        bridge, candidacy, loss);
  }

  IndexSnapshot leading(IndexState next, Primary p) {
    return new IndexSnapshot(next, p, null, null, p.primaryGen(), null, candidacy, loss);
  }

  /** Promoting: no role open yet, and the generation being won (not the one followed so far). */
  IndexSnapshot promoting(long gen) {
    return new IndexSnapshot(IndexState.PROMOTING, null, null, followed, gen, bridge, candidacy, loss);
  }

  IndexSnapshot withBridge(Bridge b) {
    return new IndexSnapshot(state, primary, replica, followed, generation, b, candidacy, loss);
  }

  IndexSnapshot withoutRoles(IndexState next) {
    return new IndexSnapshot(next, null, null, followed, generation, bridge, candidacy, loss);
  }

  /** Out of elections for {@code lost}, in state {@code next}. */
  IndexSnapshot gaveUp(WriterLoss lost, IndexState next) {
    return new IndexSnapshot(next, primary, replica, followed, generation, bridge, Candidacy.GAVE_UP, lost);
  }

  /** A candidate again; the last loss stays (its step-down stays in the member record). */
  IndexSnapshot candidateAgain() {
    return new IndexSnapshot(state, primary, replica, followed, generation, bridge, Candidacy.CANDIDATE, loss);
  }

  /** The election-level role shown to operators: JOINING until a replica follows someone. */
  Role role() {
    return state == IndexState.REPLICATING && followed == null ? Role.JOINING : state.role();
  }

  /** This node's standing as its member record publishes it. */
  Standing standing() {
    return new Standing(candidacy == Candidacy.CANDIDATE, loss == null ? null : loss.why());
  }

  /** Whether {@code p}'s lost writer was acted on already. */
  boolean actedOn(Primary p) {
    return loss != null && loss.isOf(p);
  }
}

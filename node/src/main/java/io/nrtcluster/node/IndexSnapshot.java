package io.nrtcluster.node;

import io.nrtcluster.election.PrimaryInfo;
import io.nrtcluster.election.Role;
import io.nrtcluster.primary.Primary;
import io.nrtcluster.replica.Replica;
import org.apache.lucene.search.IndexSearcher;

/**
 * One immutable view of an index's state: what readers (searches, status, logging, metrics, the
 * member record) use, read through one volatile field and never under a lock.
 *
 * @param state the state
 * @param primary the open primary while the state holds one, else null
 * @param replica the open replica while replicating, else null
 * @param followed the primary the election last named (null while this node is primary or none is known)
 * @param generation the primary generation led or followed, -1 when unknown
 * @param bridge after a step-down, the last searcher the primary published (one reference owned by
 *     the snapshot), served until the replica searches a newer version: searches never go back in
 *     time; else null
 */
record IndexSnapshot(IndexState state, Primary primary, Replica replica, PrimaryInfo followed, long generation,
    Bridge bridge) {
  static final IndexSnapshot INITIAL = new IndexSnapshot(IndexState.STARTING, null, null, null, -1, null);

  /** A published point-in-time of a primary that stepped down, and its version. */
  record Bridge(IndexSearcher searcher, long version) {}

  IndexSnapshot to(IndexState next) {
    return new IndexSnapshot(next, primary, replica, followed, generation, bridge);
  }

  IndexSnapshot replicating(Replica r, PrimaryInfo f) {
    return new IndexSnapshot(IndexState.REPLICATING, null, r, f, f == null ? (r == null ? -1 : r.primaryGen()) : f.primaryGen(),
        bridge);
  }

  IndexSnapshot leading(IndexState next, Primary p) {
    return new IndexSnapshot(next, p, null, null, p.primaryGen(), null);
  }

  /** Promoting: no role open yet, and the generation being won (not the one followed so far). */
  IndexSnapshot promoting(long gen) {
    return new IndexSnapshot(IndexState.PROMOTING, null, null, followed, gen, bridge);
  }

  IndexSnapshot withBridge(Bridge b) {
    return new IndexSnapshot(state, primary, replica, followed, generation, b);
  }

  /** The election-level role shown to operators: JOINING until a replica follows someone. */
  Role role() {
    return state == IndexState.REPLICATING && followed == null ? Role.JOINING : state.role();
  }

  IndexSnapshot withoutRoles(IndexState next) {
    return new IndexSnapshot(next, null, null, followed, generation, bridge);
  }
}

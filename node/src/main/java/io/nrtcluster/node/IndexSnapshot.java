package io.nrtcluster.node;

import io.nrtcluster.election.PrimaryInfo;
import io.nrtcluster.election.Role;
import io.nrtcluster.primary.Primary;
import io.nrtcluster.replica.Replica;

/**
 * One immutable view of an index's state: what readers (searches, status, logging, metrics, the
 * member record) use, read through one volatile field and never under a lock.
 *
 * @param state the state
 * @param primary the open primary while the state holds one, else null
 * @param replica the open replica while replicating, else null
 * @param followed the primary the election last named (null while this node is primary or none is known)
 * @param generation the primary generation led or followed, -1 when unknown
 */
record IndexSnapshot(IndexState state, Primary primary, Replica replica, PrimaryInfo followed, long generation) {
  static final IndexSnapshot INITIAL = new IndexSnapshot(IndexState.STARTING, null, null, null, -1);

  IndexSnapshot to(IndexState next) {
    return new IndexSnapshot(next, primary, replica, followed, generation);
  }

  IndexSnapshot replicating(Replica r, PrimaryInfo f) {
    return new IndexSnapshot(IndexState.REPLICATING, null, r, f, f == null ? (r == null ? -1 : r.primaryGen()) : f.primaryGen());
  }

  IndexSnapshot leading(IndexState next, Primary p) {
    return new IndexSnapshot(next, p, null, null, p.primaryGen());
  }

  /** The election-level role shown to operators: JOINING until a replica follows someone. */
  Role role() {
    return state == IndexState.REPLICATING && followed == null ? Role.JOINING : state.role();
  }

  IndexSnapshot withoutRoles(IndexState next) {
    return new IndexSnapshot(next, null, null, followed, generation);
  }
}

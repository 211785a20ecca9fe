package io.nrtcluster.node;

import io.nrtcluster.common.IllegalTransitionException;
import io.nrtcluster.common.TransitionTable;

/**
 * Whether this node may be elected primary of one index: the second half of the index's state,
 * beside {@link IndexState}, in the same {@link IndexSnapshot} and changed by the same {@link
 * IndexStateMachine}. {@code docs/architecture.md} draws the combined table.
 *
 * <p>Guarantees: {@link #TABLE} lists every allowed change of candidacy and {@link #check} also
 * refuses one in an index state where it cannot happen: a node gives the epoch up only while it
 * holds a primary ({@link IndexState#holdsPrimary}), and becomes a candidate again only as a
 * replica ({@link IndexState#REPLICATING}). Neither constrains the index state's own moves: a node
 * out of elections is simply never elected, so it never reaches {@link IndexState#PROMOTING}
 * through an election of its own.
 */
enum Candidacy {
  /** May be elected (the start, and after a node that gave up caught up again). */
  CANDIDATE,
  /** Gave its epoch up (its writer is lost): not elected until it is a candidate again. */
  GAVE_UP;

  /** Every allowed change; GAVE_UP to GAVE_UP is a later primary of the node losing its writer too. */
  static final TransitionTable<Candidacy> TABLE = TransitionTable.builder("candidacy", Candidacy.class)
      .from(CANDIDATE, GAVE_UP)
      .from(GAVE_UP, GAVE_UP, CANDIDATE)
      .build();

  /** Whether a change of candidacy to this one may happen while the index is in {@code state}. */
  boolean mayBeEnteredIn(IndexState state) {
    return switch (this) {
      case GAVE_UP -> state.holdsPrimary();
      case CANDIDATE -> state == IndexState.REPLICATING;
    };
  }

  /** Refuses {@code from -> to} in index state {@code state} unless the table and the state allow it. */
  static void check(Candidacy from, Candidacy to, IndexState state) throws IllegalTransitionException {
    TABLE.check(from, to);
    if (!to.mayBeEnteredIn(state)) {
      throw new IllegalTransitionException("candidacy in " + state, from, to);
    }
  }
}

package io.nrtcluster.election;

import io.nrtcluster.common.IllegalTransitionException;
import io.nrtcluster.common.Internal;
import io.nrtcluster.common.TransitionTable;

/**
 * What this node's ZooKeeper session holds of its index's epochs, as the election knows it: the
 * election's own fact, which the index's state machine reads as an event ("the epoch is ours and
 * confirmed", "contact lost") and never as the node's role. The node's role ({@link Role}, the one
 * in its member record and its status) is its index state's alone.
 *
 * <p>Guarantees: {@link #TABLE} lists every change the election makes; anything else is a bug and
 * raises {@link IllegalStateException}. {@link #HELD} is the only value under which the election
 * lets this node publish a version or change the in-sync set (each also checked against ZooKeeper
 * in the same transaction as the write).
 */
@Internal
public enum EpochHold {
  /** Holds no epoch: joining, or following another node's primary znode. */
  NONE,
  /** Holds the primary znode of its epoch, and has not lost contact with ZooKeeper since it confirmed it. */
  HELD,
  /** Held the epoch when contact with ZooKeeper was suspended: fenced until its own session is seen holding it again. */
  SUSPENDED,
  /** Left the election (closed or abandoned): nothing more is decided. */
  LEFT;

  /** Every change the election makes. */
  static final TransitionTable<EpochHold> TABLE = TransitionTable.builder("epoch hold", EpochHold.class)
      .from(NONE, NONE, HELD, LEFT)
      .from(HELD, SUSPENDED, NONE, LEFT)
      .from(SUSPENDED, HELD, NONE, LEFT)
      .from(LEFT)
      .build();

  /** Held or suspended: this node's session claimed the current epoch and has not given it up. */
  public boolean claimed() {
    return this == HELD || this == SUSPENDED;
  }

  /** Returns {@code to}, or throws {@link IllegalStateException} when the election may not move there. */
  EpochHold moveTo(EpochHold to) {
    try {
      TABLE.check(this, to);
    } catch (IllegalTransitionException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
    return to;
  }
}

package io.nrtcluster.node;

import io.nrtcluster.common.Stable;
import io.nrtcluster.common.TransitionTable;
import io.nrtcluster.election.Role;

/**
 * The state of one index on one node: the single owner of its role. {@link #TABLE} lists every
 * allowed transition; {@code docs/architecture.md} draws it and says which event moves it.
 *
 * <p>What each state admits:
 *
 * <table>
 *   <caption>admitted operations</caption>
 *   <tr><th>state</th><th>writes</th><th>refresh / publish</th><th>searches</th><th>copies from a primary</th></tr>
 *   <tr><td>STARTING</td><td>no</td><td>no</td><td>wait</td><td>no</td></tr>
 *   <tr><td>REPLICATING</td><td>no</td><td>no</td><td>yes</td><td>yes</td></tr>
 *   <tr><td>PROMOTING</td><td>no</td><td>no</td><td>wait</td><td>no</td></tr>
 *   <tr><td>LEADING</td><td>yes</td><td>yes</td><td>yes</td><td>-</td></tr>
 *   <tr><td>HANDING_OFF</td><td>no</td><td>the hand-off's final version only</td><td>yes</td><td>-</td></tr>
 *   <tr><td>FENCED</td><td>no</td><td>no</td><td>yes (last published version)</td><td>-</td></tr>
 *   <tr><td>DEMOTING</td><td>no</td><td>no</td><td>yes (the last published point)</td><td>no</td></tr>
 *   <tr><td>CLOSING, CLOSED</td><td>no</td><td>no</td><td>no</td><td>no</td></tr>
 * </table>
 */
@Stable
public enum IndexState {
  /** Opening the local index as a replica; not yet in the election. */
  STARTING,
  /** A replica: searches its last copied point-in-time and follows the primary the election names. */
  REPLICATING,
  /** Won an epoch: the replica is closed and the primary is opening; nothing is served. */
  PROMOTING,
  /** The primary of the current epoch, in contact with ZooKeeper: the only state that admits writes. */
  LEADING,
  /** The primary during an operator's hand-off: writes stopped; only the hand-off decides how it ends. */
  HANDING_OFF,
  /** The primary without (or before confirming) ZooKeeper contact: refuses writes and refreshes. */
  FENCED,
  /** Lost its epoch: the primary is closing (dropping what it never replicated), a replica opening. */
  DEMOTING,
  /** Leaving: refuses everything new while the election is left and the roles close. */
  CLOSING,
  /** Closed for good. */
  CLOSED;

  /** Every allowed transition; anything else is refused with {@code IllegalTransitionException}. */
  static final TransitionTable<IndexState> TABLE = TransitionTable.builder("index state", IndexState.class)
      .from(STARTING, REPLICATING, CLOSING)
      .from(REPLICATING, REPLICATING, PROMOTING, CLOSING)
      .from(PROMOTING, LEADING, FENCED, REPLICATING, CLOSING)
      .from(LEADING, HANDING_OFF, FENCED, DEMOTING, CLOSING)
      .from(HANDING_OFF, LEADING, FENCED, DEMOTING, CLOSING)
      .from(FENCED, LEADING, DEMOTING, CLOSING)
      .from(DEMOTING, REPLICATING, CLOSING)
      .from(CLOSING, CLOSED)
      .from(CLOSED)
      .build();

  /** True only in {@link #LEADING}. */
  public boolean admitsWrites() {
    return this == LEADING;
  }

  /** True while a primary is open on the data directory (it may still be fenced or handing off). */
  public boolean holdsPrimary() {
    return this == LEADING || this == HANDING_OFF || this == FENCED;
  }

  /** The election-level role this state shows to operators and in {@link ClusterNode#role()}. */
  public Role role() {
    return switch (this) {
      case STARTING -> Role.JOINING;
      case REPLICATING, DEMOTING -> Role.REPLICA;
      case PROMOTING, LEADING, HANDING_OFF -> Role.PRIMARY;
      case FENCED -> Role.FENCED;
      case CLOSING, CLOSED -> Role.CLOSED;
    };
  }
}

package io.nrtcluster.election;

import io.nrtcluster.common.Stable;
import java.util.EnumSet;
import java.util.Set;

/**
 * What a node is for one index, as its index state shows it (the node module's {@code IndexState}):
 * the one role a node has, the same in its member record, its status, its metrics and its logs. The
 * election's own fact, whether this node's session holds the epoch, is {@link EpochHold}, never a
 * role. {@link #next()} lists the moves between roles; anything else raises {@link
 * IllegalStateException} from {@link #moveTo}.
 */
@Stable
public enum Role {
  /** Opening its index, or a replica that follows no primary yet. */
  JOINING,
  /** Copying from and searching like the current primary (also while a deposed primary reopens as one). */
  REPLICA,
  /** The primary of the current epoch: opening, leading, or handing off to a successor. */
  PRIMARY,
  /** A primary that takes no writes until its epoch is confirmed: contact with ZooKeeper lost, or its writer lost. */
  FENCED,
  /** Left the cluster (closing or closed). */
  CLOSED;

  /**
   * Roles reachable from this one, as the index state's moves show them: a replica that follows
   * nobody for a moment (its primary gone, a failed promotion, a deposed primary reopening) shows
   * {@link #JOINING} again.
   */
  public Set<Role> next() {
    return switch (this) {
      case JOINING -> EnumSet.of(REPLICA, PRIMARY, CLOSED);
      case REPLICA -> EnumSet.of(JOINING, PRIMARY, REPLICA, CLOSED);
      case PRIMARY -> EnumSet.of(FENCED, REPLICA, JOINING, CLOSED);
      case FENCED -> EnumSet.of(PRIMARY, REPLICA, CLOSED);
      case CLOSED -> EnumSet.noneOf(Role.class);
    };
  }

  /** Returns {@code to}, or throws when this role cannot move there. */
  public Role moveTo(Role to) {
    if (!next().contains(to)) {
      throw new IllegalStateException("illegal role transition " + this + " -> " + to);
    }
    return to;
  }
}

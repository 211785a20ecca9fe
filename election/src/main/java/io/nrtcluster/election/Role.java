package io.nrtcluster.election;

import io.nrtcluster.common.Stable;
import java.util.EnumSet;
import java.util.Set;

/**
 * What a node is for one index. Transitions are checked: anything not listed in {@link #next()} is a
 * bug and raises {@link IllegalStateException}.
 */
@Stable
public enum Role {
  /** Registered, serving its local index, not yet following anyone. */
  JOINING,
  /** Copying from and searching like the current primary. */
  REPLICA,
  /** Holds the primary znode of the current epoch: indexes and publishes NRT points. */
  PRIMARY,
  /** Was primary but lost contact with ZooKeeper: acknowledges nothing until it knows more. */
  FENCED,
  /** Left the cluster. */
  CLOSED;

  /** Roles reachable from this one. */
  public Set<Role> next() {
    return switch (this) {
      case JOINING -> EnumSet.of(REPLICA, PRIMARY, CLOSED);
      case REPLICA -> EnumSet.of(PRIMARY, REPLICA, CLOSED);
      case PRIMARY -> EnumSet.of(FENCED, REPLICA, CLOSED);
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

package io.nrtcluster.node;

import io.nrtcluster.common.Stable;
import io.nrtcluster.election.Role;

/** Told when this node's role for an index changes (on the election thread: be quick). */
@FunctionalInterface
@Stable
public interface RoleListener {
  /** {@code node} now has {@code role} for its index, under primary generation {@code primaryGen}. */
  void onRoleChange(ClusterNode node, Role role, long primaryGen);
}

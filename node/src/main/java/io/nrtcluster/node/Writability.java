package io.nrtcluster.node;

import io.nrtcluster.election.NotWritableReason;

/**
 * Whether an index on this node takes writes now, and if not why: the one answer that {@link
 * ClusterNode#isWritablePrimary()}, its {@link NodeStatus} and its member record give, so that none
 * of them says writable while a write would be refused.
 */
final class Writability {
  private final RoleSwitch roles;

  Writability(RoleSwitch roles) {
    this.roles = roles;
  }

  /** Null when writable now. */
  NotWritableReason reason() {
    return reason(roles.snapshot());
  }

  /** Null when {@code s} admits writes. */
  NotWritableReason reason(IndexSnapshot s) {
    return switch (s.state()) {
      case STARTING, REPLICATING, DEMOTING, CLOSING, CLOSED -> NotWritableReason.NOT_PRIMARY;
      case PROMOTING -> NotWritableReason.PROMOTING;
      case HANDING_OFF -> NotWritableReason.HANDING_OFF;
      case FENCED -> NotWritableReason.FENCED;
      case LEADING -> RoleSwitch.writerLost(s.primary()) ? NotWritableReason.WRITER_LOST : null;
    };
  }
}

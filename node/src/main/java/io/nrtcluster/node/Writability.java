package io.nrtcluster.node;

import io.nrtcluster.election.NotWritableReason;

/**
 * Whether an index on this node takes writes now, and if not why: the one answer that {@link
 * ClusterNode#isWritablePrimary()}, its {@link NodeStatus} and its member record give, so that none
 * of them says writable while a write would be refused. Below the disk floor it reads the floor's
 * last measurement (at most one {@code statfs} per interval), so it is writable again as soon as a
 * write would be admitted again.
 */
final class Writability {
  private final RoleSwitch roles;
  private final DiskFloor floor;

  Writability(RoleSwitch roles, DiskFloor floor) {
    this.roles = roles;
    this.floor = floor;
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
      case LEADING -> RoleSwitch.writerLost(s.primary()) ? NotWritableReason.WRITER_LOST
          : floor.isBelow() ? NotWritableReason.BELOW_DISK_FLOOR : null;
    };
  }
}

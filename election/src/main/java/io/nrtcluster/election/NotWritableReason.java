package io.nrtcluster.election;

import io.nrtcluster.common.Experimental;

/**
 * Why a node does not take writes for an index now, as its status and its member record say it
 * (so {@code nrt status} shows it on any node). A writable node has no reason.
 */
@Experimental
public enum NotWritableReason {
  /** It is not the primary (a replica, joining, or leaving). */
  NOT_PRIMARY,
  /** It won an epoch and is opening its primary; writes start once it leads. */
  PROMOTING,
  /** It is handing its role to another node; writes stopped for the hand-off. */
  HANDING_OFF,
  /** It is the primary without (or before confirming) ZooKeeper contact. */
  FENCED,
  /** Its Lucene writer was lost (corruption, a full disk, a fatal I/O error); it gives its epoch up. */
  WRITER_LOST,
  /** Its data directory has less usable space than its floor; writes resume by themselves when space returns. */
  BELOW_DISK_FLOOR,
  /** A reason a node of a later release wrote that this one does not know. */
  UNKNOWN;

  /** The reason named {@code name}, or {@link #UNKNOWN} when this release does not know it. */
  public static NotWritableReason named(String name) {
    for (NotWritableReason r : values()) {
      if (r.name().equals(name)) {
        return r;
      }
    }
    return UNKNOWN;
  }

  /** What a record without a reason means, as records did before they carried one: only a primary writes. */
  public static NotWritableReason impliedBy(Role role) {
    return role == Role.PRIMARY ? null : NOT_PRIMARY;
  }
}

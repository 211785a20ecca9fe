package io.nrtcluster.election;

import io.nrtcluster.common.Experimental;

/** Why a replica left an index's in-sync set ({@link InSyncRecord}). */
@Experimental
public enum OutOfSyncReason {
  /** It did not install a published version within the in-sync timeout. */
  LAGGED,
  /** It reopened its index from disk (a restart, a resync): it lost the points it had not committed. */
  RESTARTED;

  /** A reason a newer node wrote that this one does not know reads as {@link #LAGGED}. */
  static OutOfSyncReason named(String name) {
    for (OutOfSyncReason r : values()) {
      if (r.name().equals(name)) {
        return r;
      }
    }
    return LAGGED;
  }
}

package io.nrtcluster.node;

import io.nrtcluster.election.InSyncRecord;
import io.nrtcluster.election.MemberInfo;
import java.util.List;
import java.util.Map;

/**
 * The first in-sync record of a new primary's epoch ({@link InSyncSet} writes it before it
 * acknowledges anything REPLICATED): the last record's replicas, minus the new primary, and the last
 * record's primary while it is live in that record's run or between two runs of its index.
 *
 * <p>Guarantees: every node it names either holds every version the last primary acknowledged as
 * replicated (the last record's replicas, and the last primary in its run), or leaves the set
 * before it counts: as restarted at its first install report in another run, or as lagging once a
 * replicated acknowledgement waited for it past the in-sync timeout. Nobody else is named.
 */
final class FirstInSyncRecord {
  private FirstInSyncRecord() {}

  /**
   * The first record of epoch {@code epoch} led by {@code self} in run {@code incarnation}, after
   * {@code last} (null: none), given the members as the election's cache last saw them.
   */
  static InSyncRecord of(InSyncRecord last, long epoch, int self, long incarnation, List<MemberInfo> members) {
    InSyncRecord start = InSyncRecord.start(epoch, self, incarnation);
    if (last == null) {
      return start;
    }
    for (Map.Entry<Integer, Long> m : last.members().entrySet()) {
      if (m.getKey() != self) {
        start = start.with(m.getKey(), m.getValue());
      }
    }
    if (last.primary() != self && liveIn(members, last.primary(), last.primaryIncarnation())) {
      start = start.with(last.primary(), last.primaryIncarnation());
    }
    return start;
  }

  /**
   * Whether {@code nodeId} is a live member among {@code members} in run {@code incarnation}, or
   * between two runs (no index open: its record names no run). A graceful hand-off's old primary
   * passes through the second between closing its primary and opening its replica as the same run;
   * one that opens a new run instead reports its installs in it and leaves the set as restarted.
   */
  private static boolean liveIn(List<MemberInfo> members, int nodeId, long incarnation) {
    return members.stream().anyMatch(m -> m.nodeId() == nodeId && (m.incarnation() == incarnation || m.incarnation() == 0));
  }
}

package io.nrtcluster.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.nrtcluster.election.InSyncRecord;
import io.nrtcluster.election.MemberInfo;
import io.nrtcluster.election.MemberIntegrity;
import io.nrtcluster.election.NotWritableReason;
import io.nrtcluster.election.Role;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The first in-sync record of a new primary's epoch, from the last record and the members the
 * election's cache shows. The last primary is named while it runs in the record's run, and while it
 * is between two runs of its index (a graceful hand-off's old primary closes its primary and opens
 * its replica, going on as the same run: InSyncPromotionTest read it in that window about one time in
 * three and left its index without an electable node once the target died).
 */
@Timeout(10)
class FirstInSyncRecordTest {
  private static final long OLD_RUN = -6_511_756_931_948_872_516L;
  private static final long REPLICA_RUN = 788_628_717_426_007_308L;
  private static final long NEW_RUN = 42L;

  /** Epoch 1: primary 1 in run OLD_RUN, replica 2 in run REPLICA_RUN; node 2 leads epoch 2 in its run. */
  private static final InSyncRecord LAST = InSyncRecord.start(1, 1, OLD_RUN).with(2, REPLICA_RUN);

  @Test
  void theLastPrimaryRunningInTheRecordsRunIsNamed() {
    InSyncRecord first = FirstInSyncRecord.of(LAST, 2, 2, REPLICA_RUN, List.of(replica(1, OLD_RUN), primary(2)));
    assertThat(first.primary()).isEqualTo(2);
    assertThat(first.primaryIncarnation()).isEqualTo(REPLICA_RUN);
    assertThat(first.members()).containsExactlyEntriesOf(Map.of(1, OLD_RUN));
  }

  @Test
  void theLastPrimaryBetweenTwoRunsOfItsIndexIsNamed() {
    InSyncRecord first = FirstInSyncRecord.of(LAST, 2, 2, REPLICA_RUN, List.of(betweenRuns(1), primary(2)));
    assertThat(first.members()).as(first.describe(0)).containsOnlyKeys(1).containsEntry(1, OLD_RUN);
  }

  @Test
  void theLastPrimaryInAnotherRunOrGoneIsNotNamed() {
    assertThat(FirstInSyncRecord.of(LAST, 2, 2, REPLICA_RUN, List.of(replica(1, NEW_RUN), primary(2))).members()).isEmpty();
    assertThat(FirstInSyncRecord.of(LAST, 2, 2, REPLICA_RUN, List.of(primary(2))).members()).isEmpty();
  }

  @Test
  void theLastRecordsOtherReplicasStayAndTheNewPrimaryIsNoReplica() {
    InSyncRecord last = LAST.with(3, NEW_RUN);
    InSyncRecord first = FirstInSyncRecord.of(last, 2, 2, REPLICA_RUN, List.of(primary(2)));
    assertThat(first.members()).containsOnlyKeys(3).containsEntry(3, NEW_RUN);
    assertThat(FirstInSyncRecord.of(null, 1, 1, OLD_RUN, List.of()).members()).isEmpty();
  }

  private static MemberInfo replica(int id, long run) {
    return new MemberInfo(id, "127.0.0.1:" + (9000 + id), Role.REPLICA, 1, 5, 4, false, 0, null, 0,
        new MemberIntegrity(true, List.of(), 0, 0, 0), true, null, NotWritableReason.NOT_PRIMARY, run);
  }

  private static MemberInfo primary(int id) {
    return new MemberInfo(id, "127.0.0.1:" + (9000 + id), Role.PRIMARY, 2, -1, -1, false, 0, null, 0,
        new MemberIntegrity(false, List.of(), 0, 0, 0), true, null, NotWritableReason.PROMOTING, 0);
  }

  /** The record a node writes while no index is open (ProgressReporter): no run named. */
  private static MemberInfo betweenRuns(int id) {
    return new MemberInfo(id, "127.0.0.1:" + (9000 + id), Role.REPLICA, 1, -1, -1, false, 0, null, 0,
        new MemberIntegrity(false, List.of(), 0, 0, 0), true, null, NotWritableReason.NOT_PRIMARY);
  }
}

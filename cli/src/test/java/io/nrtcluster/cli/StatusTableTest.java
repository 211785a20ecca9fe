package io.nrtcluster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.nrtcluster.election.InSyncRecord;
import io.nrtcluster.election.NotWritableReason;
import io.nrtcluster.election.OutOfSyncReason;
import io.nrtcluster.election.Role;
import io.nrtcluster.election.StepDown;
import io.nrtcluster.election.StepDownReason;
import io.nrtcluster.node.IndexStatus;
import io.nrtcluster.node.MemberStatus;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code nrt status}'s table names why a node last gave its primary role up by itself, and why a
 * primary does not take writes.
 */
@Timeout(10)
class StatusTableTest {
  @Test
  void aNodeThatLostItsWriterShowsTheReasonAndWhetherItIsACandidate() {
    StepDown why = new StepDown(StepDownReason.DISK_FULL, "java.io.IOException: No space left on device",
        System.currentTimeMillis() - 5_000);
    IndexStatus s = new IndexStatus("c", "docs", 2, 3, List.of(
        new MemberStatus(1, "127.0.0.1:9001", Role.REPLICA, 3, 10, 8, 0, 100, false, 0, null, false, why),
        new MemberStatus(2, "127.0.0.1:9002", Role.PRIMARY, 3, 10, 9, 0, -1, false, 0, null, true, null)));
    StringWriter text = new StringWriter();
    StatusCommand.printTable(new PrintWriter(text, true), s);
    assertThat(text.toString()).contains("stepped down", "DISK_FULL: java.io.IOException: No space left on device",
        "(not a candidate yet)");
    assertThat(text.toString().lines().filter(l -> l.contains("stepped down")).count()).isEqualTo(1);
  }

  @Test
  void aPrimaryBelowItsDiskFloorShowsItIsNotWritableAndWhy() {
    IndexStatus s = new IndexStatus("c", "docs", 2, 3, List.of(
        new MemberStatus(1, "127.0.0.1:9001", Role.REPLICA, 3, 10, 8, 0, 100, false, 0, null, true, null),
        new MemberStatus(2, "127.0.0.1:9002", Role.PRIMARY, 3, 10, 9, 0, -1, false, 0, null, true, null, false,
            NotWritableReason.BELOW_DISK_FLOOR)));
    StringWriter text = new StringWriter();
    StatusCommand.printTable(new PrintWriter(text, true), s);
    assertThat(text.toString()).contains("node 2 is not writable: BELOW_DISK_FLOOR");
    assertThat(text.toString()).as("a replica's NOT_PRIMARY goes without saying").doesNotContain("node 1 is not writable");
  }

  @Test
  void theInSyncSetAndWhyAReplicaLeftItAreShown() {
    long now = System.currentTimeMillis();
    InSyncRecord record = new InSyncRecord(3, 2, 7, Map.of(1, 5L), Map.of(4, new InSyncRecord.Departure(OutOfSyncReason.LAGGED,
        17, now - 12_000)));
    IndexStatus s = new IndexStatus("c", "docs", 2, 3, List.of(
        new MemberStatus(1, "127.0.0.1:9001", Role.REPLICA, 3, 10, 8, 0, 100, false, 0, null, true, null, false,
            NotWritableReason.NOT_PRIMARY, true),
        new MemberStatus(2, "127.0.0.1:9002", Role.PRIMARY, 3, 10, 9, 0, -1, false, 0, null, true, null, true, null, true),
        new MemberStatus(4, "127.0.0.1:9004", Role.REPLICA, 3, 2, 2, 8, 100, true, 0, null, true, null, false,
            NotWritableReason.NOT_PRIMARY, false)), record);
    StringWriter text = new StringWriter();
    StatusCommand.printTable(new PrintWriter(text, true), s);
    assertThat(text.toString()).containsPattern("in-sync: primary 2, replicas \\[1\\]; left: 4 LAGGED \\(lacked version 17\\) 1[1-3] s ago");
    assertThat(text.toString()).contains("node 4 is not in the in-sync set").doesNotContain("node 1 is not in the in-sync set");

    StringWriter none = new StringWriter();
    StatusCommand.printTable(new PrintWriter(none, true), new IndexStatus("c", "docs", 2, 3, s.members().subList(0, 2)));
    assertThat(none.toString()).contains("in-sync: no record");
  }
}

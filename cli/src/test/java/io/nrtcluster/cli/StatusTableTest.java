package io.nrtcluster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.nrtcluster.election.NotWritableReason;
import io.nrtcluster.election.Role;
import io.nrtcluster.election.StepDown;
import io.nrtcluster.election.StepDownReason;
import io.nrtcluster.node.IndexStatus;
import io.nrtcluster.node.MemberStatus;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
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
}

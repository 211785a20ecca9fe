package io.nrtcluster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.nrtcluster.election.Role;
import io.nrtcluster.node.NodeStatus;
import io.nrtcluster.objectstore.HostStoreConfig;
import io.nrtcluster.transport.Traffic;
import java.util.Map;
import io.nrtcluster.objectstore.ManifestId;
import io.nrtcluster.objectstore.ObjectStoreConfig;
import io.nrtcluster.objectstore.VerifyReport;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The node's line about its last backup verification. */
@Timeout(30)
class NodeLinesTest {
  private static final ManifestId M12 = new ManifestId(12, 3, "c1/docs/manifests/0000000000000000012-0000000000000000003", null);

  @Test
  void anIntactBackupSaysHowMuchWasRead() {
    VerifyReport r = new VerifyReport(M12, 34, 5_347_738, Duration.ofMillis(900), List.of());
    assertThat(NodeLines.verification(1, "docs", r)).isEqualTo("N1/docs backup version 12 verified: intact (34 objects, 5.1 MiB)");
  }

  @Test
  void aDamagedBackupNamesEachDamagedObjectAndItsProblem() {
    VerifyReport r = new VerifyReport(M12, 34, 5_000_000, Duration.ofMillis(900), List.of(
        new VerifyReport.Damage("c1/docs/files/_0.cfs--1234-0000abcd", "_0.cfs", VerifyReport.Problem.WRONG_CHECKSUM, "x"),
        new VerifyReport.Damage("c1/docs/files/_1.si--300-12345678", "_1.si", VerifyReport.Problem.MISSING, "y")));
    assertThat(NodeLines.verification(1, "docs", r)).isEqualTo("N1/docs backup version 12 DAMAGED: 2 object(s): "
        + "c1/docs/files/_0.cfs--1234-0000abcd (WRONG_CHECKSUM), c1/docs/files/_1.si--300-12345678 (MISSING)");
  }

  @Test
  void theStoresStateSaysWhetherItAnswers() {
    HostStoreConfig c = HostStoreConfig.builder().store(ObjectStoreConfig.builder().bucket("nrt-backups").build())
        .startTimeout(Duration.ofSeconds(5)).build();
    assertThat(NodeLines.storeState(1, false, c))
        .isEqualTo("N1 object store detached: bucket nrt-backups did not answer; indexes run without it, probed every 5s");
    assertThat(NodeLines.storeState(1, true, c)).isEqualTo("N1 object store attached: bucket nrt-backups");
  }

  @Test
  void aPrimarysStatusSaysWhatEachReplicaCostItAndAReplicasWhereItCopiesFrom() {
    NodeStatus primary = new NodeStatus(1, "docs", "127.0.0.1:1", Role.PRIMARY, 2, 14, 12, null, false, 0, null, null,
        true, null, false);
    Map<Integer, Traffic> traffic = new java.util.TreeMap<>(Map.of(2, new Traffic(3 << 20, 4096), 3, new Traffic(1 << 20, 2048)));
    assertThat(NodeLines.status(primary, traffic))
        .isEqualTo("N1/docs status role=PRIMARY gen=2 version=14 commit=12 copying=false sent=N2:3.0 MiB,N3:1.0 MiB");
    NodeStatus replica = new NodeStatus(2, "docs", "127.0.0.1:2", Role.REPLICA, 2, 14, 12, "127.0.0.1:1", false, 0, null,
        null, true, null, false);
    assertThat(NodeLines.status(replica, Map.of(1, new Traffic(4096, 3 << 20))))
        .isEqualTo("N2/docs status role=REPLICA gen=2 version=14 commit=12 copying=false received=N1:3.0 MiB");
    assertThat(NodeLines.status(replica, Map.of())).isEqualTo(NodeLines.status(replica));
    assertThat(NodeLines.status(replica, Map.of(3, new Traffic(4096, 3 << 20)), 3))
        .as("a replica that copies from a peer names it").endsWith(" from=N3 received=N3:3.0 MiB");
  }
}

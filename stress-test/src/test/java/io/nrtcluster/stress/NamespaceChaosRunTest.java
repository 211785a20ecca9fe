package io.nrtcluster.stress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.nrtcluster.stress.net.NetLab;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The build's short seeded chaos run with hosts in network namespaces (root only; CI runs as root):
 * every node JVM and ZooKeeper server in its own namespace, every fault kind at least once, the
 * partition kinds included, and a valid verdict. Afterwards nothing of the lab is left.
 */
class NamespaceChaosRunTest {
  @Test
  @Timeout(value = 12, unit = java.util.concurrent.TimeUnit.MINUTES)
  void aShortSeededRunWithEveryPartitionKindIsValid() throws Exception {
    assumeThat(NetLab.rootAvailable()).as("network namespaces need root and iproute2").isTrue();
    long seed = Long.getLong("nrt.chaos.seed", 15);
    // Kept after the run (target/ is cleaned by the build): a failed run's logs are what explains it.
    Path reports = Path.of("target", "chaos-namespaces-" + seed + "-" + System.currentTimeMillis()).toAbsolutePath();
    ChaosConfig config = ChaosConfig.builder().network(NetworkMode.NAMESPACES).nodes(3).duration(Duration.ofSeconds(170))
        .seed(seed).reportDir(reports).writesPerSecond(200).build();
    ChaosReport report = ChaosRun.run(config, System.out::println);

    String context = "seed=" + seed + " (rerun with -Dnrt.chaos.seed=" + seed + "); report: " + ChaosRun.summary(report);
    assertThat(report.valid()).as(context).isTrue();
    assertThat(report.network()).isEqualTo(NetworkMode.NAMESPACES);
    assertThat(report.events().stream().map(Timeline.Event::kind).collect(Collectors.toSet())).as(context)
        .isEqualTo(config.faults());
    ChaosReport.Faults f = report.faults();
    assertThat(List.of(f.partitionPrimaryZooKeeper(), f.partitionPrimaryReplicas(), f.partitionHalves(),
        f.partitionBridge(), f.partitionOneWay(), f.slowLink(), f.primaryPause())).as(context).allSatisfy(n ->
        assertThat(n).isPositive());
    ChaosReport.Safety s = report.safety();
    assertThat(s.networkFaultsHealed()).as(context).isGreaterThanOrEqualTo(6);
    assertThat(s.notConvergedAfterHeal()).as(context).isZero();
    assertThat(s.publications()).as(context).isPositive();
    assertThat(report.events()).filteredOn(e -> e.kind().isNetwork())
        .allSatisfy(e -> assertThat(e.untilMillis()).as("healed after it began").isGreaterThan(e.atMillis()));
    assertThat(LabLeftovers.of(ProcessHandle.current().pid())).as("namespaces, links or bridges left behind").isEmpty();
  }
}

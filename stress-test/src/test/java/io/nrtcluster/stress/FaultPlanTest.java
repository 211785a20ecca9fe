package io.nrtcluster.stress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class FaultPlanTest {
  private static ChaosConfig.Builder config(long seed) {
    return ChaosConfig.builder().seed(seed).reportDir(Path.of("unused")).duration(Duration.ofSeconds(300));
  }

  @Test
  void theSameSeedGivesTheSameScheduleAndAnotherSeedAnother() {
    FaultPlan a = FaultPlan.generate(config(42).build());
    FaultPlan b = FaultPlan.generate(config(42).build());
    FaultPlan c = FaultPlan.generate(config(43).build());
    assertThat(a).isEqualTo(b);
    assertThat(a).isNotEqualTo(c);
  }

  @Test
  void everyEnabledKindComesAtLeastOnceInOrderOfTime() {
    for (long seed = 1; seed <= 50; seed++) {
      FaultPlan plan = FaultPlan.generate(config(seed).duration(Duration.ofSeconds(75)).build());
      Set<FaultKind> kinds = plan.faults().stream().map(FaultPlan.Planned::kind).collect(Collectors.toSet());
      assertThat(kinds).as("seed=%d", seed).isEqualTo(FaultKind.available(NetworkMode.LOOPBACK, StorageMode.PLAIN, false, 4));
      long previous = -1;
      for (FaultPlan.Planned p : plan.faults()) {
        assertThat(p.atMillis()).as("seed=%d", seed).isGreaterThan(previous).isLessThan(75_000);
        previous = p.atMillis();
      }
    }
  }

  @Test
  void onlyEnabledKindsAreScheduledAndPausesSometimesOutlastTheSession() {
    ChaosConfig cfg = config(7).faults(EnumSet.of(FaultKind.PAUSE)).sessionTimeout(Duration.ofSeconds(4)).build();
    FaultPlan plan = FaultPlan.generate(cfg);
    assertThat(plan.faults()).isNotEmpty().allSatisfy(p -> assertThat(p.kind()).isEqualTo(FaultKind.PAUSE));
    assertThat(plan.faults()).anySatisfy(p -> assertThat(p.holdMillis()).isGreaterThan(4_000));
    assertThat(plan.faults()).anySatisfy(p -> assertThat(p.holdMillis()).isLessThan(4_000));
    assertThat(FaultPlan.generate(config(7).faults(Set.of()).build()).faults()).isEmpty();
  }

  /** Store outages are sometimes short and sometimes last several commits, so backups fail and must resume. */
  @Test
  void storeOutagesSometimesOutlastSeveralCommits() {
    ChaosConfig cfg = config(5).objectStore(true).faults(EnumSet.of(FaultKind.STORE_RESTART))
        .commitInterval(Duration.ofSeconds(2)).build();
    FaultPlan plan = FaultPlan.generate(cfg);
    assertThat(plan.faults()).isNotEmpty().allSatisfy(p -> assertThat(p.kind()).isEqualTo(FaultKind.STORE_RESTART));
    assertThat(plan.faults()).anySatisfy(p -> assertThat(p.holdMillis()).isGreaterThanOrEqualTo(6_000));
    assertThat(plan.faults()).anySatisfy(p -> assertThat(p.holdMillis()).isLessThan(4_000));
  }

  /**
   * A copy parent's kill needs a replica that copies from another, so four nodes: it is in the
   * default set from four nodes on, refused when asked for with three, and {@code --faults
   * copyParentKill} (its key, parsed as the command line does) plans it alone.
   */
  @Test
  void copyParentKillComesByDefaultFromFourNodesAndAloneWhenSelected() {
    assertThat(FaultKind.COPY_PARENT_KILL.key()).isEqualTo("copyParentKill");
    assertThat(FaultKind.parse("copyParentKill")).isEqualTo(FaultKind.COPY_PARENT_KILL);
    assertThat(FaultKind.parse("COPY_PARENT_KILL")).isEqualTo(FaultKind.COPY_PARENT_KILL);
    assertThat(FaultKind.COPY_PARENT_KILL.minNodes()).isEqualTo(4);
    assertThat(FaultKind.PRIMARY_KILL.minNodes()).isEqualTo(3);

    assertThat(config(1).nodes(3).build().faults()).doesNotContain(FaultKind.COPY_PARENT_KILL)
        .contains(FaultKind.REPLICA_KILL);
    assertThat(config(1).nodes(4).build().faults()).contains(FaultKind.COPY_PARENT_KILL);
    assertThat(config(1).nodes(9).network(NetworkMode.NAMESPACES).build().faults()).contains(FaultKind.COPY_PARENT_KILL);
    assertThat(FaultKind.available(NetworkMode.LOOPBACK)).doesNotContain(FaultKind.COPY_PARENT_KILL);
    assertThat(FaultKind.available(NetworkMode.LOOPBACK, StorageMode.PLAIN, false, 4))
        .isEqualTo(EnumSet.of(FaultKind.COPY_PARENT_KILL, FaultKind.available(NetworkMode.LOOPBACK).toArray(FaultKind[]::new)));
    assertThatThrownBy(() -> config(1).nodes(3).faults(EnumSet.of(FaultKind.COPY_PARENT_KILL)).build())
        .hasMessageContaining("faults").hasMessageContaining("copyParentKill").hasMessageContaining("4 nodes");

    for (long seed = 1; seed <= 20; seed++) {
      ChaosConfig alone = config(seed).nodes(4).duration(Duration.ofSeconds(120))
          .faults(EnumSet.of(FaultKind.parse("copyParentKill"))).build();
      FaultPlan plan = FaultPlan.generate(alone);
      assertThat(plan.faults()).as("seed=%d", seed).hasSizeGreaterThanOrEqualTo(10)
          .allSatisfy(p -> assertThat(p.kind()).isEqualTo(FaultKind.COPY_PARENT_KILL))
          .allSatisfy(p -> assertThat(p.holdMillis()).isBetween(500L, 3_000L));
      // Either way of aiming (on a slowed wire, or not), and a pick that spreads over the parents.
      assertThat(plan.faults().stream().map(FaultPlan.Planned::variant).distinct()).as("seed=%d", seed).hasSize(2);
      assertThat(plan.faults().stream().map(p -> p.pick() % 2).distinct()).as("seed=%d", seed).hasSize(2);
    }
    ChaosConfig two = config(5).nodes(4).duration(Duration.ofSeconds(90))
        .faults(EnumSet.of(FaultKind.parse("copyParentKill"), FaultKind.parse("replicaKill"))).build();
    assertThat(FaultPlan.generate(two).faults().stream().map(FaultPlan.Planned::kind).collect(Collectors.toSet()))
        .isEqualTo(EnumSet.of(FaultKind.COPY_PARENT_KILL, FaultKind.REPLICA_KILL));
  }

  @Test
  void configurationNamesTheBadField() {
    assertThatThrownBy(() -> config(1).nodes(2).build()).hasMessageContaining("nodes");
    assertThatThrownBy(() -> config(1).duration(Duration.ofSeconds(3)).build()).hasMessageContaining("duration");
    assertThatThrownBy(() -> config(1).writesPerSecond(0).build()).hasMessageContaining("writesPerSecond");
    assertThatThrownBy(() -> config(1).reportDir(null).build()).hasMessageContaining("reportDir");
    assertThatThrownBy(() -> FaultKind.parse("meteor")).hasMessageContaining("meteor").hasMessageContaining("pause");
    assertThat(FaultKind.parse("primaryKill")).isEqualTo(FaultKind.PRIMARY_KILL);
    assertThat(FaultKind.parse("ZK_RESTART")).isEqualTo(FaultKind.ZK_RESTART);
    assertThatThrownBy(() -> config(1).faults(EnumSet.of(FaultKind.PARTITION_HALVES)).build())
        .hasMessageContaining("faults").hasMessageContaining("partitionHalves").hasMessageContaining("namespaces");
    assertThat(config(1).network(NetworkMode.NAMESPACES).build().faults())
        .isEqualTo(EnumSet.complementOf(EnumSet.of(FaultKind.DISK_FULL, FaultKind.REPLICA_REBUILD, FaultKind.STORE_RESTART)));
    assertThat(config(1).network(NetworkMode.NAMESPACES).storage(StorageMode.TMPFS).build().faults())
        .isEqualTo(EnumSet.complementOf(EnumSet.of(FaultKind.REPLICA_REBUILD, FaultKind.STORE_RESTART)));
    assertThat(config(1).network(NetworkMode.NAMESPACES).storage(StorageMode.TMPFS).objectStore(true).build().faults())
        .isEqualTo(EnumSet.allOf(FaultKind.class));
    assertThat(config(1).objectStore(true).build().faults()).contains(FaultKind.REPLICA_REBUILD, FaultKind.STORE_RESTART)
        .doesNotContain(FaultKind.SLOW_LINK, FaultKind.DISK_FULL);
    assertThatThrownBy(() -> config(1).faults(EnumSet.of(FaultKind.STORE_RESTART)).build())
        .hasMessageContaining("faults").hasMessageContaining("storeRestart").hasMessageContaining("object store");
    assertThat(config(1).storage(StorageMode.TMPFS).build().faults()).contains(FaultKind.DISK_FULL)
        .doesNotContain(FaultKind.SLOW_LINK);
    assertThatThrownBy(() -> config(1).faults(EnumSet.of(FaultKind.DISK_FULL)).build())
        .hasMessageContaining("faults").hasMessageContaining("diskFull").hasMessageContaining("tmpfs");
    assertThatThrownBy(() -> config(1).storage(StorageMode.TMPFS).diskMb(8).build()).hasMessageContaining("diskMb");
    assertThat(config(1).build().faults()).doesNotContain(FaultKind.SLOW_LINK).contains(FaultKind.PRIMARY_PAUSE);
    assertThatThrownBy(() -> NetworkMode.parse("tunnels")).hasMessageContaining("namespaces");
  }

  @Test
  void networkKindsHoldLongEnoughToMatterAndEveryKindComesInAShortNamespaceRun() {
    ChaosConfig cfg = config(3).network(NetworkMode.NAMESPACES).storage(StorageMode.TMPFS).objectStore(true)
        .duration(Duration.ofSeconds(150)).sessionTimeout(Duration.ofSeconds(4)).build();
    FaultPlan plan = FaultPlan.generate(cfg);
    assertThat(plan.faults().stream().map(FaultPlan.Planned::kind).collect(Collectors.toSet()))
        .isEqualTo(EnumSet.allOf(FaultKind.class));
    assertThat(plan.faults()).filteredOn(p -> p.kind() == FaultKind.PRIMARY_PAUSE)
        .allSatisfy(p -> assertThat(p.holdMillis()).isGreaterThan(4_000));
    assertThat(plan.faults()).filteredOn(p -> p.kind() == FaultKind.PARTITION_PRIMARY_ZOOKEEPER)
        .allSatisfy(p -> assertThat(p.holdMillis()).isGreaterThan(4_000));
  }

  /**
   * At a raised fault rate an hour's plan holds at least 100 primary kills, 20 of each partition kind,
   * 50 pauses, and wire faults whose flip probabilities (up to 0.5) and holds make at least 10,000 flips expected
   * at {@link FaultPlan#WIRE_FRAMES_PER_SECOND}; faults stay spaced by at least half a slot (5 s at
   * 720 an hour), and the runner still waits for recovery after each.
   */
  @Test
  @Timeout(30)
  void aRaisedFaultRateGivesAnHourHundredsOfPrimaryKillsPartitionsPausesAndWireFlips() {
    for (boolean everything : new boolean[] {false, true}) {
      for (long seed = 1; seed <= 20; seed++) {
        ChaosConfig cfg = config(seed).network(NetworkMode.NAMESPACES).storage(everything ? StorageMode.TMPFS : StorageMode.PLAIN)
            .objectStore(everything).duration(Duration.ofHours(1)).faultRate(720).wireFlipProbability(0.5).build();
        FaultPlan plan = FaultPlan.generate(cfg);
        String context = "seed=" + seed + ", every kind=" + everything;
        java.util.Map<FaultKind, Long> counts = plan.faults().stream()
            .collect(Collectors.groupingBy(FaultPlan.Planned::kind, Collectors.counting()));
        assertThat(counts.get(FaultKind.PRIMARY_KILL)).as(context).isGreaterThanOrEqualTo(100);
        assertThat(counts.get(FaultKind.PAUSE)).as(context).isGreaterThanOrEqualTo(50);
        for (FaultKind k : FaultKind.values()) {
          if (k.isPartition()) {
            assertThat(counts.get(k)).as(context + ", " + k.key()).isGreaterThanOrEqualTo(20);
          }
        }
        assertThat(plan.expectedWireFlips()).as(context).isGreaterThanOrEqualTo(10_000);
        assertThat(plan.faults()).filteredOn(p -> p.kind() == FaultKind.WIRE)
            .allSatisfy(p -> assertThat(p.flipProbability()).isBetween(0.05, 0.5));
        assertThat(plan.faults()).filteredOn(p -> p.kind() != FaultKind.WIRE)
            .allSatisfy(p -> assertThat(p.flipProbability()).isZero());
        long previous = -1;
        for (FaultPlan.Planned p : plan.faults()) {
          assertThat(p.atMillis() - previous).as(context).isGreaterThanOrEqualTo(2_500);
          previous = p.atMillis();
        }
        assertThat(previous).as(context).isLessThan(3_600_000);
      }
    }
    // The default rate is the one before the setting existed: one fault every 9 s.
    assertThat(FaultPlan.generate(config(42).duration(Duration.ofHours(1)).build()).faults()).hasSize(3590 / 9);
    assertThat(FaultPlan.generate(config(42).duration(Duration.ofHours(1)).build()).expectedWireFlips())
        .as("the default wire setting: flip probabilities 0.02-0.2").isLessThan(10_000);
  }

  @Test
  @Timeout(10)
  void theFaultRateAndWireFlipSettingsNameTheirFieldWhenOutOfBounds() {
    assertThatThrownBy(() -> config(1).faultRate(5).build()).hasMessageContaining("faultRate");
    assertThatThrownBy(() -> config(1).faultRate(5_000).build()).hasMessageContaining("faultRate");
    assertThatThrownBy(() -> config(1).wireFlipProbability(0).build()).hasMessageContaining("wireFlipProbability");
    assertThatThrownBy(() -> config(1).wireFlipProbability(0.9).build()).hasMessageContaining("wireFlipProbability");
    assertThat(config(1).build().faultRate()).isEqualTo(400);
    assertThat(config(1).build().wireFlipProbability()).isEqualTo(0.2);
  }
}

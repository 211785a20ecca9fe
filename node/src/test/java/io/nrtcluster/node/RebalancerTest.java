package io.nrtcluster.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nrtcluster.election.HostRecord;
import io.nrtcluster.election.MemberInfo;
import io.nrtcluster.election.Placement;
import io.nrtcluster.election.PrimaryInfo;
import io.nrtcluster.election.RebalancePlan.IndexView;
import io.nrtcluster.election.Role;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** When the host's rebalancing may move anything, without ZooKeeper; and its settings' bounds. */
@Timeout(30)
class RebalancerTest {
  private static final List<MemberInfo> MEMBERS = List.of(new MemberInfo(1, "h1:1", Role.PRIMARY, 3, 9, 9, false, 0),
      new MemberInfo(2, "h2:1", Role.REPLICA, 3, 9, 9, false, 1));
  private static final PrimaryInfo ONE = new PrimaryInfo(1, "h1:1", 3);
  private static final Placement RECORDS = Placement.of(List.of(HostRecord.of(1, Set.of("a")), HostRecord.of(2, Set.of())));

  private static Rebalancer.Picture picture(Set<Integer> before, IndexView... views) {
    return Rebalancer.picture(RECORDS, before, List.of(views));
  }

  @Test
  void settledWhenEveryIndexHasTheLeaderItsHostsRecordNames() {
    assertThat(picture(Set.of(1, 2), new IndexView("a", ONE, MEMBERS, false, false))).isEqualTo(Rebalancer.Picture.SETTLED);
    assertThat(picture(Set.of(), new IndexView("a", ONE, MEMBERS, false, false))).as("a host that joined").isEqualTo(Rebalancer.Picture.SETTLED);
    assertThat(picture(Set.of(1, 2), new IndexView("a", ONE, MEMBERS, false, true)))
        .as("a hand-off request with the primary in place only keeps that index still").isEqualTo(Rebalancer.Picture.SETTLED);
  }

  @Test
  void aFailoverIsAHostGoneASuspicionOrAnIndexWithoutPrimaryNorHandoff() {
    assertThat(picture(Set.of(1, 2, 3), new IndexView("a", ONE, MEMBERS, false, false))).isEqualTo(Rebalancer.Picture.FAILOVER);
    assertThat(picture(Set.of(1, 2), new IndexView("a", ONE, MEMBERS, true, false))).isEqualTo(Rebalancer.Picture.FAILOVER);
    assertThat(picture(Set.of(1, 2), new IndexView("a", null, MEMBERS, false, false))).isEqualTo(Rebalancer.Picture.FAILOVER);
  }

  @Test
  void inFluxWhileAHandoffEndsOrTheRecordsTrailThePrimaries() {
    assertThat(picture(Set.of(1, 2), new IndexView("a", null, MEMBERS, false, true))).isEqualTo(Rebalancer.Picture.IN_FLUX);
    assertThat(picture(Set.of(1, 2), new IndexView("a", new PrimaryInfo(2, "h2:1", 4), MEMBERS, false, false)))
        .as("node 2 leads a, its record does not say so yet").isEqualTo(Rebalancer.Picture.IN_FLUX);
    assertThat(picture(Set.of(1, 2), new IndexView("b", ONE, MEMBERS, false, false))).isEqualTo(Rebalancer.Picture.IN_FLUX);
  }

  @Test
  void theBuilderChecksTheRebalancingSettingsAndNamesTheField() {
    HostConfig.Builder b = HostConfig.builder().nodeId(1).cluster("c").dataDir(Path.of("x"));
    HostConfig defaults = b.build();
    assertThat(defaults.rebalance()).isTrue();
    assertThat(defaults.maxConcurrentHandoffs()).isEqualTo(HostConfig.DEFAULT_MAX_CONCURRENT_HANDOFFS);
    assertThat(defaults.rebalanceQuietPeriod()).isEqualTo(HostConfig.DEFAULT_REBALANCE_QUIET_PERIOD);
    assertThat(b.rebalance(false).build().rebalance()).isFalse();
    assertThatThrownBy(() -> HostConfig.builder().nodeId(1).cluster("c").dataDir(Path.of("x")).maxConcurrentHandoffs(0).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxConcurrentHandoffs");
    assertThatThrownBy(() -> HostConfig.builder().nodeId(1).cluster("c").dataDir(Path.of("x")).maxConcurrentHandoffs(65).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxConcurrentHandoffs");
    assertThatThrownBy(() -> HostConfig.builder().nodeId(1).cluster("c").dataDir(Path.of("x")).rebalanceQuietPeriod(Duration.ZERO).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("rebalanceQuietPeriod");
    assertThatThrownBy(() -> HostConfig.builder().nodeId(1).cluster("c").dataDir(Path.of("x")).rebalanceQuietPeriod(Duration.ofHours(2)).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("rebalanceQuietPeriod");
  }
}

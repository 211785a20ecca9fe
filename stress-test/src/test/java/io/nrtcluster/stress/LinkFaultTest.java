package io.nrtcluster.stress;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What each network fault kind cuts, for every seed of a range: the shape each kind promises. */
@Timeout(30)
class LinkFaultTest {
  private static final List<String> NODES = List.of("N1", "N2", "N3", "N4");
  private static final List<String> ZK = List.of("zk1", "zk2", "zk3");

  private static LinkFault plan(FaultKind kind, long seed) {
    return LinkFault.plan(kind, "N2", NODES, ZK, new SplittableRandom(seed));
  }

  @Test
  void primaryIsolationsCutOnlyThePrimarysLinksBothWays() {
    for (long seed = 0; seed < 20; seed++) {
      LinkFault zk = plan(FaultKind.PARTITION_PRIMARY_ZOOKEEPER, seed);
      for (String z : ZK) {
        assertThat(zk.reaches("N2", z) || zk.reaches(z, "N2")).as("seed=%d", seed).isFalse();
      }
      assertThat(zk.reaches("N2", "N1") && zk.reaches("N1", "N2") && zk.reaches("N1", "zk1")).isTrue();
      LinkFault replicas = plan(FaultKind.PARTITION_PRIMARY_REPLICAS, seed);
      for (String n : List.of("N1", "N3", "N4")) {
        assertThat(replicas.reaches("N2", n) || replicas.reaches(n, "N2")).as("seed=%d", seed).isFalse();
      }
      assertThat(replicas.reaches("N2", "zk1") && replicas.reaches("N1", "N3")).isTrue();
    }
  }

  @Test
  void halvesAndBridgesSplitEveryHostAndTheBridgeSeesBothSides() {
    for (long seed = 0; seed < 20; seed++) {
      LinkFault halves = plan(FaultKind.PARTITION_HALVES, seed);
      long cutPairs = halves.cuts().size() / 2;
      assertThat(cutPairs).as("seed=%d: 7 hosts split 3 | 4", seed).isEqualTo(12);
      LinkFault bridge = plan(FaultKind.PARTITION_BRIDGE, seed);
      String b = bridge.description().substring(bridge.description().lastIndexOf(' ') + 1);
      assertThat(NODES).contains(b);
      for (String h : List.of("N1", "N2", "N3", "N4", "zk1", "zk2", "zk3")) {
        assertThat(bridge.reaches(b, h) && bridge.reaches(h, b)).as("seed=%d: bridge %s reaches %s", seed, b, h).isTrue();
      }
      assertThat(bridge.cuts()).isNotEmpty();
    }
  }

  @Test
  void aOneWayCutDropsOneDirectionOnlyAndASlowLinkCutsNothing() {
    for (long seed = 0; seed < 20; seed++) {
      LinkFault oneWay = plan(FaultKind.PARTITION_ONE_WAY, seed);
      for (LinkFault.Cut c : oneWay.cuts()) {
        assertThat(oneWay.reaches(c.to(), c.from())).as("seed=%d: %s", seed, c).isTrue();
        assertThat(c.from().equals("N2") || c.to().equals("N2")).isTrue();
      }
      assertThat(oneWay.cuts()).as("the primary and its 3 peers and 3 ZooKeeper servers").hasSize(6);
      LinkFault slow = plan(FaultKind.SLOW_LINK, seed);
      assertThat(slow.cuts()).isEmpty();
      assertThat(slow.slowHost()).isIn(NODES);
      assertThat(slow.rateBitsPerSecond()).isBetween(256L << 10, 2L << 20);
    }
    assertThat(plan(FaultKind.PARTITION_HALVES, 5)).isEqualTo(plan(FaultKind.PARTITION_HALVES, 5));
  }
}

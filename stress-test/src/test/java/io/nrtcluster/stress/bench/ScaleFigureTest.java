package io.nrtcluster.stress.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scale figure at a small scale, end to end (three real node JVMs hosting four indexes each, the
 * run's ZooKeeper server): every part of it comes out in bench.json with its same-run baseline. What it
 * checks is what the figure measured, not how fast: timings and targets belong to {@code bin/nrt bench}.
 */
class ScaleFigureTest {
  @TempDir Path dir;

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void everyPartOfTheScaleFigureIsMeasured() throws Exception {
    Path out = dir.resolve("bench");
    int indexes = 4;
    BenchConfig tiny = new BenchConfig(out, List.of(500), List.of(250), 3, 1, 3, false, 16L << 20, 1, 4_000, 384, false,
        EnumSet.of(BenchFigure.SCALE), BenchConfig.DEFAULT_LINK_DELAY_MS, new ScaleConfig(indexes, 3, 256, 3, 1, 3));
    BenchRun.run(tiny, System.out::println);

    JsonNode f = new ObjectMapper().readTree(out.resolve("bench.json").toFile()).path("figures");
    assertThat(f.has("failover")).as("only the chosen figure").isFalse();
    JsonNode s = f.path("scale");
    assertThat(s.path("indexes").asInt()).isEqualTo(indexes);
    assertThat(s.path("start").path("oneIndexMs").asDouble()).isPositive();
    assertThat(s.path("start").path("allIndexesMs").asDouble()).isPositive();

    JsonNode cost = s.path("perIndex");
    assertThat(cost.path("nodes")).hasSize(3);
    for (JsonNode n : cost.path("nodes")) {
      assertThat(n.path("threadsOneIndex").asInt()).isPositive();
      assertThat(n.path("threadsAllIndexes").asInt()).isPositive();
      assertThat(n.path("heapMiBOneIndex").asDouble()).isPositive();
      assertThat(n.path("heapMiBAllIndexes").asDouble()).isPositive();
      assertThat(n.path("threadGroups").size()).isPositive();
    }

    // Every index has one primary, among the live nodes, after the start and after the kill.
    assertThat(primaries(s.path("electedAtStart"))).isEqualTo(indexes);
    assertThat(primaries(s.path("afterStart").path("placement"))).isEqualTo(indexes);
    JsonNode failover = s.path("massFailover");
    int killed = failover.path("killedNode").asInt();
    for (JsonNode survivors : List.of(s.path("electedAfterFailover"), s.path("afterFailover").path("placement"))) {
      assertThat(survivors.path("primariesPerNode").has(Integer.toString(killed))).isFalse();
      assertThat(primaries(survivors)).isEqualTo(indexes);
    }
    assertThat(failover.path("primariesOnKilledNode").asInt()).isPositive();
    assertThat(failover.path("notWritable").asInt()).isZero();
    assertThat(failover.path("toWritableMs").path("n").asInt()).isEqualTo(failover.path("primariesOnKilledNode").asInt());
    assertThat(failover.path("allWritableMs").asDouble()).isPositive();
    assertThat(failover.path("oneIndexMs").path("n").asInt()).isEqualTo(1);
    assertThat(failover.path("oneIndexMs").path("p50").asDouble()).isPositive();
    // The failover's elections are ZooKeeper transactions too (epoch claims at least).
    assertThat(s.path("zooKeeperFailover").path("byKind").path("epoch setData").asLong()).isPositive();

    JsonNode rebalance = s.path("rebalance");
    assertThat(rebalance.path("toEndMs").asDouble()).isPositive();
    // Caught up, or saying which index did not (a replica stuck behind is the nodes' fault, not the figure's).
    assertThat(rebalance.path("toCaughtUpMs").asDouble() > 0 || rebalance.path("notCaughtUp").asText().contains("s00"))
        .as(rebalance.toString()).isTrue();
    assertThat(rebalance.path("endedBy").asText()).isIn("within one", "quiet", "quiet, not caught up");
    assertThat(primaries(rebalance.path("placement"))).isEqualTo(indexes);
    assertThat(rebalance.path("placement").path("primariesPerNode")).hasSize(3);

    // ZooKeeper: each version is one publication, and every write of the window is classified.
    JsonNode zk = s.path("zooKeeperLoaded");
    assertThat(zk.path("publications").asLong()).isPositive();
    assertThat(zk.path("publicationsPerVersion").asDouble()).isEqualTo(1.0);
    assertThat(zk.path("refreshes").asLong()).isPositive();
    assertThat(zk.path("refreshMs").path("n").asLong()).isEqualTo(zk.path("refreshes").asLong());
    assertThat(zk.path("perSecAtTargetRate").asDouble()).isPositive();
    assertThat(zk.path("nodesCpuCores").asDouble()).isPositive();
    assertThat(s.path("drainMs").asDouble() >= 0 || s.path("behindAfterLoad").asText().contains("s00"))
        .as("replicas caught up after the load, or the figure says which did not").isTrue();
    assertThat(zk.path("memberUpdates").asLong()).isPositive();
    long classified = 0;
    for (JsonNode count : zk.path("byKind")) {
      classified += count.asLong();
    }
    assertThat(classified).isEqualTo(zk.path("transactions").asLong());
    assertThat(zk.path("transactions").asLong())
        .isEqualTo(zk.path("publications").asLong() + zk.path("memberUpdates").asLong() + zk.path("other").asLong());
    assertThat(s.path("zooKeeperIdle").path("publications").asLong()).isZero();
    assertThat(s.path("zooKeeperCapacityWritesPerSec").asDouble()).isPositive();
  }

  private static int primaries(JsonNode placement) {
    int sum = 0;
    for (JsonNode n : placement.path("primariesPerNode")) {
      sum += n.asInt();
    }
    return sum;
  }
}

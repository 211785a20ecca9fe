package io.nrtcluster.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.nrtcluster.election.Role;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The in-JVM harness's scenario API does what its names say, on a real three-node cluster. */
@Timeout(120)
class ClusterHarnessTest {
  @TempDir Path dir;

  @Test
  void startAwaitPrimaryIndexCompareHitsHaltAndRestart() throws Exception {
    long seed = FailoverTest.seed();
    try (ClusterHarness c = new ClusterHarness(dir, seed, 3).startWithFirstAsPrimary()) {
      assertThat(c.awaitPrimary()).isZero();
      assertThat(c.primary()).isSameAs(c.node(0));
      assertThat(c.replicas()).containsExactly(c.node(1), c.node(2));
      assertThat(WritablePrimary.find(c.nodes(ClusterHarness.INDEX))).isZero();

      c.addDocs(50);
      ClusterHarness.View first = c.assertSameHits(c.refresh());
      assertThat(first.counts().get(0)).as("seed %d", seed).isEqualTo(50);

      c.awaitInSync();
      c.halt(0);
      assertThat(c.isUp(0)).isFalse();
      assertThat(c.node(0)).isNull();
      int p = c.awaitPrimary();
      assertThat(p).as("seed %d", seed).isIn(1, 2);
      assertThat(WritablePrimary.describe(c.nodes(ClusterHarness.INDEX)))
          .startsWith("N1 down").contains("N" + (p + 1) + " PRIMARY writable");

      c.start(0);
      c.addDocs(10);
      ClusterHarness.View second = c.assertSameHits(c.refresh("ten-more"));
      assertThat(second.counts().get(0)).as("seed %d", seed).isEqualTo(60);
      assertThat(c.node(0).role()).isEqualTo(Role.REPLICA);

      int replica = p == 1 ? 2 : 1;
      c.restart(replica);
      assertThat(c.awaitPrimary()).isEqualTo(p);
      assertThat(c.assertSameHits(c.node(p).searchingVersion())).isEqualTo(second);
      assertThat(c.node(replica).replayPosition()).isEqualTo("ten-more");
    }
  }
}

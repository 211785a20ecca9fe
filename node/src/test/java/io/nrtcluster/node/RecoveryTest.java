package io.nrtcluster.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.common.NotPrimaryException;
import io.nrtcluster.common.QuietPorts;
import io.nrtcluster.election.Role;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.zookeeper.util.ServiceUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(180)
class RecoveryTest {
  @TempDir Path dir;

  @Test
  void theOldPrimaryReturnsAsAReplicaWithExactlyTheNewPrimarysDocuments() throws Exception {
    long seed = FailoverTest.seed();
    try (ClusterHarness c = new ClusterHarness(dir, seed, 3, List.of(ClusterHarness.INDEX)).startWithFirstAsPrimary()) {
      ClusterNode old = c.node(0);
      c.addDocs(old, 100);
      long v = old.refresh();
      c.awaitAllAt(v);
      c.awaitInSync();
      // Committed on the old primary but never replicated: must vanish when it returns.
      c.addDocs(old, 50);
      old.commit();
      c.kill(0);

      int np = c.awaitPrimary();
      ClusterNode primary = c.node(np);
      c.addDocs(primary, 30);
      long v2 = primary.refresh();
      c.awaitAllAt(v2);

      c.start(0);
      ClusterNode back = c.node(0);
      await().atMost(Duration.ofSeconds(60)).until(() -> back.role() == Role.REPLICA && back.searchingVersion() >= v2);
      assertThat(ClusterHarness.count(back)).as("seed %d", seed).isEqualTo(130).isEqualTo(ClusterHarness.count(primary));
      assertThat(back.primaryGen()).isEqualTo(primary.primaryGen());
    }
  }

  @Test
  void aWholeClusterRestartElectsTheNodeWithTheMostRecentCommit() throws Exception {
    long seed = FailoverTest.seed();
    try (ClusterHarness c = new ClusterHarness(dir, seed, 3, List.of(ClusterHarness.INDEX)).startWithFirstAsPrimary()) {
      ClusterNode primary = c.node(0);
      c.addDocs(primary, 100);
      long v1 = primary.refresh();
      c.awaitAllAt(v1);
      primary.commit();
      c.node(2).commit();
      c.addDocs(primary, 100);
      long v2 = primary.refresh();
      c.awaitAllAt(v2);
      c.node(1).commit(); // only N2 commits the newest point
      for (int i = 0; i < 3; i++) {
        c.kill(i);
      }
      for (int i = 0; i < 3; i++) {
        c.start(i);
      }
      assertThat(c.awaitPrimary()).as("seed %d: N2 holds the most recent commit", seed).isEqualTo(1);
      ClusterNode np = c.node(1);
      assertThat(ClusterHarness.count(np)).isEqualTo(200);
      assertThat(np.searchingVersion()).isGreaterThan(v2);
      c.awaitAllAt(np.searchingVersion());
      for (int i = 0; i < 3; i++) {
        assertThat(ClusterHarness.count(c.node(i))).as("N%d", i + 1).isEqualTo(200);
      }
    }
  }

  @Test
  void twoIndexesInOneProcessFailOverIndependently() throws Exception {
    long seed = FailoverTest.seed();
    try (ClusterHarness c = new ClusterHarness(dir, seed, 3, List.of("a", "b")).startAll()) {
      int pa = c.awaitPrimary("a", Duration.ofSeconds(30));
      int pb = c.awaitPrimary("b", Duration.ofSeconds(30));
      long genB = c.node(pb, "b").primaryGen();
      c.addDocs(c.node(pa, "a"), 10);
      c.addDocs(c.node(pb, "b"), 20);
      c.awaitAllAt("a", c.node(pa, "a").refresh(), Duration.ofSeconds(30));
      c.awaitAllAt("b", c.node(pb, "b").refresh(), Duration.ofSeconds(30));

      // Index "a" leaves its primary host; "b" must not notice.
      c.node(pa, "a").close();
      await().atMost(Duration.ofSeconds(30)).until(() -> {
        for (int i = 0; i < 3; i++) {
          ClusterNode n = c.node(i, "a");
          if (i != pa && n != null && n.isWritablePrimary()) {
            return true;
          }
        }
        return false;
      });
      assertThat(c.node(pb, "b").isWritablePrimary()).isTrue();
      assertThat(c.node(pb, "b").primaryGen()).isEqualTo(genB);
      for (int i = 0; i < 3; i++) {
        ClusterNode a = c.node(i, "a");
        if (a != null) {
          assertThat(ClusterHarness.count(a)).isEqualTo(10);
        }
        assertThat(ClusterHarness.count(c.node(i, "b"))).isEqualTo(20);
      }
    }
  }

  @Test
  void aZooKeeperServerOfAnEnsembleDyingAndReturningCausesNoFailover() throws Exception {
    long seed = FailoverTest.seed();
    // Ports below the ephemeral range (a restarted server rebinds its own), and a peer that still
    // cannot bind fails this test instead of ending the test JVM with System.exit(14).
    ServiceUtils.setSystemExitProcedure(ServiceUtils.LOG_ONLY);
    List<Integer> ports = QuietPorts.take(9);
    List<InstanceSpec> specs = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      specs.add(new InstanceSpec(null, ports.get(3 * i), ports.get(3 * i + 1), ports.get(3 * i + 2), true, i + 1));
    }
    try (TestingCluster ensemble = new TestingCluster(specs)) {
      ensemble.start();
      // A session timeout long enough for the ensemble to elect a new leader when its leader dies.
      try (ClusterHarness c = new ClusterHarness(dir, seed, 3, List.of(ClusterHarness.INDEX), ensemble.getConnectString())
          .sessionTimeout(Duration.ofSeconds(15)).startAll()) {
        int p = c.awaitPrimary();
        ClusterNode primary = c.node(p);
        long gen = primary.primaryGen();
        c.addDocs(primary, 10);
        c.awaitAllAt(primary.refresh());

        int round = 0;
        for (InstanceSpec server : ensemble.getInstances()) {
          ensemble.killServer(server);
          // Clients on the dead server move to another within the session timeout; writes may be
          // refused (fenced) meanwhile, so they are idempotent upserts retried until they land.
          int first = 1000 * ++round;
          long[] version = {-1};
          await().atMost(Duration.ofSeconds(60)).ignoreException(NotPrimaryException.class).until(() -> {
            for (int id = first; id < first + 10; id++) {
              primary.updateDocument(ClusterHarness.idTerm(id), c.doc(id));
            }
            version[0] = primary.refresh();
            return true;
          });
          c.awaitAllAt(version[0]);
          ensemble.restartServer(server);
        }
        assertThat(c.awaitPrimary()).as("seed %d: still the same primary", seed).isEqualTo(p);
        assertThat(primary.primaryGen()).as("no new epoch").isEqualTo(gen);
        for (int i = 0; i < 3; i++) {
          assertThat(ClusterHarness.count(c.node(i))).isEqualTo(40);
        }
      }
    }
  }
}

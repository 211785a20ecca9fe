package io.nrtcluster.stress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.election.Role;
import io.nrtcluster.node.ClusterAdmin;
import io.nrtcluster.stress.agent.AgentApi;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node-process harness on two real chaos node JVMs: the first started alone is the primary, by
 * its own word and by ZooKeeper's; roles, versions and a failover are waited for with bounds.
 */
class ProcessClusterTest {
  private static final String CLUSTER = "pc";
  private static final String INDEX = "docs";
  private static final Duration WAIT = Duration.ofSeconds(60);
  @TempDir Path dir;

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void theFirstStartedAloneLeadsRolesAndVersionsAreAwaitedAndAFailoverIsFollowed() throws Exception {
    try (TestingServer zk = new TestingServer(true);
        ClusterAdmin admin = ClusterAdmin.connect(zk.getConnectString(), Duration.ofSeconds(30))) {
      List<NodeProcess> nodes = new ArrayList<>();
      for (int id = 1; id <= 2; id++) {
        Path nodeDir = dir.resolve("node-" + id);
        nodes.add(new NodeProcess(id, nodeDir, NodeProcess.command(id, nodeDir, zk.getConnectString(), CLUSTER, INDEX,
            4_000, id, 256, 0, 0, "127.0.0.1")));
      }
      ProcessCluster self = new ProcessCluster(nodes, Duration.ofSeconds(90));
      ProcessCluster byZooKeeper = new ProcessCluster(nodes, Duration.ofSeconds(90)).primaryLocator(c -> {
        try {
          int id = admin.status(CLUSTER, INDEX).primaryNodeId();
          return id > 0 ? c.node(id) : null;
        } catch (NrtClusterException e) {
          return null;
        }
      });
      try {
        self.startWithFirstAsPrimary().awaitRoles(WAIT);
        NodeProcess n1 = self.node(1);
        NodeProcess n2 = self.node(2);
        assertThat(self.primary()).isSameAs(n1);
        assertThat(byZooKeeper.awaitPrimary(WAIT)).isSameAs(n1);
        assertThat(self.replicasOf(n1)).containsExactly(n2);
        assertThat(ProcessCluster.status(n2).role()).isEqualTo(Role.REPLICA);

        n1.client().write(List.of(new AgentApi.Op(1, AgentApi.Kind.UPSERT, "a", "alpha")));
        long v = n1.client().refresh(1).version();
        self.awaitAllAt(v, WAIT);
        assertThat(ProcessCluster.status(n2).version()).isGreaterThanOrEqualTo(v);

        n1.kill();
        assertThat(ProcessCluster.status(n1)).as("a node that is down has no status").isNull();
        assertThat(self.awaitPrimary(WAIT)).isSameAs(n2);
        assertThat(byZooKeeper.awaitPrimary(WAIT)).isSameAs(n2);
        assertThat(self.replicasOf(n2)).isEmpty();

        long start = System.nanoTime();
        assertThatThrownBy(() -> ProcessCluster.awaitRole(n1, Role.REPLICA, Duration.ofMillis(300)))
            .isInstanceOf(IOException.class).hasMessageContaining("N1 REPLICA");
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("bounded").isLessThan(10_000);

        self.start(n1);
        ProcessCluster.awaitRole(n1, Role.REPLICA, WAIT);
        self.awaitRoles(WAIT);
        assertThat(self.primary()).isSameAs(n2);
      } finally {
        self.killAll();
      }
    }
  }
}

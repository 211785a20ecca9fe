package io.nrtcluster.stress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.election.EmbeddedZooKeeper;
import io.nrtcluster.election.Role;
import io.nrtcluster.node.ClusterAdmin;
import io.nrtcluster.node.IndexStatus;
import io.nrtcluster.node.MemberStatus;
import io.nrtcluster.stress.agent.AgentApi;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Failover on the replicas' evidence, with real node JVMs: a primary that is killed ({@code kill
 * -9}) or paused ({@code SIGSTOP}) is replaced while its ZooKeeper session is still alive (a 30 s
 * session, so its member znode is still listed when the new primary acknowledges its first write:
 * the order of events is asserted, never a time), and a paused primary that wakes is fenced: it
 * acknowledges nothing, steps down, and what it was sent after waking is in no node's index.
 */
class EvidenceFailoverProcessTest {
  private static final String CLUSTER = "ef";
  private static final String INDEX = "docs";
  private static final long SESSION_MS = 30_000;
  private static final Duration WAIT = Duration.ofSeconds(90);
  /** Well under the session: a failover that waits for the session's expiry fails here, not by a time assertion. */
  private static final Duration BEFORE_EXPIRY = Duration.ofSeconds(25);
  @TempDir Path dir;

  private final AtomicLong seq = new AtomicLong();

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void aKilledPrimaryIsReplacedWhileItsSessionStillLives() throws Exception {
    try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(dir.resolve("zk"), 0);
        ClusterAdmin admin = ClusterAdmin.connect(zk.connectString(), Duration.ofSeconds(30))) {
      ProcessCluster cluster = cluster(zk, 3);
      try {
        NodeProcess old = startWithOneDocument(cluster);

        old.kill();
        NodeProcess next = awaitAcknowledgingPrimary(cluster, old);
        assertThat(memberIds(admin)).as("the killed primary's session still lives: its member znode is listed")
            .contains(old.id());
        assertThat(admin.status(CLUSTER, INDEX).primaryNodeId()).isEqualTo(next.id());

        cluster.start(old);
        ProcessCluster.awaitRole(old, Role.REPLICA, WAIT);
        long v = writeAndRefresh(next, "after");
        cluster.awaitAllAt(v, WAIT);
        assertThat(count(old, "before")).isEqualTo(1);
        assertThat(count(old, "after")).isEqualTo(1);
      } finally {
        cluster.killAll();
      }
    }
  }

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void aPausedPrimaryIsReplacedAndWakesFencedAcknowledgingNothing() throws Exception {
    try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(dir.resolve("zk"), 0);
        ClusterAdmin admin = ClusterAdmin.connect(zk.connectString(), Duration.ofSeconds(30))) {
      ProcessCluster cluster = cluster(zk, 3);
      try {
        NodeProcess old = startWithOneDocument(cluster);
        long oldGen = ProcessCluster.status(old).gen();

        old.pause();
        NodeProcess next = awaitAcknowledgingPrimary(cluster, old);
        assertThat(memberIds(admin)).as("the paused primary's session still lives: its member znode is listed")
            .contains(old.id());
        assertThat(ProcessCluster.status(next).gen()).isGreaterThan(oldGen);

        old.resume();
        // At once after waking it may still think it leads; whatever it was sent must not be acknowledged.
        assertThatThrownBy(() -> writeAndRefresh(old, "stale")).isInstanceOf(AgentException.class);
        ProcessCluster.awaitRole(old, Role.REPLICA, WAIT);
        assertThatThrownBy(() -> writeAndRefresh(old, "stale")).isInstanceOf(AgentException.class);

        long v = writeAndRefresh(next, "after");
        cluster.awaitAllAt(v, WAIT);
        for (NodeProcess n : cluster.nodes()) {
          assertThat(count(n, "stale")).as("N%d keeps nothing the woken primary was sent", n.id()).isZero();
          assertThat(count(n, "before")).as("N%d", n.id()).isEqualTo(1);
          assertThat(count(n, "after")).as("N%d", n.id()).isEqualTo(1);
        }
      } finally {
        cluster.killAll();
      }
    }
  }

  private ProcessCluster cluster(EmbeddedZooKeeper zk, int size) {
    List<NodeProcess> nodes = new ArrayList<>();
    for (int id = 1; id <= size; id++) {
      Path nodeDir = dir.resolve("node-" + id);
      nodes.add(new NodeProcess(id, nodeDir, NodeProcess.command(id, nodeDir, zk.connectString(), CLUSTER, INDEX,
          SESSION_MS, id, 256, 0, 0, "127.0.0.1")));
    }
    return new ProcessCluster(nodes, Duration.ofSeconds(90));
  }

  /** Starts the cluster with node 1 as its primary and one document ("before") on every node; returns node 1. */
  private NodeProcess startWithOneDocument(ProcessCluster cluster) throws Exception {
    cluster.startWithFirstAsPrimary().awaitRoles(WAIT);
    NodeProcess primary = cluster.node(1);
    cluster.awaitAllAt(writeAndRefresh(primary, "before"), WAIT);
    return primary;
  }

  /** One document whose body is {@code word}, made visible: acknowledged only if the refresh is published. */
  private long writeAndRefresh(NodeProcess n, String word) throws AgentException {
    long s = seq.incrementAndGet();
    n.client().write(List.of(new AgentApi.Op(s, AgentApi.Kind.UPSERT, word + "-" + s, word)));
    return n.client().refresh(s).version();
  }

  /** The first node other than {@code old} that acknowledges a write, polled until {@link #BEFORE_EXPIRY}. */
  private NodeProcess awaitAcknowledgingPrimary(ProcessCluster cluster, NodeProcess old) {
    AtomicReference<NodeProcess> next = new AtomicReference<>();
    await().atMost(BEFORE_EXPIRY).pollInterval(Duration.ofMillis(50)).until(() -> {
      for (NodeProcess p : cluster.nodes()) {
        if (p != old && p.state() == NodeProcess.State.UP) {
          try {
            writeAndRefresh(p, "first");
            next.set(p);
            return true;
          } catch (AgentException e) {
            // not the primary (yet)
          }
        }
      }
      return false;
    });
    return next.get();
  }

  private static List<Integer> memberIds(ClusterAdmin admin) throws NrtClusterException {
    IndexStatus s = admin.status(CLUSTER, INDEX);
    return s.members().stream().map(MemberStatus::nodeId).toList();
  }

  private static int count(NodeProcess n, String word) throws AgentException {
    return n.client().search(word).hits();
  }
}

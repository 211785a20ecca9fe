package io.nrtcluster.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.common.AdminException;
import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.NrtClusterException;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/** Operator requests between a tool ({@link OperatorRequests}) and nodes ({@link OperatorRequestWatch}), over a real ZooKeeper. */
@Timeout(120)
class OperatorRequestsTest {
  private static final ZkLayout LAYOUT = ZkLayout.of("ops", "docs");
  private static final Duration WAIT = Duration.ofSeconds(20);

  private TestingServer zk;
  private final List<AutoCloseable> open = new ArrayList<>();

  /** Records what one node was asked to do, and answers as told. */
  static final class Recorder implements OperatorHandler {
    final List<String> done = new CopyOnWriteArrayList<>();
    final List<String> threads = new CopyOnWriteArrayList<>();
    volatile boolean primary;
    volatile CommandAck answer = CommandAck.ok(7);
    volatile long finalVersion = 42;

    @Override
    public boolean acceptsHandoff(Handoff request) {
      return primary;
    }

    @Override
    public Handoff runHandoff(Handoff request) {
      done.add("handoff " + request.target());
      threads.add(Thread.currentThread().getName());
      return request.with(Handoff.Status.HANDED_OFF, finalVersion, null);
    }

    @Override
    public CommandAck execute(OperatorCommand command) {
      done.add(command.kind() + " " + command.target());
      threads.add(Thread.currentThread().getName());
      return answer;
    }
  }

  @BeforeEach
  void startZk() throws Exception {
    zk = new TestingServer(true);
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : open.reversed()) {
      c.close();
    }
    zk.close();
  }

  private ZooKeeperSession session() throws Exception {
    ZooKeeperSession s = ZooKeeperSession.builder().connectString(zk.getConnectString())
        .sessionTimeout(Duration.ofSeconds(4)).connectionTimeout(Duration.ofSeconds(5)).maxRetries(3).connect();
    open.add(s);
    return s;
  }

  private OperatorRequestWatch node(int nodeId, Recorder handler) throws Exception {
    return node(nodeId, handler, OperatorRequestWatch.SEEN_CAPACITY);
  }

  private OperatorRequestWatch node(int nodeId, Recorder handler, int seenCapacity) throws Exception {
    NodeLog log = new NodeLog(LoggerFactory.getLogger(OperatorRequestsTest.class), "N" + nodeId, () -> -1);
    OperatorRequestWatch w = new OperatorRequestWatch(session(), LAYOUT, nodeId, handler, log, seenCapacity);
    w.start();
    open.add(w);
    return w;
  }

  @Test
  void aCommandIsCarriedOutOnlyByTheNodesItAddressesAndEachAnswersWithATypedAck() throws Exception {
    Recorder n1 = new Recorder();
    Recorder n2 = new Recorder();
    n2.answer = CommandAck.failed("disk full");
    node(1, n1);
    node(2, n2);
    OperatorRequests tool = new OperatorRequests(session(), LAYOUT);

    String one = tool.send(OperatorCommand.commit(1));
    Map<Integer, CommandAck> acks = tool.awaitAcks(one, List.of(1), WAIT);
    assertThat(acks).containsExactly(Map.entry(1, CommandAck.ok(7)));
    tool.withdraw(one);

    String all = tool.send(OperatorCommand.commitAll());
    acks = tool.awaitAcks(all, List.of(1, 2), WAIT);
    assertThat(acks).containsOnly(Map.entry(1, CommandAck.ok(7)), Map.entry(2, CommandAck.failed("disk full")));
    assertThat(acks.get(2).status()).isEqualTo(CommandAck.Status.FAILED);
    assertThat(acks.get(2).toString()).isEqualTo("error disk full");
    assertThat(acks.get(1).toString()).isEqualTo("ok 7");
    tool.withdraw(all);

    assertThat(n1.done).containsExactly("COMMIT 1", "COMMIT -1");
    assertThat(n2.done).as("a command for node 1 only is not node 2's").containsExactly("COMMIT -1");
    assertThat(n1.threads).allMatch(t -> t.startsWith("nrt-operator-1-docs"));
  }

  @Test
  void aNodeThatDoesNotAnswerIsMissingFromTheAcksAfterTheTimeout() throws Exception {
    node(1, new Recorder());
    OperatorRequests tool = new OperatorRequests(session(), LAYOUT);
    String id = tool.send(OperatorCommand.commitAll());
    long start = System.nanoTime();
    Map<Integer, CommandAck> acks = tool.awaitAcks(id, List.of(1, 9), Duration.ofMillis(1500));
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(1400));
    assertThat(acks).containsOnlyKeys(1);
    tool.withdraw(id);
  }

  @Test
  void aCommandWrittenBeforeANodeWatchesIsCarriedOutOnceEvenAcrossARestart() throws Exception {
    Recorder first = new Recorder();
    OperatorRequestWatch w = node(1, first);
    w.close();
    OperatorRequests tool = new OperatorRequests(session(), LAYOUT);
    String id = tool.send(OperatorCommand.commit(1));

    Recorder second = new Recorder();
    OperatorRequestWatch restarted = node(1, second);
    assertThat(tool.awaitAcks(id, List.of(1), WAIT)).containsOnlyKeys(1);
    assertThat(second.done).containsExactly("COMMIT 1");
    restarted.close();

    Recorder third = new Recorder();
    node(1, third);
    String marker = tool.send(OperatorCommand.commit(1));
    tool.awaitAcks(marker, List.of(1), WAIT);
    assertThat(third.done).as("the answered command is not run again, the new one is").containsExactly("COMMIT 1");
    assertThat(second.done).hasSize(1);
    assertThat(first.done).isEmpty();
  }

  @Test
  void aHandOffIsRunByThePrimaryAndItsOutcomeReachesTheTool() throws Exception {
    Recorder primary = new Recorder();
    primary.primary = true;
    Recorder replica = new Recorder();
    node(1, primary);
    node(2, replica);
    OperatorRequests tool = new OperatorRequests(session(), LAYOUT);

    Handoff request = new Handoff("r-1", 2, 5000, Handoff.Status.REQUESTED, -1, "");
    tool.requestHandoff(request);
    assertThatThrownBy(() -> tool.requestHandoff(new Handoff("r-2", 2, 5000, Handoff.Status.REQUESTED, -1, "")))
        .isInstanceOfSatisfying(AdminException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.REFUSED));
    Handoff outcome = tool.awaitHandoff("r-1", WAIT);
    assertThat(outcome.status()).isEqualTo(Handoff.Status.HANDED_OFF);
    assertThat(outcome.finalVersion()).isEqualTo(42);
    assertThat(primary.done).containsExactly("handoff 2");
    assertThat(replica.done).isEmpty();

    tool.withdrawHandoff();
    assertThatThrownBy(() -> tool.awaitHandoff("r-1", WAIT))
        .isInstanceOfSatisfying(AdminException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.PROMOTION_FAILED));
    tool.withdrawHandoff();
  }

  @Test
  void aDesignatedSuccessorIsWhatTheElectionReads() throws Exception {
    ZooKeeperSession s = session();
    OperatorRequests tool = new OperatorRequests(s, LAYOUT);
    s.curator().create().creatingParentsIfNeeded().forPath(LAYOUT.indexPath());
    tool.designateSuccessor(3);
    tool.designateSuccessor(4);
    await().atMost(WAIT).until(() -> new String(s.curator().getData().forPath(LAYOUT.successor())).equals("4"));
  }

  @Test
  void aNodeForgetsTheCommandsOperatorsWithdrew() throws Exception {
    Recorder n1 = new Recorder();
    OperatorRequestWatch w = node(1, n1);
    OperatorRequests tool = new OperatorRequests(session(), LAYOUT);
    for (int i = 0; i < 30; i++) {
      String id = tool.send(i % 2 == 0 ? OperatorCommand.commitAll() : OperatorCommand.commit(1));
      assertThat(tool.awaitAcks(id, List.of(1), WAIT)).containsOnlyKeys(1);
      tool.withdraw(id);
    }
    assertThat(n1.done).hasSize(30);
    await().atMost(WAIT).untilAsserted(() -> assertThat(w.rememberedCommands()).isZero());
  }

  @Test
  void whatANodeRemembersIsBoundedAndForgettingNeverRunsACommandTwice() throws Exception {
    Recorder n1 = new Recorder();
    OperatorRequestWatch w = node(1, n1, 4);
    OperatorRequests tool = new OperatorRequests(session(), LAYOUT);
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      String id = tool.send(OperatorCommand.commit(1));
      ids.add(id);
      assertThat(tool.awaitAcks(id, List.of(1), WAIT)).containsOnlyKeys(1);
      assertThat(w.rememberedCommands()).isLessThanOrEqualTo(4);
    }
    // A new session re-reads every command, forgotten ones included: they are answered, so not run again.
    Recorder again = new Recorder();
    w.close();
    OperatorRequestWatch restarted = node(1, again, 4);
    String marker = tool.send(OperatorCommand.commit(1));
    assertThat(tool.awaitAcks(marker, List.of(1), WAIT)).containsOnlyKeys(1);
    assertThat(again.done).containsExactly("COMMIT 1");
    assertThat(n1.done).hasSize(12);
    assertThat(restarted.rememberedCommands()).isLessThanOrEqualTo(4);
  }

  /**
   * Requests the server received from {@code s}'s connection so far (its pings included), as
   * ZooKeeper's own per-connection MBean counts them: failed reads count too.
   */
  private long requestsFrom(ZooKeeperSession s) throws Exception {
    String session = "0x" + Long.toHexString(s.curator().getZookeeperClient().getZooKeeper().getSessionId());
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    for (ObjectName name : server.queryNames(new ObjectName("org.apache.ZooKeeperService:*"), null)) {
      if (session.equals(name.getKeyProperty("name3")) && ("StandaloneServer_port" + zk.getPort()).equals(name.getKeyProperty("name0"))) {
        return ((Number) server.getAttribute(name, "PacketsReceived")).longValue();
      }
    }
    throw new AssertionError("no connection MBean for session " + session);
  }

  @Test
  void waitingForAnswersReadsZooKeeperWhenSomethingChangedNotOnAClock() throws Exception {
    node(1, new Recorder());
    ZooKeeperSession s = session();
    OperatorRequests tool = new OperatorRequests(s, LAYOUT);
    String id = tool.send(OperatorCommand.commitAll());
    long before = requestsFrom(s);
    Map<Integer, CommandAck> acks = tool.awaitAcks(id, List.of(1, 9), Duration.ofSeconds(2));
    assertThat(acks).containsOnlyKeys(1);
    // A 50 ms poll sends about 40 reads in 2 s; a watch reads once per change (node 1's ack), plus
    // the session's pings (one every ~1.3 s at a 4 s session timeout).
    assertThat(requestsFrom(s) - before).as("requests while waiting").isLessThanOrEqualTo(10);
    tool.withdraw(id);
  }

  @Test
  void waitingForAPrimaryWatchesItsZnode() throws Exception {
    ZooKeeperSession s = session();
    s.curator().create().creatingParentsIfNeeded().forPath(LAYOUT.indexPath());
    long before = requestsFrom(s);
    assertThat(ClusterView.awaitPrimary(s, LAYOUT, p -> true, Duration.ofSeconds(2))).isEmpty();
    assertThat(requestsFrom(s) - before).as("requests while waiting for no primary").isLessThanOrEqualTo(10);

    ZooKeeperSession other = session();
    CompletableFuture<Optional<PrimaryInfo>> waiting = CompletableFuture.supplyAsync(() -> {
      try {
        return ClusterView.awaitPrimary(s, LAYOUT, p -> p.primaryGen() == 2, WAIT);
      } catch (NrtClusterException e) {
        throw new CompletionException(e);
      }
    });
    other.curator().create().forPath(LAYOUT.primary(), new PrimaryInfo(1, "127.0.0.1:9001", 1).encode());
    other.curator().setData().forPath(LAYOUT.primary(), new PrimaryInfo(2, "127.0.0.1:9002", 2).encode());
    assertThat(waiting.get(30, TimeUnit.SECONDS)).contains(new PrimaryInfo(2, "127.0.0.1:9002", 2));
    assertThat(ClusterView.awaitPrimary(s, LAYOUT, p -> p.nodeId() == 1, Duration.ofMillis(300))).isEmpty();
  }
}

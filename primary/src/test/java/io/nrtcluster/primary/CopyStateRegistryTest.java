package io.nrtcluster.primary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.transport.Connection;
import io.nrtcluster.transport.Endpoint;
import io.nrtcluster.transport.Message;
import io.nrtcluster.transport.PeerRole;
import io.nrtcluster.transport.Transport;
import io.nrtcluster.transport.TransportServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.replicator.nrt.CopyState;
import org.apache.lucene.search.SearcherFactory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * {@link CopyStateRegistry} on a real Lucene primary node: the per-connection limit, that each
 * copy-state is released exactly once (by id, by its connection, or all at once), and that a held
 * copy-state really pins its files on disk. Its owners are real connections on loopback, because a
 * connection's identity and liveness are what the registry keys on.
 */
@Timeout(60)
class CopyStateRegistryTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir Path dir;

  private Transport server;
  private Transport clients;
  private TransportServer bound;
  private ReplicatingPrimaryNode node;
  private CopyStateRegistry registry;
  private int docs;
  /** The primary's side of the newest connection of each replica id, as leases see them. */
  private final Map<Integer, Connection> serverSide = new ConcurrentHashMap<>();

  @BeforeEach
  void start() throws Exception {
    NodeLog log = new NodeLog(LoggerFactory.getLogger(CopyStateRegistryTest.class), "P1", () -> 1);
    IndexWriter writer = new IndexWriter(FSDirectory.open(dir.resolve("index")),
        new IndexWriterConfig(new StandardAnalyzer()).setCommitOnClose(false));
    node = new ReplicatingPrimaryNode(writer, 1, 1, -1, new SearcherFactory(), log, null);
    registry = new CopyStateRegistry(node, log);
    server = Transport.create("P1", FakeReplica.transportConfig());
    clients = Transport.create("clients", FakeReplica.transportConfig());
    bound = server.bind("127.0.0.1", 0, FakeReplica.CLUSTER);
    bound.register(FakeReplica.INDEX, new Endpoint() {
      @Override
      public int nodeId() {
        return 1;
      }

      @Override
      public long primaryGeneration() {
        return 1;
      }

      @Override
      public PeerRole role() {
        return PeerRole.PRIMARY;
      }

      @Override
      public void onRequest(Connection c, Message request) {
        serverSide.put(c.peerNodeId(), c);
        c.reply(new Message.Ack(request.requestId()));
      }
    });
    refreshWithNewSegment();
  }

  @AfterEach
  void stop() throws Exception {
    if (registry != null) {
      registry.releaseAll();
    }
    if (node != null) {
      node.close();
    }
    if (clients != null) {
      clients.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private Connection connection(int nodeId) throws Exception {
    return clients.connect(bound.localAddress(), FakeReplica.CLUSTER, FakeReplica.INDEX, nodeId, PeerRole.REPLICA, (c, m) -> {})
        .get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  private void refreshWithNewSegment() throws IOException {
    Document doc = new Document();
    doc.add(new StringField("id", Integer.toString(docs++), Field.Store.YES));
    node.writer().addDocument(doc);
    node.flushAndRefresh();
  }

  private static void assertTooMany(ThrowingAcquire acquire) {
    assertThatThrownBy(acquire::run).isInstanceOfSatisfying(NrtClusterException.class,
        e -> assertThat(e.code()).isEqualTo(ErrorCode.TOO_MANY_REQUESTS));
  }

  @FunctionalInterface
  private interface ThrowingAcquire {
    void run() throws Exception;
  }

  @Test
  void oneConnectionHoldsAtMostTheLimitAndAReleaseMakesRoomAgain() throws Exception {
    Connection a = connection(7);
    Connection b = connection(8);
    List<CopyStateRegistry.Lease> leases = new ArrayList<>();
    for (int i = 0; i < CopyStateRegistry.MAX_HELD_PER_CONNECTION; i++) {
      leases.add(registry.acquire(a));
    }
    assertThat(leases.stream().map(CopyStateRegistry.Lease::id).distinct()).hasSize(CopyStateRegistry.MAX_HELD_PER_CONNECTION);
    assertTooMany(() -> registry.acquire(a));
    assertTooMany(() -> registry.acquire(a));
    assertThat(registry.size()).as("a refused acquire holds nothing").isEqualTo(CopyStateRegistry.MAX_HELD_PER_CONNECTION);

    CopyStateRegistry.Lease other = registry.acquire(b);
    assertThat(registry.get(other.id())).as("the limit is per connection").isSameAs(other.state());

    assertThat(registry.release(leases.get(3).id())).isTrue();
    CopyStateRegistry.Lease again = registry.acquire(a);
    assertThat(again.id()).isNotIn(leases.stream().map(CopyStateRegistry.Lease::id).toList());
    assertTooMany(() -> registry.acquire(a));
  }

  @Test
  void eachCopyStateIsReleasedExactlyOnce() throws Exception {
    Connection a = connection(7);
    CopyStateRegistry.Lease lease = registry.acquire(a);
    assertThat(registry.get(lease.id())).isSameAs(lease.state());
    assertThat(registry.release(lease.id())).isTrue();
    assertThat(registry.release(lease.id())).as("a second release finds nothing").isFalse();
    assertThat(registry.get(lease.id())).isNull();
    assertThat(registry.release(12345)).isFalse();
    assertThat(registry.releaseAll(a)).isZero();
    assertThat(registry.size()).isZero();
  }

  @Test
  void releaseAllOfAConnectionReleasesOnlyItsOwnAndFreesItsAllowance() throws Exception {
    Connection a = connection(7);
    Connection b = connection(8);
    for (int i = 0; i < CopyStateRegistry.MAX_HELD_PER_CONNECTION; i++) {
      registry.acquire(a);
    }
    CopyStateRegistry.Lease kept = registry.acquire(b);
    assertThat(registry.releaseAll(a)).isEqualTo(CopyStateRegistry.MAX_HELD_PER_CONNECTION);
    assertThat(registry.size()).isEqualTo(1);
    assertThat(registry.get(kept.id())).isSameAs(kept.state());
    for (int i = 0; i < CopyStateRegistry.MAX_HELD_PER_CONNECTION; i++) {
      registry.acquire(a);
    }
    assertThat(registry.size()).isEqualTo(CopyStateRegistry.MAX_HELD_PER_CONNECTION + 1);

    registry.releaseAll();
    assertThat(registry.size()).isZero();
    assertThat(registry.get(kept.id())).isNull();
  }

  @Test
  void aConnectionThatIsAlreadyClosedGetsNothingAndLeavesNothingBehind() throws Exception {
    Connection gone = connection(7);
    gone.close();
    gone.closeFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    for (int i = 0; i <= CopyStateRegistry.MAX_HELD_PER_CONNECTION; i++) {
      // Past the limit too: a refused acquire must not keep its reservation.
      assertThatThrownBy(() -> registry.acquire(gone)).isInstanceOfSatisfying(NrtClusterException.class,
          e -> assertThat(e.code()).isEqualTo(ErrorCode.CONNECTION));
    }
    assertThat(registry.size()).isZero();
  }

  @Test
  void aHeldCopyStatePinsItsFilesUntilItIsReleased() throws Exception {
    Connection a = connection(7);
    refreshWithNewSegment();
    CopyStateRegistry.Lease old = registry.acquire(a);
    Set<String> pinned = new HashSet<>(old.state().files().keySet());

    // Merge everything and move on: the old point's segments are no longer in the current one.
    refreshWithNewSegment();
    node.writer().forceMerge(1);
    node.flushAndRefresh();
    CopyState now = node.getCopyState();
    Set<String> current = new HashSet<>(now.files().keySet());
    node.releaseCopyState(now);
    Set<String> onlyOld = new HashSet<>(pinned);
    onlyOld.removeAll(current);
    assertThat(onlyOld).as("the merge replaced the old segments").isNotEmpty();
    for (String name : onlyOld) {
      assertThat(dir.resolve("index").resolve(name)).as("pinned by the held copy-state").exists();
    }

    assertThat(registry.release(old.id())).isTrue();
    await().atMost(WAIT).untilAsserted(() -> {
      for (String name : onlyOld) {
        assertThat(Files.exists(dir.resolve("index").resolve(name))).as("%s deleted once released", name).isFalse();
      }
    });
  }

  private CopyStateRegistry leasing(Duration lease, int maxLeases, long maxBytes) {
    registry.releaseAll();
    registry = new CopyStateRegistry(node, new NodeLog(LoggerFactory.getLogger(CopyStateRegistryTest.class), "P1", () -> 1),
        new CopyStateLeases.Policy(lease, maxLeases, maxBytes));
    return registry;
  }

  /** A new connection of replica {@code nodeId}, as the primary's side of it (what owns copy-states there). */
  private Connection replica(int nodeId) throws Exception {
    Connection client = connection(nodeId);
    client.request(id -> new Message.Ping(id)).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    Connection server = serverSide.get(nodeId);
    assertThat(server.peerNodeId()).isEqualTo(nodeId);
    return server;
  }

  /** Acquires a copy-state on {@code c} and fetches from it, as a replica that started copying does. */
  private CopyStateRegistry.Lease copying(Connection c) throws Exception {
    CopyStateRegistry.Lease lease = registry.acquire(c);
    assertThat(registry.getFor(c, lease.id())).isSameAs(lease.state());
    return lease;
  }

  private static void dropped(Connection c) throws Exception {
    c.close();
    c.closeFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  @Test
  void aDroppedReplicasCopyStateIsLeasedAndItsNextConnectionTakesItBack() throws Exception {
    leasing(Duration.ofMinutes(1), 8, Long.MAX_VALUE);
    Connection first = replica(7);
    CopyStateRegistry.Lease lease = copying(first);
    dropped(first);
    assertThat(registry.disconnected(first)).isEqualTo(new CopyStateRegistry.Dropped(1, 0));
    assertThat(registry.size()).as("kept under a lease").isEqualTo(1);
    assertThat(registry.get(lease.id())).as("a leased copy-state is not held by anyone").isNull();
    assertThat(registry.getFor(replica(8), lease.id())).as("another replica cannot take it").isNull();

    Connection second = replica(7);
    assertThat(registry.getFor(second, lease.id())).isSameAs(lease.state());
    assertThat(registry.leaseCounts()).isEqualTo(new CopyStateLeaseCounts(0, 1, 1, 0, 0));
    assertThat(registry.releaseAll(first)).as("the old connection holds nothing any more").isZero();
    assertThat(registry.releaseAll(second)).as("the new one owns it").isEqualTo(1);
    assertThat(registry.size()).isZero();
  }

  @Test
  void aCopyStateNothingWasFetchedFromIsReleasedAtOnce() throws Exception {
    leasing(Duration.ofMinutes(1), 8, Long.MAX_VALUE);
    Connection c = replica(7);
    CopyStateRegistry.Lease idle = registry.acquire(c);
    dropped(c);
    assertThat(registry.disconnected(c)).isEqualTo(new CopyStateRegistry.Dropped(0, 1));
    assertThat(registry.size()).isZero();
    assertThat(registry.getFor(replica(7), idle.id())).isNull();
  }

  @Test
  void theSameReplicaOnANewConnectionTakesOverBeforeTheOldOneIsSeenToDrop() throws Exception {
    leasing(Duration.ofMinutes(1), 8, Long.MAX_VALUE);
    Connection old = replica(7);
    CopyStateRegistry.Lease lease = copying(old);
    Connection fresh = replica(7);
    assertThat(registry.getFor(fresh, lease.id())).isSameAs(lease.state());
    assertThat(registry.disconnected(old)).as("the old connection's close leaves it alone").isEqualTo(new CopyStateRegistry.Dropped(0, 0));
    assertThat(registry.get(lease.id())).isSameAs(lease.state());
    assertThat(registry.leaseCounts()).as("a resume without a lease").isEqualTo(new CopyStateLeaseCounts(0, 0, 1, 0, 0));
  }

  @Test
  void anExpiredLeaseIsReleasedAndCannotBeResumed() throws Exception {
    leasing(Duration.ofMillis(200), 8, Long.MAX_VALUE);
    Connection first = replica(7);
    CopyStateRegistry.Lease lease = copying(first);
    dropped(first);
    registry.disconnected(first);
    await().atMost(WAIT).until(() -> registry.size() == 0);
    assertThat(registry.leaseCounts()).isEqualTo(new CopyStateLeaseCounts(0, 1, 0, 1, 0));
    assertThat(registry.getFor(replica(7), lease.id())).isNull();
  }

  @Test
  void leasesAreBoundedInNumberTheOldestGoingFirst() throws Exception {
    leasing(Duration.ofMinutes(1), 2, Long.MAX_VALUE);
    List<CopyStateRegistry.Lease> leases = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Connection c = replica(10 + i);
      leases.add(copying(c));
      dropped(c);
      registry.disconnected(c);
    }
    assertThat(registry.size()).isEqualTo(2);
    assertThat(registry.leaseCounts()).isEqualTo(new CopyStateLeaseCounts(2, 3, 0, 0, 1));
    assertThat(registry.getFor(replica(10), leases.get(0).id())).as("the oldest was released").isNull();
    assertThat(registry.getFor(replica(12), leases.get(2).id())).isSameAs(leases.get(2).state());
  }

  @Test
  void leasesAreBoundedInTheBytesOnlyTheyKeepOnDisk() throws Exception {
    leasing(Duration.ofMinutes(1), 8, 1);
    Connection current = replica(7);
    CopyStateRegistry.Lease ofCurrentPoint = copying(current);
    dropped(current);
    registry.disconnected(current);
    assertThat(registry.leaseCounts().held()).as("files the current point uses cost a lease nothing").isEqualTo(1);

    Connection old = replica(8);
    CopyStateRegistry.Lease ofOldPoint = copying(old);
    refreshWithNewSegment();
    node.writer().forceMerge(1);
    node.flushAndRefresh();
    dropped(old);
    registry.disconnected(old);
    assertThat(registry.leaseCounts()).as("the old point's merged-away files are over the bound")
        .isEqualTo(new CopyStateLeaseCounts(0, 2, 0, 0, 2));
    assertThat(registry.size()).isZero();
    assertThat(registry.getFor(replica(8), ofOldPoint.id())).isNull();
    assertThat(registry.getFor(replica(7), ofCurrentPoint.id())).isNull();
  }
}

package io.nrtcluster.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.primary.Primary;
import io.nrtcluster.transport.Connection;
import io.nrtcluster.transport.Message;
import io.nrtcluster.transport.PeerRole;
import io.nrtcluster.transport.Transport;
import io.nrtcluster.transport.TransportConfig;
import io.nrtcluster.transport.TransportServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TopDocs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * 100,000 malformed and hostile frames, from several raw socket connections at once, against a live
 * primary while a real replica keeps copying real refreshes. Frames are random bytes, truncated
 * frames, lying and oversized lengths, unknown type codes, valid headers with garbage payloads,
 * handshakes for other clusters, indexes and versions, and (after a valid handshake) fetches of
 * unknown or unsafe file names and of copy-states that were never handed out, plus a stream of
 * copy-state requests that are never released. Each connection reconnects when the primary closes
 * it.
 *
 * <p>Proves: the primary stays up and serving (the replica converges to its final version with the
 * same hits, document by document); heap in use after a full GC returns to near its level before the
 * flood and old-generation occupancy stays bounded during it; the primary holds a bounded number of
 * copy-states for any one connection; and its connection count returns to the replica's one. Seeded:
 * the seed is printed and {@code -Dnrt.test.seed=N} replays the same frames (the interleaving of
 * connections differs). {@link #oneConnectionCannotHoardCopyStates} pins the copy-state limit down
 * exactly (the flood found that there was none: a peer could pin unbounded copy-states).
 */
@Timeout(180)
class MalformedFloodTest {
  private static final int FRAMES = 100_000;
  private static final int ATTACKERS = 4;
  /** Heap growth allowed across the flood (after full GCs): generous, but far below what a leak of
   * even a few bytes per frame, or a copy-state per request, would reach. */
  private static final long HEAP_GROWTH_BOUND = 48L << 20;
  /** Old-generation occupancy after any GC during the flood, above the level before it. */
  private static final long OLD_GEN_GROWTH_BOUND = 256L << 20;
  /** What the primary lets one connection hold (CopyStateRegistry.MAX_HELD_PER_CONNECTION). */
  private static final int MAX_COPY_STATES_PER_CONNECTION = 16;

  @TempDir Path dir;

  @Test
  void aFloodOfMalformedFramesNeitherStopsThePrimaryNorTheReplica() throws Exception {
    long seed = TestSeeds.seed();
    System.out.printf("MalformedFloodTest seed=%d (reproduce with -Dnrt.test.seed=%d)%n", seed, seed);
    try (MiniCluster cluster = new MiniCluster(dir, seed, 1, MiniCluster.fastTransport(), MiniCluster.fastTransport()).start()) {
      Primary primary = cluster.primary();
      TransportServer server = primary.transport().server();
      cluster.addDocs(300);
      cluster.awaitReplicasAt(cluster.refresh(), Duration.ofSeconds(30));
      await().atMost(Duration.ofSeconds(10)).until(() -> server.openConnections() == 1);
      int baselineConnections = server.openConnections();
      long heapBefore = usedHeapAfterGc();
      long oldGenBefore = oldGenAfterLastGc();
      String knownFile = someFileOf(primary);

      Flood flood = new Flood(primary, knownFile);
      ExecutorService attackers = Executors.newFixedThreadPool(ATTACKERS);
      List<Future<?>> running = new ArrayList<>();
      for (int i = 0; i < ATTACKERS; i++) {
        int attacker = i;
        running.add(attackers.submit(() -> {
          flood.run(new Random(seed * 31 + attacker));
          return null;
        }));
      }
      // Real replication goes on meanwhile: index, update, delete, refresh, while checking that the
      // primary never holds more copy-states than its connections may and old gen stays bounded.
      Random writes = new Random(seed);
      int refreshes = 0;
      long maxOldGen = 0;
      int maxCopyStates = 0;
      while (!running.stream().allMatch(Future::isDone)) {
        cluster.addDocs(10 + writes.nextInt(30));
        cluster.updateDocs(writes.nextInt(10));
        cluster.deleteDocs(writes.nextInt(3));
        long version = cluster.refresh();
        refreshes++;
        maxOldGen = Math.max(maxOldGen, oldGenAfterLastGc());
        maxCopyStates = Math.max(maxCopyStates, primary.copyStatesHeld());
        // Paced by replication itself: the next refresh once the replica searches this one.
        cluster.awaitReplicasAt(version, Duration.ofSeconds(60));
      }
      attackers.shutdown();
      for (Future<?> f : running) {
        f.get(); // rethrows what went wrong in an attacker (never a refused connection: see Flood)
      }
      System.out.printf("MalformedFloodTest seed=%d: %d frames on %d connections (%d closed by the primary), %d refreshes, "
              + "max copy-states held %d, max old gen %d MiB%n",
          seed, flood.sent.get(), flood.connections.get(), flood.closedByPrimary.get(), refreshes, maxCopyStates, maxOldGen >> 20);

      assertThat(flood.sent.get()).as("seed %d", seed).isGreaterThanOrEqualTo(FRAMES);
      assertThat(flood.closedByPrimary.get()).as("seed %d: the primary closed connections that broke the protocol", seed).isPositive();
      assertThat(maxCopyStates).as("seed %d: copy-states held at once (attackers ask for them and never release)", seed)
          .isLessThanOrEqualTo(ATTACKERS * MAX_COPY_STATES_PER_CONNECTION + 4);

      // The primary still serves: the replica converges to the final version, hit for hit.
      cluster.addDocs(50);
      long last = cluster.refresh();
      cluster.awaitReplicasAt(last, Duration.ofSeconds(60));
      assertSameHits(cluster, seed, last);

      await("primary connections back to the replica's").atMost(Duration.ofSeconds(30))
          .until(server::openConnections, n -> n == baselineConnections);
      await("attackers' copy-states released").atMost(Duration.ofSeconds(30)).until(() -> primary.copyStatesHeld() == 0);
      long heapAfter = usedHeapAfterGc();
      System.out.printf("MalformedFloodTest seed=%d: heap after GC %d MiB before, %d MiB after%n", seed, heapBefore >> 20, heapAfter >> 20);
      assertThat(heapAfter - heapBefore).as("seed %d: heap growth after GC across the flood", seed).isLessThan(HEAP_GROWTH_BOUND);
      if (oldGenBefore >= 0) {
        assertThat(maxOldGen - oldGenBefore).as("seed %d: old generation growth during the flood", seed).isLessThan(OLD_GEN_GROWTH_BOUND);
      }
    }
  }

  @Test
  void oneConnectionCannotHoardCopyStates() throws Exception {
    long seed = TestSeeds.seed();
    try (MiniCluster cluster = new MiniCluster(dir, seed, 0, MiniCluster.fastTransport(), MiniCluster.fastTransport()).start();
        Transport hoarder = Transport.create("hoarder", MiniCluster.fastTransport())) {
      cluster.addDocs(20);
      cluster.refresh();
      Connection c = hoarder.connect(cluster.primary().address(), MiniCluster.CLUSTER, MiniCluster.INDEX, 99, PeerRole.REPLICA,
          (conn, m) -> {}).get(10, TimeUnit.SECONDS);
      List<Long> ids = new ArrayList<>();
      for (int i = 0; i < MAX_COPY_STATES_PER_CONNECTION; i++) {
        ids.add(((Message.CopyStateReply) c.request(id -> new Message.GetCopyState(id, 99)).get(10, TimeUnit.SECONDS)).copyStateId());
      }
      assertThat(cluster.primary().copyStatesHeld()).isEqualTo(MAX_COPY_STATES_PER_CONNECTION);
      assertThatThrownBy(() -> c.request(id -> new Message.GetCopyState(id, 99)).get(10, TimeUnit.SECONDS))
          .cause().isInstanceOfSatisfying(NrtClusterException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.TOO_MANY_REQUESTS));
      assertThat(cluster.primary().copyStatesHeld()).as("the refused request pinned nothing").isEqualTo(MAX_COPY_STATES_PER_CONNECTION);

      c.request(id -> new Message.ReleaseCopyState(id, ids.getFirst())).get(10, TimeUnit.SECONDS);
      assertThat(c.request(id -> new Message.GetCopyState(id, 99)).get(10, TimeUnit.SECONDS)).as("room again after a release")
          .isInstanceOf(Message.CopyStateReply.class);
      c.close();
      await().atMost(Duration.ofSeconds(10)).until(() -> cluster.primary().copyStatesHeld() == 0);
    }
  }

  /** The attackers' shared state: what they have sent, and the address they send it to. */
  private static final class Flood {
    /** Unreleased copy-state requests an attacker connection sends at most. */
    static final int COPY_STATE_REQUESTS = 200;

    final AtomicLong sent = new AtomicLong();
    final AtomicInteger connections = new AtomicInteger();
    final AtomicInteger closedByPrimary = new AtomicInteger();
    private final InetSocketAddress address;
    private final String knownFile;

    Flood(Primary primary, String knownFile) {
      this.address = new InetSocketAddress(primary.address().host(), primary.address().port());
      this.knownFile = knownFile;
    }

    void run(Random random) throws IOException {
      HostileFrames frames = new HostileFrames(random, TransportConfig.builder().build().maxFrameBytes());
      while (sent.get() < FRAMES) {
        connections.incrementAndGet();
        try (Socket s = new Socket()) {
          s.connect(address, 10_000);
          s.setSoTimeout(30_000);
          boolean handshake = random.nextInt(10) >= 3;
          if (handshake && !session(frames, random, s)) {
            continue; // closed cleanly by us
          }
          End end = handshake ? End.values()[random.nextInt(2)] : End.values()[random.nextInt(3)];
          byte[] last = switch (end) {
            case FATAL -> frames.fatal();
            case GARBAGE -> frames.garbage();
            case REFUSED_HELLO -> frames.refusedHello(MiniCluster.CLUSTER, MiniCluster.INDEX);
          };
          try {
            s.getOutputStream().write(last);
            sent.incrementAndGet();
            if (end == End.GARBAGE) {
              // The primary may be waiting for the rest of a frame: tell it there is no more.
              s.shutdownOutput();
            }
            drainUntilClosed(s.getInputStream());
          } catch (SocketException e) {
            // Reset: the primary closed while our bytes were still unread. That is a close too.
          }
          if (end != End.GARBAGE) {
            closedByPrimary.incrementAndGet();
          }
        }
      }
    }

    /** How a connection ends: a frame the primary must close it for, or bytes it may wait on. */
    private enum End {
      FATAL,
      GARBAGE,
      REFUSED_HELLO
    }

    /**
     * A handshaken connection: a batch of hostile but well-formed frames, some of them copy-state
     * requests never released. None of them may make the primary close the connection (a reset here
     * fails the test). Returns false when the connection should just be closed after the batch.
     */
    private boolean session(HostileFrames frames, Random random, Socket s) throws IOException {
      OutputStream out = s.getOutputStream();
      InputStream in = s.getInputStream();
      out.write(HostileFrames.hello(1, MiniCluster.CLUSTER, MiniCluster.INDEX, 900 + random.nextInt(100)));
      int batch = 100 + random.nextInt(1500);
      int copyStates = random.nextInt(4) == 0 ? random.nextInt(COPY_STATE_REQUESTS) : 0;
      java.io.ByteArrayOutputStream pending = new java.io.ByteArrayOutputStream();
      int inPending = 0;
      for (int i = 0; i < batch && sent.get() < FRAMES; i++) {
        pending.writeBytes(i < copyStates ? HostileFrames.getCopyState(1_000_000 + i) : frames.hostile(knownFile));
        if (++inPending == 32 || i == batch - 1) {
          out.write(pending.toByteArray());
          sent.addAndGet(inPending);
          pending.reset();
          inPending = 0;
          skipAvailable(in);
        }
      }
      return random.nextInt(4) != 0;
    }

    /** Keeps the replies from filling the socket buffers (a peer that never reads is another matter). */
    private static void skipAvailable(InputStream in) throws IOException {
      int n;
      while ((n = in.available()) > 0) {
        in.skipNBytes(n);
      }
    }

    /** Reads until the primary closes; a read timeout fails the test (it must close, not hang). */
    private static void drainUntilClosed(InputStream in) throws IOException {
      byte[] buf = new byte[8192];
      while (in.read(buf) >= 0) {
        // Replies and the final protocol error: their bytes are the codec tests' business.
      }
    }
  }

  private static String someFileOf(Primary primary) throws IOException {
    IndexSearcher s = primary.acquireSearcher();
    try {
      return ((DirectoryReader) s.getIndexReader()).getIndexCommit().getFileNames().stream()
          .filter(n -> !n.startsWith("segments")).findFirst().orElseThrow();
    } finally {
      primary.releaseSearcher(s);
    }
  }

  /** Replica and primary return the same documents, in the same order, for every query at {@code version}. */
  private static void assertSameHits(MiniCluster cluster, long seed, long version) throws IOException {
    Replica replica = cluster.replica(0);
    IndexSearcher r = replica.acquireSearcher();
    IndexSearcher p = cluster.primary().acquireSearcher();
    try {
      assertThat(((DirectoryReader) r.getIndexReader()).getVersion()).as("seed %d", seed).isEqualTo(version);
      assertThat(((DirectoryReader) p.getIndexReader()).getVersion()).as("seed %d", seed).isEqualTo(version);
      for (Query q : MiniCluster.QUERIES) {
        assertThat(ids(r, q)).as("seed %d: hits of %s", seed, q).isEqualTo(ids(p, q)).isNotEmpty();
      }
    } finally {
      cluster.primary().releaseSearcher(p);
      replica.releaseSearcher(r);
    }
  }

  private static List<String> ids(IndexSearcher s, Query q) throws IOException {
    TopDocs top = s.search(q, Integer.MAX_VALUE);
    StoredFields fields = s.storedFields();
    List<String> out = new ArrayList<>();
    for (ScoreDoc d : top.scoreDocs) {
      out.add(fields.document(d.doc).get("id") + "@" + d.score);
    }
    return out;
  }

  private static long usedHeapAfterGc() {
    // Two full collections: the first may only queue finalizable and cleaner-tracked objects.
    System.gc();
    System.gc();
    MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
    return heap.getUsed();
  }

  /** Old-generation occupancy right after the last GC, or -1 when the JVM does not say. */
  private static long oldGenAfterLastGc() {
    long sum = -1;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP && pool.isCollectionUsageThresholdSupported()
          && pool.getName().toLowerCase(java.util.Locale.ROOT).contains("old") && pool.getCollectionUsage() != null) {
        sum = Math.max(sum, 0) + pool.getCollectionUsage().getUsed();
      }
    }
    return sum;
  }
}

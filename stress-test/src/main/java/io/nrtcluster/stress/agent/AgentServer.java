package io.nrtcluster.stress.agent;

import com.sun.net.httpserver.HttpExchange;
import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.NotEnoughReplicasException;
import io.nrtcluster.election.Role;
import io.nrtcluster.node.Acknowledgement;
import io.nrtcluster.node.ClusterNode;
import io.nrtcluster.node.ClusterNodeInternals;
import io.nrtcluster.node.Durability;
import io.nrtcluster.node.NrtHost;
import io.nrtcluster.primary.Primary;
import io.nrtcluster.replica.Replica;
import io.nrtcluster.replica.ReplicaStats;
import io.nrtcluster.stress.agent.AgentApi.Op;
import io.nrtcluster.stress.agent.ChaosDocs.Fingerprint;
import io.nrtcluster.transport.FaultStats;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.lucene.search.IndexSearcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node process's control endpoint ({@link JsonHttp} on loopback): the application side of
 * an embedded {@link ClusterNode}. Writes, refreshes and commits go to the library's own API; a
 * refused write answers 409 with the primary the node knows, any other library error 503 with its
 * code; searches report the version they searched.
 */
final class AgentServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AgentServer.class);

  private final NrtHost host;
  private final ClusterNode node;
  private final VersionClock clock;
  private final Runnable shutdown;
  private final JsonHttp server;
  private final ReplicaTotals replicaTotals = new ReplicaTotals();
  /** Harness self-test: acknowledge but drop every Nth write (0: never). */
  private final int dropEveryNthWrite;
  private final AtomicLong writes = new AtomicLong();
  /** Harness self-test: answer every Nth refresh with an unpublished version (0: never). */
  private final int ackUnpublishedEvery;
  private final AtomicLong refreshes = new AtomicLong();
  private final Map<Long, Fingerprint> fingerprints = new LinkedHashMap<>(16, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<Long, Fingerprint> eldest) {
      return size() > 64;
    }
  };

  AgentServer(NrtHost host, ClusterNode node, VersionClock clock, String bindHost, int port, int dropEveryNthWrite,
      int ackUnpublishedEvery, Runnable shutdown) throws IOException {
    this.host = host;
    this.dropEveryNthWrite = dropEveryNthWrite;
    this.ackUnpublishedEvery = ackUnpublishedEvery;
    this.node = node;
    this.clock = clock;
    this.shutdown = shutdown;
    this.server = new JsonHttp("N" + host.nodeId(), bindHost, port, 8, LOG);
    server.route("/ops", this::write);
    server.route("/refresh", this::refresh);
    server.route("/commit", this::commit);
    server.route("/search", this::search);
    server.route("/fingerprint", this::fingerprint);
    server.route("/status", this::status);
    server.route("/docs", this::docs);
    server.route("/faults", this::faults);
    server.route("/halt", ex -> Runtime.getRuntime().halt(134));
    server.route("/shutdown", this::shutdown);
    server.start();
  }

  int port() {
    return server.port();
  }

  private void write(HttpExchange ex) throws Exception {
    AgentApi.WriteRequest request = JsonHttp.JSON.readValue(JsonHttp.body(ex), AgentApi.WriteRequest.class);
    int applied = 0;
    for (Op op : request.ops()) {
      if (dropEveryNthWrite > 0 && writes.incrementAndGet() % dropEveryNthWrite == 0) {
        applied++;
        continue;
      }
      switch (op.kind()) {
        case UPSERT -> node.updateDocument(ChaosDocs.idTerm(op.id()), ChaosDocs.document(op.id(), op.seq(), op.body()));
        case DELETE -> node.deleteDocuments(ChaosDocs.idTerm(op.id()));
      }
      applied++;
    }
    JsonHttp.reply(ex, 200, new AgentApi.WriteReply(applied, node.primaryGen()));
  }

  private void refresh(HttpExchange ex) throws Exception {
    String position = JsonHttp.query(ex, "position");
    String asked = JsonHttp.query(ex, "durability");
    Durability durability = asked == null ? null : Durability.valueOf(asked);
    // The generation is read on both sides: a node that switched roles meanwhile cannot say which one refreshed.
    long genBefore = node.primaryGen();
    long version;
    boolean acknowledged = true;
    List<Integer> replicas = List.of();
    ErrorCode refusal = null;
    if (durability == null) {
      version = position == null ? node.refresh() : node.refresh(position);
    } else {
      try {
        Acknowledgement a = node.refresh(position, durability);
        version = a.version();
        replicas = a.replicas();
      } catch (NotEnoughReplicasException e) {
        // Published and searched, but no replica that may become primary is known to hold it.
        LOG.info("N{}: refresh to version {} not acknowledged: {}", host.nodeId(), e.version(), e.getMessage());
        version = e.version();
        acknowledged = false;
        replicas = e.replicas();
        refusal = e.code();
      }
    }
    long gen = node.primaryGen() == genBefore ? genBefore : -1;
    Fingerprint published = gen < 0 ? null : publishedContents(version);
    if (ackUnpublishedEvery > 0 && refreshes.incrementAndGet() % ackUnpublishedEvery == 0) {
      version++;
    }
    JsonHttp.reply(ex, 200, new AgentApi.RefreshReply(version, gen, published == null ? -1 : published.numDocs(),
        published == null ? 0 : published.digest(), durability == null ? Durability.LOCAL : durability, acknowledged,
        replicas, refusal));
  }

  /**
   * The contents of the searcher this primary published at {@code version}, or null when it
   * searches another version by now (a concurrent refresh): then nothing is claimed about it.
   */
  private Fingerprint publishedContents(long version) throws IOException {
    IndexSearcher searcher = node.acquireSearcher();
    try {
      return ChaosDocs.version(searcher) == version ? fingerprintOf(searcher) : null;
    } finally {
      node.releaseSearcher(searcher);
    }
  }

  private Fingerprint fingerprintOf(IndexSearcher searcher) throws IOException {
    long version = ChaosDocs.version(searcher);
    Fingerprint f;
    synchronized (fingerprints) {
      f = fingerprints.get(version);
    }
    if (f == null) {
      f = ChaosDocs.fingerprint(searcher);
      synchronized (fingerprints) {
        fingerprints.put(version, f);
      }
    }
    return f;
  }

  private void commit(HttpExchange ex) throws Exception {
    boolean primaryBefore = node.role() == Role.PRIMARY;
    node.commit();
    JsonHttp.reply(ex, 200, new AgentApi.CommitReply(node.status().commitVersion(), node.primaryGen(),
        primaryBefore && node.role() == Role.PRIMARY));
  }

  private void search(HttpExchange ex) throws Exception {
    String word = JsonHttp.query(ex, "term");
    if (word == null) {
      throw new IllegalArgumentException("search needs ?term=");
    }
    boolean primaryBefore = node.role() == Role.PRIMARY;
    IndexSearcher searcher = node.acquireSearcher();
    try {
      long version = ChaosDocs.version(searcher);
      int hits = ChaosDocs.count(searcher, word);
      JsonHttp.reply(ex, 200, new AgentApi.SearchReply(version, hits, primaryBefore && node.role() == Role.PRIMARY));
    } finally {
      node.releaseSearcher(searcher);
    }
  }

  private void fingerprint(HttpExchange ex) throws Exception {
    boolean primaryBefore = node.role() == Role.PRIMARY;
    IndexSearcher searcher = node.acquireSearcher();
    try {
      Fingerprint f = fingerprintOf(searcher);
      JsonHttp.reply(ex, 200, new AgentApi.FingerprintReply(f.version(), f.numDocs(), f.digest(),
          primaryBefore && node.role() == Role.PRIMARY));
    } finally {
      node.releaseSearcher(searcher);
    }
  }

  private void status(HttpExchange ex) throws Exception {
    var s = node.status();
    Primary p = ClusterNodeInternals.primaryOf(node);
    Replica r = node.replica();
    CopyTotals replica = replicaTotals.totals(r);
    FaultStats.FlipCounts flips = host.transport().faultStats().flipCounts();
    JsonHttp.reply(ex, 200, new AgentApi.Status(host.nodeId(), s.role(), s.primaryGen(), node.searchingVersion(),
        s.commitVersion(), s.replayPosition(), s.copying(), p == null ? 0 : p.preCopiesRunning(),
        flips.injected(), flips.detected(), flips.discarded(), flips.undetected(), flips.pending(),
        replica.checksumMismatches(), replica.bytesCopied(), replica.filesCopied(),
        JsonHttp.query(ex, "drain") != null ? clock.drain() : List.of(), node.isWritablePrimary(),
        r == null ? -1 : r.copySource(), p == null ? Map.of() : p.copySources(), replica.bytesFromPeers(),
        replica.peerFallbacks(), replica.filesServedToPeers()));
  }

  private void docs(HttpExchange ex) throws Exception {
    IndexSearcher searcher = node.acquireSearcher();
    try {
      ex.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
      ex.sendResponseHeaders(200, 0);
      try (Writer out = new OutputStreamWriter(ex.getResponseBody(), StandardCharsets.UTF_8)) {
        out.write("version " + ChaosDocs.version(searcher) + "\n");
        ChaosDocs.dump(searcher, out);
      }
    } finally {
      node.releaseSearcher(searcher);
    }
  }

  private void faults(HttpExchange ex) throws Exception {
    String flip = JsonHttp.query(ex, "bitFlipProbability");
    String throttle = JsonHttp.query(ex, "throttleBytesPerSecond");
    String drop = JsonHttp.query(ex, "dropAfterFileBytes");
    host.transport().updateFaults(flip == null ? 0 : Double.parseDouble(flip), throttle == null ? 0 : Long.parseLong(throttle));
    host.transport().updateDrops(drop == null ? 0 : Long.parseLong(drop), 0);
    LOG.info("N{}: wire faults now {}", host.nodeId(), host.transport().faultStats().config());
    JsonHttp.reply(ex, 200, Map.of("ok", true));
  }

  private void shutdown(HttpExchange ex) throws Exception {
    JsonHttp.reply(ex, 200, Map.of("ok", true));
    Thread.ofPlatform().name("chaos-agent-shutdown").start(shutdown);
  }

  @Override
  public void close() {
    server.close();
  }

  /** A replica's copy counters ({@link ReplicaStats} and the files it served to peers). */
  private record CopyTotals(long checksumMismatches, long bytesCopied, long filesCopied, long bytesFromPeers,
      long peerFallbacks, long filesServedToPeers) {
    static final CopyTotals ZERO = new CopyTotals(0, 0, 0, 0, 0, 0);

    static CopyTotals of(Replica r) {
      ReplicaStats s = r.stats();
      return new CopyTotals(s.checksumMismatches(), s.bytesCopied(), s.filesCopied(), s.bytesFromPeers(),
          s.peerFallbacks(), r.filesServedToPeers());
    }

    CopyTotals plus(CopyTotals o) {
      return new CopyTotals(checksumMismatches + o.checksumMismatches, bytesCopied + o.bytesCopied,
          filesCopied + o.filesCopied, bytesFromPeers + o.bytesFromPeers, peerFallbacks + o.peerFallbacks,
          filesServedToPeers + o.filesServedToPeers);
    }
  }

  /**
   * Copy counters summed over every replica this node has been: a role switch replaces the
   * {@link Replica} (and its statistics), but the harness wants the process's totals.
   */
  private static final class ReplicaTotals {
    private Replica current;
    private CopyTotals earlier = CopyTotals.ZERO;

    synchronized CopyTotals totals(Replica now) {
      if (now != current) {
        if (current != null) {
          earlier = earlier.plus(CopyTotals.of(current));
        }
        current = now;
      }
      return current == null ? earlier : earlier.plus(CopyTotals.of(current));
    }
  }

}

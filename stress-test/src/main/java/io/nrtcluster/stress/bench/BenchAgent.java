package io.nrtcluster.stress.bench;

import com.sun.net.httpserver.HttpExchange;
import io.nrtcluster.node.Acknowledgement;
import io.nrtcluster.node.ClusterNode;
import io.nrtcluster.node.Durability;
import io.nrtcluster.node.NrtHost;
import io.nrtcluster.primary.PreCopyResult;
import io.nrtcluster.stress.agent.JsonHttp;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.PrefixQuery;
import org.apache.lucene.search.TermQuery;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control endpoint of a benchmark node process. Loads run inside the process (the harness only
 * starts them and collects timings), so the figures measure the library and Lucene, not HTTP.
 */
final class BenchAgent implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(BenchAgent.class);
  /** Frequent words of the Europarl sample: what the search load asks for. */
  private static final String[] WORDS = {"the", "european", "parliament", "commission", "president", "council",
      "member", "states", "report", "union", "policy", "must", "also", "which", "have", "this", "that", "will",
      "would", "should", "rights", "market", "countries", "citizens", "debate"};

  private final int nodeId;
  private final NrtHost host;
  private final ClusterNode node;
  private final BenchIndex index;
  private final JsonHttp http;
  private final CpuSampler cpu = new CpuSampler();
  private final List<BenchApi.Seen> visible = new ArrayList<>();
  private final List<BenchApi.CopySteps> phases = new ArrayList<>();
  private final Runnable stop;
  private final AtomicLong writes = new AtomicLong();
  private final ScaleEndpoints scale;

  private BenchAgent(int nodeId, NrtHost host, ClusterNode node, List<ClusterNode> indexes, BenchIndex index, Runnable stop)
      throws IOException {
    this.nodeId = nodeId;
    this.host = host;
    this.node = node;
    this.index = index;
    this.stop = stop;
    this.http = new JsonHttp("B" + nodeId, 0, 8, LOG);
    http.route("/load", this::load);
    http.route("/visible", this::visible);
    http.route("/cpu", ex -> {
      CpuSampler.Usage u = cpu.between(JsonHttp.number(ex, "from", 0), JsonHttp.number(ex, "to", System.nanoTime()));
      JsonHttp.reply(ex, 200, new BenchApi.CpuReply(u.cpuNanos(), u.userNanos()));
    });
    http.route("/search", this::search);
    http.route("/stopSearch", ex -> {
      searchStop.set(true);
      JsonHttp.reply(ex, 200, Map.of("ok", true));
    });
    http.route("/preCopyRate", ex -> {
      if (node == null || node.replica() == null) {
        JsonHttp.reply(ex, 400, Map.of("error", "not a replica"));
        return;
      }
      node.replica().preCopyBytesPerSecond(JsonHttp.number(ex, "bytesPerSecond", 0));
      JsonHttp.reply(ex, 200, Map.of("ok", true));
    });
    http.route("/bulk", this::bulk);
    http.route("/deleteAll", ex -> {
      index.writer().deleteAll();
      index.refresh();
      JsonHttp.reply(ex, 200, Map.of("ok", true));
    });
    http.route("/forceMerge", this::forceMerge);
    http.route("/write", this::write);
    http.route("/ackBatch", this::ackBatch);
    http.route("/countIds", this::countIds);
    http.route("/status", this::status);
    http.route("/linkDelay", ex -> {
      if (host == null) {
        JsonHttp.reply(ex, 400, Map.of("error", "not a cluster node"));
        return;
      }
      host.transport().updateLinkDelay(JsonHttp.number(ex, "ms", 0));
      JsonHttp.reply(ex, 200, Map.of("ok", true));
    });
    scale = indexes.isEmpty() ? null : new ScaleEndpoints(nodeId, indexes);
    if (scale != null) {
      scale.register(http);
    }
    http.route("/shutdown", ex -> {
      JsonHttp.reply(ex, 200, Map.of("ok", true));
      Thread.ofPlatform().name("bench-stop").start(stop);
    });
    http.start();
  }

  /**
   * The agent of a cluster node: the figures of one index drive {@code indexes.get(0)}; the scale
   * figure's endpoints ({@link ScaleEndpoints}) serve all of {@code indexes}.
   */
  static BenchAgent cluster(NrtHost host, List<ClusterNode> indexes, Runnable stop) throws IOException {
    ClusterNode node = indexes.get(0);
    BenchAgent agent = new BenchAgent(host.nodeId(), host, node, indexes, BenchIndex.of(node), stop);
    node.addRoleListener((n, role, gen) -> agent.watchVersions());
    agent.watchVersions();
    return agent;
  }

  static BenchAgent standalone(int id, Path path, IndexWriterConfig config, Runnable stop) throws IOException {
    return new BenchAgent(id, null, null, List.of(), BenchIndex.standalone(path, config), stop);
  }

  /** Set to end the search load under way. */
  private final AtomicBoolean searchStop = new AtomicBoolean();
  private final Set<Object> watched = Collections.newSetFromMap(new IdentityHashMap<>());

  /** Records when this node (as a replica) starts searching each version, exactly. */
  private synchronized void watchVersions() {
    if (node != null && node.replica() != null && watched.add(node.replica())) {
      node.replica().addVersionListener(v -> {
        long now = System.nanoTime();
        synchronized (visible) {
          visible.add(new BenchApi.Seen(v, now));
        }
      });
      node.replica().addCopyPhasesListener(p -> {
        synchronized (visible) {
          phases.add(new BenchApi.CopySteps(p.version(), p.pointNanos(), p.copyStateNanos(), p.filesNanos(),
              p.searcherNanos(), p.reportedNanos()));
        }
      });
    }
  }

  int port() {
    return http.port();
  }

  /** Adds an endpoint (a figure's own, such as {@link BootstrapEndpoints}). */
  void route(String path, JsonHttp.Handler handler) {
    http.route(path, handler);
  }

  private void load(HttpExchange ex) throws Exception {
    String mode = JsonHttp.query(ex, "mode");
    String durability = JsonHttp.query(ex, "durability");
    BenchApi.LoadReply r = LoadRunner.run(index, mode == null ? LoadRunner.Mode.NRT : LoadRunner.Mode.valueOf(mode.toUpperCase(Locale.ROOT)),
        durability == null ? Durability.LOCAL : Durability.valueOf(durability.toUpperCase(Locale.ROOT)),
        "true".equals(JsonHttp.query(ex, "overlapping")),
        (int) JsonHttp.number(ex, "docsPerSec", 1000), JsonHttp.number(ex, "refreshMs", 1000),
        JsonHttp.number(ex, "warmupSec", 2), JsonHttp.number(ex, "seconds", 10));
    JsonHttp.reply(ex, 200, r);
  }

  private void visible(HttpExchange ex) throws IOException {
    List<BenchApi.Seen> out;
    List<BenchApi.CopySteps> steps;
    synchronized (visible) {
      out = new ArrayList<>(visible);
      visible.clear();
      steps = new ArrayList<>(phases);
      phases.clear();
    }
    JsonHttp.reply(ex, 200, new BenchApi.VisibleReply(out, steps));
  }

  /**
   * Term queries as fast as {@code threads} threads can for {@code seconds} or until {@code
   * /stopSearch}; returns how many ran, and how many ended in each 10 ms.
   */
  private void search(HttpExchange ex) throws Exception {
    int threads = (int) JsonHttp.number(ex, "threads", 1);
    long nanos = TimeUnit.SECONDS.toNanos(JsonHttp.number(ex, "seconds", 5));
    long bucket = TimeUnit.MILLISECONDS.toNanos(10);
    AtomicLongArray perBucket = new AtomicLongArray((int) (nanos / bucket) + 1);
    AtomicLong queries = new AtomicLong();
    searchStop.set(false);
    long start = System.nanoTime();
    List<Thread> ts = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int me = t;
      ts.add(Thread.ofPlatform().name("bench-search-" + t).start(() -> {
        Random random = new Random(me);
        try {
          long now;
          while ((now = System.nanoTime()) - start < nanos && !searchStop.get()) {
            IndexSearcher s = index.acquire();
            try {
              s.search(new TermQuery(new Term("body", WORDS[random.nextInt(WORDS.length)])), 10);
            } finally {
              index.release(s);
            }
            queries.incrementAndGet();
            perBucket.incrementAndGet((int) Math.min(perBucket.length() - 1, (System.nanoTime() - start) / bucket));
          }
        } catch (IOException e) {
          LOG.warn("B{}: search load failed", nodeId, e);
        }
      }));
    }
    for (Thread t : ts) {
      t.join();
    }
    long elapsed = System.nanoTime() - start;
    int used = (int) Math.min(perBucket.length(), elapsed / bucket + 1);
    long[] counts = new long[used];
    for (int i = 0; i < used; i++) {
      counts[i] = perBucket.get(i);
    }
    JsonHttp.reply(ex, 200, new BenchApi.SearchReply(queries.get(), elapsed, start, bucket, counts));
  }

  /**
   * Bulk load for the copy-throughput figure: documents with an incompressible stored payload, a
   * refresh after every {@code segmentBytes}, until {@code bytes}. The bytes are what a copy moves;
   * their origin does not matter to it, and random payloads build a large segment in seconds.
   */
  private void bulk(HttpExchange ex) throws Exception {
    long bytes = JsonHttp.number(ex, "bytes", 64L << 20);
    long segmentBytes = JsonHttp.number(ex, "segmentBytes", 32L << 20);
    int docBytes = (int) JsonHttp.number(ex, "docBytes", 256 << 10);
    Random random = new Random(nodeId);
    byte[] payload = new byte[docBytes];
    long written = 0;
    long sinceRefresh = 0;
    long docs = 0;
    while (written < bytes) {
      random.nextBytes(payload);
      Document doc = new Document();
      doc.add(new StringField("id", "bulk-" + docs++, Field.Store.NO));
      doc.add(new StoredField("payload", payload.clone()));
      index.writer().addDocument(doc);
      written += docBytes;
      sinceRefresh += docBytes;
      if (sinceRefresh >= segmentBytes) {
        index.refresh();
        sinceRefresh = 0;
      }
    }
    index.refresh();
    JsonHttp.reply(ex, 200, new BenchApi.BulkReply(docs, written));
  }

  private void forceMerge(HttpExchange ex) throws Exception {
    PreCopyResult before = index.lastPreCopy();
    long start = System.nanoTime();
    index.writer().forceMerge(1);
    long took = System.nanoTime() - start;
    index.refresh();
    PreCopyResult after = index.lastPreCopy();
    if (after == null || after == before) {
      JsonHttp.reply(ex, 200, new BenchApi.MergeReply(took, 0, 0, 0, 0, List.of(), start, start + took, 0));
      return;
    }
    JsonHttp.reply(ex, 200, new BenchApi.MergeReply(took, after.bytes(), after.nanos(), after.replicas(),
        after.succeeded(), List.of(after.segment()), start, start + took, after.startedAtNanos()));
  }

  private void write(HttpExchange ex) throws Exception {
    Document doc = new Document();
    doc.add(new StringField("id", "w" + writes.incrementAndGet(), Field.Store.NO));
    index.add(doc);
    JsonHttp.reply(ex, 200, Map.of("ok", true));
  }

  /**
   * Figure 6's acknowledged loss: adds documents {@code prefix0 .. prefix(docs-1)} and refreshes with
   * {@code durability}; replies once acknowledged (a refusal or any failure is an error reply: nothing
   * acknowledged).
   */
  private void ackBatch(HttpExchange ex) throws Exception {
    String prefix = JsonHttp.query(ex, "prefix");
    int docs = (int) JsonHttp.number(ex, "docs", 10);
    Durability durability = Durability.valueOf(JsonHttp.query(ex, "durability").toUpperCase(Locale.ROOT));
    for (int i = 0; i < docs; i++) {
      Document doc = new Document();
      doc.add(new StringField("id", prefix + i, Field.Store.NO));
      index.add(doc);
    }
    Acknowledgement ack = index.refresh(durability);
    JsonHttp.reply(ex, 200, new BenchApi.AckBatchReply(ack.version(), ack.durability().name(), ack.replicas()));
  }

  /** How many documents with an id starting with {@code prefix} this node searches now. */
  private void countIds(HttpExchange ex) throws Exception {
    String prefix = JsonHttp.query(ex, "prefix");
    IndexSearcher s = index.acquire();
    try {
      long version = ((DirectoryReader) s.getIndexReader()).getVersion();
      JsonHttp.reply(ex, 200, new BenchApi.CountReply(s.count(new PrefixQuery(new Term("id", prefix))), version));
    } finally {
      index.release(s);
    }
  }

  private void status(HttpExchange ex) throws IOException {
    if (node == null) {
      JsonHttp.reply(ex, 200, new BenchApi.StatusReply(nodeId, null, 0, 0, false));
      return;
    }
    JsonHttp.reply(ex, 200, new BenchApi.StatusReply(nodeId, node.role(), node.primaryGen(), node.searchingVersion(),
        node.isWritablePrimary()));
  }

  @Override
  public void close() throws IOException {
    http.close();
    if (scale != null) {
      scale.close();
    }
    cpu.close();
    index.close();
  }
}

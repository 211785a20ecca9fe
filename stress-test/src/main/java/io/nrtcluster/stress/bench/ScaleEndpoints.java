package io.nrtcluster.stress.bench;

import com.sun.net.httpserver.HttpExchange;
import io.nrtcluster.common.NamedThreadFactory;
import io.nrtcluster.election.Role;
import io.nrtcluster.node.ClusterNode;
import io.nrtcluster.stress.agent.JsonHttp;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;

/**
 * The scale figure's side of a benchmark node process hosting many indexes: their roles and versions
 * in one answer, write probes over a set of them, a refresh load over the ones this node leads, and
 * the JVM's threads and memory. Everything is timed inside the process on the shared nanoTime clock.
 */
final class ScaleEndpoints implements AutoCloseable {
  /**
   * Threads of the refresh load: the harness's own, and not running while threads are counted. A
   * refresh waits for ZooKeeper and the replicas' answers more than it computes, so a few threads keep
   * a node leading 100 indexes at a refresh per second each.
   */
  private static final int LOAD_THREADS = 8;
  private static final int THREAD_GROUPS = 30;

  private final List<ClusterNode> indexes;
  private final int nodeId;
  private final AtomicLong writes = new AtomicLong();
  private RefreshLoad load;

  ScaleEndpoints(int nodeId, List<ClusterNode> indexes) {
    this.nodeId = nodeId;
    this.indexes = List.copyOf(indexes);
  }

  /** The name of index number {@code i} of the scale figure. */
  static String indexName(int i) {
    return String.format(Locale.ROOT, "s%03d", i);
  }

  void register(JsonHttp http) {
    http.route("/scale-status", this::status);
    http.route("/scale-probe", this::probe);
    http.route("/scale-refresh-start", this::startLoad);
    http.route("/scale-refresh-stop", this::stopLoad);
    http.route("/jvm", this::jvm);
  }

  private void status(HttpExchange ex) throws IOException {
    List<BenchApi.IndexState> states = new ArrayList<>(indexes.size());
    for (ClusterNode n : indexes) {
      states.add(new BenchApi.IndexState(n.role(), n.primaryGen(), n.searchingVersion()));
    }
    JsonHttp.reply(ex, 200, new BenchApi.ScaleStatus(nodeId, states));
  }

  /** One write to each listed index this node leads now; the ones acknowledged, with when. */
  private void probe(HttpExchange ex) throws IOException {
    String list = JsonHttp.query(ex, "indexes");
    List<BenchApi.Acked> acked = new ArrayList<>();
    if (list != null && !list.isBlank()) {
      for (String s : list.split(",")) {
        int i = Integer.parseInt(s.trim());
        ClusterNode n = indexes.get(i);
        if (n.role() != Role.PRIMARY) {
          continue;
        }
        try {
          n.addDocument(doc("probe-" + writes.incrementAndGet()));
          acked.add(new BenchApi.Acked(i, System.nanoTime()));
        } catch (IOException notYet) {
          // Not writable yet (still promoting, or deposed meanwhile): the harness asks again.
        }
      }
    }
    JsonHttp.reply(ex, 200, new BenchApi.ProbeReply(acked));
  }

  private static Document doc(String id) {
    Document d = new Document();
    d.add(new StringField("id", id, Field.Store.NO));
    d.add(new TextField("body", "scale benchmark document " + id, Field.Store.NO));
    return d;
  }

  private synchronized void startLoad(HttpExchange ex) throws IOException {
    if (load != null) {
      load.stop(0, 0);
    }
    load = new RefreshLoad(JsonHttp.number(ex, "refreshMs", 1000));
    JsonHttp.reply(ex, 200, Map.of("ok", true));
  }

  private synchronized void stopLoad(HttpExchange ex) throws IOException {
    RefreshLoad l = load;
    load = null;
    long from = JsonHttp.number(ex, "from", Long.MIN_VALUE);
    long to = JsonHttp.number(ex, "to", Long.MAX_VALUE);
    JsonHttp.reply(ex, 200, l == null ? new BenchApi.RefreshLoadReply(0, 0, from, to, List.of())
        : l.stop(from, to));
  }

  /**
   * Every index this node leads gets a document and a refresh every {@code refreshMs}, the indexes'
   * turns spread evenly over the interval (so the versions do not all come at once); the others are
   * skipped at their turn, so the load follows the primaries wherever they are.
   */
  private final class RefreshLoad {
    private final ScheduledExecutorService timer =
        Executors.newScheduledThreadPool(LOAD_THREADS, new NamedThreadFactory("bench-refresh"));
    /** Each refresh: when it returned (nanoTime) and how long it took. */
    private record Refreshed(long endNanos, long tookNanos) {}

    private final Queue<Refreshed> refreshed = new ConcurrentLinkedQueue<>();
    private final AtomicLong failures = new AtomicLong();

    RefreshLoad(long refreshMs) {
      long periodNanos = TimeUnit.MILLISECONDS.toNanos(refreshMs);
      for (int i = 0; i < indexes.size(); i++) {
        ClusterNode n = indexes.get(i);
        timer.scheduleAtFixedRate(() -> refresh(n), periodNanos * i / indexes.size(), periodNanos, TimeUnit.NANOSECONDS);
      }
    }

    private void refresh(ClusterNode n) {
      if (n.role() != Role.PRIMARY) {
        return;
      }
      try {
        n.addDocument(doc("load-" + writes.incrementAndGet()));
        long start = System.nanoTime();
        n.refresh();
        long end = System.nanoTime();
        refreshed.add(new Refreshed(end, end - start));
      } catch (IOException | RuntimeException e) {
        // Deposed or closing meanwhile: counted, and the schedule goes on.
        failures.incrementAndGet();
      }
    }

    /**
     * Stops the load, letting the refreshes under way finish; the refreshes that returned between
     * {@code from} and {@code to} (nanoTime). Never interrupts one: an interrupt inside Lucene's
     * writer closes its file channels (ClosedByInterruptException), which loses the writer, so the
     * primary gives its epoch up; that is a failover the benchmark would have caused itself.
     */
    BenchApi.RefreshLoadReply stop(long from, long to) {
      timer.shutdown();
      try {
        if (!timer.awaitTermination(60, TimeUnit.SECONDS)) {
          timer.shutdownNow();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      List<Long> took = refreshed.stream().filter(r -> r.endNanos() >= from && r.endNanos() <= to)
          .map(Refreshed::tookNanos).toList();
      return new BenchApi.RefreshLoadReply(took.size(), failures.get(), from, to, took);
    }
  }

  /** Threads and memory now; with {@code gc=true} a full GC first, so the heap figure is what is live. */
  private void jvm(HttpExchange ex) throws IOException {
    long heap = -1;
    if (JsonHttp.number(ex, "gc", 0) != 0) {
      var memory = ManagementFactory.getMemoryMXBean();
      // Twice: the first collection may leave objects whose finalization or cleaning frees more.
      memory.gc();
      memory.gc();
      heap = memory.getHeapMemoryUsage().getUsed();
    }
    int threads = ManagementFactory.getThreadMXBean().getThreadCount();
    int harness = 0;
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      harness += isHarness(t.getName()) ? 1 : 0;
    }
    JsonHttp.reply(ex, 200, new BenchApi.JvmReply(threads, harness, heap, residentBytes(), threadGroups()));
  }

  /** The agent's own threads: its HTTP server's dispatcher and workers, its CPU sampler, a refresh load's timers. */
  private static boolean isHarness(String name) {
    return name.startsWith("agent-http") || name.startsWith("bench-") || name.equals("HTTP-Dispatcher");
  }

  /** VmRSS from /proc (Linux); -1 elsewhere. */
  private static long residentBytes() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmRSS:")) {
          String[] parts = line.trim().split("\\s+");
          return Long.parseLong(parts[1]) * 1024;
        }
      }
    } catch (IOException | RuntimeException e) {
      // Not Linux: no resident size.
    }
    return -1;
  }

  private static Map<String, Integer> threadGroups() {
    Map<String, Integer> counts = new HashMap<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      String group = t.getName().replaceAll("s\\d{3}", "<index>").replaceAll("\\d+", "#");
      counts.merge(group, 1, Integer::sum);
    }
    Map.Entry<String, Integer>[] sorted = counts.entrySet().toArray(Map.Entry[]::new);
    Arrays.sort(sorted, (a, b) -> a.getValue().equals(b.getValue()) ? a.getKey().compareTo(b.getKey()) : b.getValue() - a.getValue());
    Map<String, Integer> top = new LinkedHashMap<>();
    for (int i = 0; i < Math.min(THREAD_GROUPS, sorted.length); i++) {
      top.put(sorted[i].getKey(), sorted[i].getValue());
    }
    return top;
  }

  @Override
  public synchronized void close() {
    if (load != null) {
      load.stop(0, 0);
      load = null;
    }
  }
}

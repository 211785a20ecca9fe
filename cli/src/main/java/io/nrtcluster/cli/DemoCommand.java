package io.nrtcluster.cli;

import io.nrtcluster.primary.Primary;
import io.nrtcluster.primary.PrimaryConfig;
import io.nrtcluster.replica.Replica;
import io.nrtcluster.replica.ReplicaConfig;
import io.nrtcluster.transport.TransportConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FilterLeafReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.MultiTerms;
import org.apache.lucene.index.SegmentReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.util.BytesRef;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code nrt demo}: a primary and two replicas in this process on 127.0.0.1, real Europarl text
 * indexed while the replicas follow every refresh, one replica restarted midway, and a final check
 * that every replica searches the primary's last version with the same hits.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Runs a primary and two replicas on 127.0.0.1, indexes Europarl text (mostly adds, some updates and "
          + "deletes) and refreshes periodically; restarts replica R2 halfway through.",
      "Prints one line per refresh: version, documents, files and bytes the replicas copied since the "
          + "previous line, and each replica's lag from the start of the refresh until it searches that version.",
      "Ends with one summary line; exit code 0 only if every replica searches the final version with the "
          + "primary's hit counts."
    })
public final class DemoCommand implements Callable<Integer> {
  static final String CLUSTER = "demo";
  static final String INDEX = "europarl";
  static final int REPLICAS = 2;
  /** The replica (1-based id) restarted halfway through. */
  static final int RESTART_ID = 2;
  static final Duration CONVERGE_TIMEOUT = Duration.ofSeconds(30);

  /** Queries compared between the primary and every replica at the final version. */
  static final List<Map.Entry<String, Query>> QUERIES = List.of(
      Map.entry("all", MatchAllDocsQuery.INSTANCE),
      Map.entry("commission", new TermQuery(new Term("body", "commission"))),
      Map.entry("europa", new TermQuery(new Term("body", "europa"))),
      Map.entry("parliament", new TermQuery(new Term("body", "parliament"))));

  @Spec
  CommandSpec spec;

  @Option(names = "--dir", paramLabel = "DIR",
      description = "Data directory, kept afterwards (primary/, replica-1/, replica-2/ inside; a second run continues "
          + "the same index). Default: a new temporary directory, deleted at the end.")
  Path dir;

  @Option(names = "--duration", paramLabel = "TIME", defaultValue = "20s", converter = DurationConverter.class,
      description = "How long to index, e.g. 20s, 90s, 2m (default: ${DEFAULT-VALUE}).")
  Duration duration;

  @Option(names = "--refresh-ms", paramLabel = "MS", defaultValue = "300",
      description = "Refresh (publish a new version) every MS milliseconds (default: ${DEFAULT-VALUE}).")
  int refreshMs;

  @Option(names = "--docs-per-refresh", paramLabel = "N", defaultValue = "500",
      description = "Index operations between two refreshes (default: ${DEFAULT-VALUE}).")
  int docsPerRefresh;

  @Option(names = "--seed", paramLabel = "SEED", defaultValue = "42",
      description = "Seed of the random choice of adds, updates and deletes (default: ${DEFAULT-VALUE}).")
  long seed;

  /** Set by Ctrl-C (the shutdown hook): the run stops at the next step, closes the nodes and cleans up. */
  private volatile boolean stopRequested;

  @Override
  public Integer call() throws Exception {
    validate();
    PrintWriter out = spec.commandLine().getOut();
    boolean temporary = dir == null;
    Path root = temporary ? Files.createTempDirectory("nrt-demo-") : dir.toAbsolutePath().normalize();
    CountDownLatch finished = new CountDownLatch(1);
    Thread hook = new Thread(() -> {
      stopRequested = true;
      try {
        finished.await(20, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "nrt-demo-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      if (!temporary) {
        Files.createDirectories(root);
      }
      return new Run(root, temporary, out).run();
    } finally {
      if (temporary) {
        deleteRecursively(root);
      }
      finished.countDown();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // The JVM is shutting down (Ctrl-C): the hook is running and waits for the line above.
      }
    }
  }

  private void validate() {
    if (duration.isZero() || duration.isNegative() || duration.compareTo(Duration.ofDays(1)) > 0) {
      throw new ParameterException(spec.commandLine(), "--duration must be between 1ms and 24h, got " + duration);
    }
    if (refreshMs < 10 || refreshMs > 60_000) {
      throw new ParameterException(spec.commandLine(), "--refresh-ms must be between 10 and 60000, got " + refreshMs);
    }
    if (docsPerRefresh < 1 || docsPerRefresh > 1_000_000) {
      throw new ParameterException(spec.commandLine(),
          "--docs-per-refresh must be between 1 and 1000000, got " + docsPerRefresh);
    }
  }

  /** One refresh of the primary, as printed. */
  private static final class Row {
    final long version;
    final boolean changed;
    final long startNanos;
    final long refreshNanos;
    final int numDocs;
    /** Replicas that were restarting (or closed) when the refresh started: no lag is measured for them. */
    final boolean[] down;
    /** Printed once every replica up at the refresh searches it, or at this nanoTime at the latest. */
    long printDeadline;
    String note = "";

    Row(long version, boolean changed, long startNanos, long refreshNanos, int numDocs, boolean[] down) {
      this.version = version;
      this.changed = changed;
      this.startNanos = startNanos;
      this.refreshNanos = refreshNanos;
      this.numDocs = numDocs;
      this.down = down;
    }
  }

  /** Tells the printer that no more rows come. */
  private static final Row END = new Row(-1, false, 0, 0, 0, new boolean[0]);

  static final long NOT_YET = -1;
  static final long RESTARTED = -2;

  /** One replica position: the replica open there now, across restarts, and when it reached each version. */
  private static final class Slot {
    final int nodeId;
    final ReplicaConfig config;
    /** Version -> nanoTime when this replica first searched it (never overwritten). */
    final ConcurrentSkipListMap<Long, Long> reached = new ConcurrentSkipListMap<>();
    final Object lock = new Object();
    /** nanoTimes at which this replica was closed to be restarted. */
    final List<Long> restarts = new CopyOnWriteArrayList<>();
    volatile Replica replica;
    volatile boolean restarting;
    long retiredBytes;
    long retiredFiles;

    Slot(int nodeId, ReplicaConfig config) {
      this.nodeId = nodeId;
      this.config = config;
    }

    Replica open() throws IOException {
      Replica r = Replica.open(config);
      r.addVersionListener(this::reached);
      reached(r.searchingVersion());
      synchronized (lock) {
        replica = r;
      }
      return r;
    }

    void reached(long version) {
      if (version >= 0) {
        reached.putIfAbsent(version, System.nanoTime());
      }
    }

    void close() throws IOException {
      Replica r = replica;
      if (r == null) {
        return;
      }
      try {
        r.close();
      } finally {
        synchronized (lock) {
          retiredBytes += r.stats().bytesCopied();
          retiredFiles += r.stats().filesCopied();
          replica = null;
        }
      }
    }

    /** Files and bytes copied by every replica ever open in this slot. */
    long[] copied() {
      synchronized (lock) {
        Replica r = replica;
        return new long[] {
          retiredFiles + (r == null ? 0 : r.stats().filesCopied()),
          retiredBytes + (r == null ? 0 : r.stats().bytesCopied())
        };
      }
    }

    /**
     * Nanos from {@code sinceNanos} until this replica first searched {@code version} or later;
     * {@link #NOT_YET} if it does not yet, {@link #RESTARTED} if it was restarted before it got there.
     */
    long lagNanos(long version, long sinceNanos) {
      Map.Entry<Long, Long> e = reached.ceilingEntry(version);
      long reachedAt = e == null ? Long.MAX_VALUE : e.getValue();
      for (long restart : restarts) {
        if (restart >= sinceNanos && restart < reachedAt) {
          return RESTARTED;
        }
      }
      return e == null ? NOT_YET : Math.max(0, reachedAt - sinceNanos);
    }

    String name() {
      return "R" + nodeId;
    }
  }

  /** One run of the demo; all its state. */
  private final class Run {
    final Path root;
    final boolean temporary;
    final PrintWriter out;
    final Random random = new Random(seed);
    final Slot[] slots = new Slot[REPLICAS];
    final List<Row> rows = new ArrayList<>();
    final long refreshNanos = TimeUnit.MILLISECONDS.toNanos(refreshMs);
    /** Longest a row waits for replicas before it is printed with "-" for those not there yet. */
    final long printWaitNanos = Math.max(TimeUnit.SECONDS.toNanos(2), 5 * refreshNanos);
    final BlockingQueue<Row> toPrint = new LinkedBlockingQueue<>();
    volatile String restartFailure;
    Primary primary;
    EuroparlDocs docs;
    long t0;
    long nextId;
    long lastVersion = -1;
    long[] printedCopied = new long[2];
    long adds;
    long updates;
    long deletes;

    Run(Path root, boolean temporary, PrintWriter out) {
      this.root = root;
      this.temporary = temporary;
      this.out = out;
    }

    int run() throws Exception {
      TransportConfig transport = TransportConfig.builder().ioThreads(2).requestThreads(8).build();
      docs = new EuroparlDocs();
      try {
        primary = Primary.open(PrimaryConfig.builder().nodeId(0).cluster(CLUSTER).index(INDEX)
            .dataDir(root.resolve("primary")).bindHost("127.0.0.1").port(0).transport(transport)
            .closeTimeout(Duration.ofSeconds(5)).build(), new IndexWriterConfig(new StandardAnalyzer()));
        nextId = nextFreeId();
        for (int i = 0; i < REPLICAS; i++) {
          int id = i + 1;
          slots[i] = new Slot(id, ReplicaConfig.builder().nodeId(id).cluster(CLUSTER).index(INDEX)
              .dataDir(root.resolve("replica-" + id)).primary(primary.address()).transport(transport)
              .reconnectMin(Duration.ofMillis(50)).reconnectMax(Duration.ofSeconds(1)).build());
          slots[i].open();
        }
        return drive();
      } finally {
        closeAll();
      }
    }

    private int drive() throws Exception {
      printHeader();
      t0 = System.nanoTime();
      printedCopied = copiedTotal();
      long end = t0 + duration.toNanos();
      long restartAt = t0 + duration.toNanos() / 2;
      long nextRefresh = t0 + refreshNanos;
      Thread printer = Thread.ofPlatform().name("nrt-demo-printer").daemon().start(this::printRows);
      Thread restarter = null;
      try {
        while (!stopRequested) {
          indexBatch();
          if (restarter == null && System.nanoTime() >= restartAt) {
            restarter = Thread.ofPlatform().name("nrt-demo-restart").daemon().start(this::restartReplica);
          }
          sleepUntil(nextRefresh);
          if (System.nanoTime() >= end || stopRequested) {
            break;
          }
          toPrint.add(refresh());
          nextRefresh = Math.max(nextRefresh + refreshNanos, System.nanoTime());
        }
        if (restarter != null) {
          restarter.join(CONVERGE_TIMEOUT.toMillis() * 2);
        }
        if (stopRequested) {
          return 130;
        }
        // Indexing stopped: one last refresh that every replica must reach.
        Row last = refresh();
        String lagging = awaitReplicas(last.version);
        last.note = "  (final)";
        last.printDeadline = Math.max(last.printDeadline, System.nanoTime() + TimeUnit.SECONDS.toNanos(1));
        toPrint.add(last);
        toPrint.add(END);
        printer.join(TimeUnit.SECONDS.toMillis(10));
        return verify(last, lagging);
      } finally {
        if (printer.isAlive()) {
          printer.interrupt();
          printer.join(1000);
        }
        if (stopRequested) {
          println("demo: interrupted");
        }
      }
    }

    /** Prints the rows in order, each as soon as every replica searches its version (or after a while). */
    private void printRows() {
      try {
        for (Row row = toPrint.take(); row != END; row = toPrint.take()) {
          while (!allReached(row) && System.nanoTime() < row.printDeadline && !stopRequested) {
            Thread.sleep(1);
          }
          printRow(row);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    private boolean allReached(Row row) {
      for (int i = 0; i < REPLICAS; i++) {
        if (!row.down[i] && slots[i].lagNanos(row.version, row.startNanos) == NOT_YET) {
          return false;
        }
      }
      return true;
    }

    private void printHeader() {
      println(String.format(Locale.ROOT,
          "nrt demo: 1 primary + %d replicas on 127.0.0.1 for %s; Europarl text, %d ops per refresh every %d ms, seed %d",
          REPLICAS, human(duration), docsPerRefresh, refreshMs, seed));
      println("  primary P0 at " + primary.address() + ", data in " + root
          + (temporary ? " (temporary, deleted at the end)" : " (kept)") + "; R" + RESTART_ID + " restarts at "
          + seconds(duration.toNanos() / 2));
      println("  files, copied: by all replicas since the previous line; lag: from the start of the refresh until"
          + " the replica searches that version");
      println("");
      StringBuilder h = new StringBuilder(String.format(Locale.ROOT, "%7s %9s %8s %8s %6s %10s", "time", "version",
          "docs", "refresh", "files", "copied"));
      for (Slot s : slots) {
        h.append(String.format(Locale.ROOT, " %8s", s.name() + " lag"));
      }
      println(h.toString());
    }

    private void indexBatch() throws IOException {
      IndexWriter writer = primary.writer();
      for (int i = 0; i < docsPerRefresh; i++) {
        double op = random.nextDouble();
        if (nextId == 0 || op < 0.80) {
          String id = Long.toString(nextId++);
          writer.addDocument(docs.nextDocument(id));
          adds++;
        } else if (op < 0.95) {
          String id = Long.toString(random.nextLong(nextId));
          writer.updateDocument(new Term("id", id), docs.nextDocument(id));
          updates++;
        } else {
          writer.deleteDocuments(new Term("id", Long.toString(random.nextLong(nextId))));
          deletes++;
        }
      }
    }

    private Row refresh() throws IOException {
      boolean[] down = new boolean[REPLICAS];
      for (int i = 0; i < REPLICAS; i++) {
        down[i] = slots[i].restarting || slots[i].replica == null;
      }
      long start = System.nanoTime();
      long version = primary.refresh();
      long took = System.nanoTime() - start;
      int numDocs;
      IndexSearcher s = primary.acquireSearcher();
      try {
        numDocs = s.getIndexReader().numDocs();
      } finally {
        primary.releaseSearcher(s);
      }
      Row row = new Row(version, version != lastVersion, start, took, numDocs, down);
      row.printDeadline = start + printWaitNanos;
      lastVersion = version;
      rows.add(row);
      return row;
    }

    /** Files and bytes copied by all replicas so far. */
    private long[] copiedTotal() {
      long files = 0;
      long bytes = 0;
      for (Slot s : slots) {
        long[] c = s.copied();
        files += c[0];
        bytes += c[1];
      }
      return new long[] {files, bytes};
    }

    private void printRow(Row row) {
      long[] copied = copiedTotal();
      long files = copied[0];
      long bytes = copied[1];
      StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%7s %9d %8d %8s %6d %10s",
          seconds(row.startNanos - t0), row.version, row.numDocs, millis(row.refreshNanos) + "ms", files - printedCopied[0],
          bytes(bytes - printedCopied[1])));
      printedCopied = new long[] {files, bytes};
      for (int i = 0; i < REPLICAS; i++) {
        long lag = row.down[i] ? -1 : slots[i].lagNanos(row.version, row.startNanos);
        line.append(String.format(Locale.ROOT, " %8s", lag < 0 ? "-" : millis(lag) + "ms"));
      }
      println(line.append(row.note).toString());
    }

    /**
     * Closes replica R2, keeps it down for a few refreshes, and opens it again on the same directory;
     * then reports what it copied to catch up, against the size of the index it searches.
     */
    private void restartReplica() {
      Slot slot = slots[RESTART_ID - 1];
      long downNanos = Math.min(Math.max(TimeUnit.MILLISECONDS.toNanos(500), 2 * refreshNanos), duration.toNanos() / 4);
      try {
        event(String.format(Locale.ROOT, "%s restarting: close, stay down %s, open again on the same directory",
            slot.name(), seconds(downNanos)));
        Slot other = slots[RESTART_ID == 1 ? 1 : 0];
        long otherBefore = other.copied()[1];
        long closeStart = System.nanoTime();
        slot.restarting = true;
        slot.restarts.add(closeStart);
        slot.close();
        long wakeUp = closeStart + downNanos;
        while (System.nanoTime() < wakeUp && !stopRequested) {
          Thread.sleep(5);
        }
        Replica r = slot.open();
        slot.restarting = false;
        long downMs = millis(System.nanoTime() - closeStart);
        long openedAt = r.searchingVersion();
        long target = primary.version();
        long catchUpStart = System.nanoTime();
        long deadline = catchUpStart + CONVERGE_TIMEOUT.toNanos();
        while (r.searchingVersion() < target && System.nanoTime() < deadline && !stopRequested) {
          Thread.sleep(1);
        }
        long now = r.searchingVersion();
        if (now < target) {
          restartFailure = slot.name() + " did not catch up to version " + target + " within "
              + human(CONVERGE_TIMEOUT) + " after its restart (searching " + now + ")";
          event(restartFailure);
          return;
        }
        long catchUpMs = millis(System.nanoTime() - catchUpStart);
        long otherCopied = other.copied()[1] - otherBefore;
        long copied = r.stats().bytesCopied();
        long files = r.stats().filesCopied();
        long index = indexBytes(r);
        event(String.format(Locale.ROOT, "%s open again at version %d after %d ms down; caught up to version %d in %d ms",
            slot.name(), openedAt, downMs, now, catchUpMs));
        event(String.format(Locale.ROOT, "%s copied %d files, %s of a %s index (%.0f%%); %s copied %s meanwhile",
            slot.name(), files, bytes(copied), bytes(index), index == 0 ? 0.0 : 100.0 * copied / index, other.name(),
            bytes(otherCopied)));
      } catch (Exception e) {
        slot.restarting = false;
        restartFailure = slot.name() + " restart failed: " + Main.describe(e);
        event(restartFailure);
      }
    }

    /** Waits until every replica searches {@code version}; returns who did not in time, or null. */
    private String awaitReplicas(long version) throws InterruptedException {
      long deadline = System.nanoTime() + CONVERGE_TIMEOUT.toNanos();
      List<String> behind = new ArrayList<>();
      do {
        behind.clear();
        for (Slot s : slots) {
          Replica r = s.replica;
          if (r == null || r.searchingVersion() < version) {
            behind.add(s.name() + (r == null ? " (closed)" : " at version " + r.searchingVersion()));
          }
        }
        if (behind.isEmpty()) {
          return null;
        }
        Thread.sleep(5);
      } while (System.nanoTime() < deadline && !stopRequested);
      return String.join(", ", behind) + " after waiting " + human(CONVERGE_TIMEOUT);
    }

    private int verify(Row last, String lagging) throws IOException {
      if (restartFailure != null) {
        return failed(restartFailure);
      }
      if (lagging != null) {
        return failed("replicas did not reach final version " + last.version + ": " + lagging);
      }
      long[] expected;
      IndexSearcher ps = primary.acquireSearcher();
      try {
        long pv = ((DirectoryReader) ps.getIndexReader()).getVersion();
        if (pv != last.version) {
          return failed("primary searches version " + pv + ", not its final version " + last.version);
        }
        expected = counts(ps);
      } finally {
        primary.releaseSearcher(ps);
      }
      for (Slot s : slots) {
        Replica r = s.replica;
        IndexSearcher rs = r.acquireSearcher();
        try {
          long rv = ((DirectoryReader) rs.getIndexReader()).getVersion();
          if (rv != last.version) {
            return failed(s.name() + " searches version " + rv + ", not the final version " + last.version);
          }
          long[] got = counts(rs);
          if (!Arrays.equals(expected, got)) {
            return failed(s.name() + " disagrees with the primary at version " + last.version + ": hits "
                + hits(got) + " vs " + hits(expected));
          }
        } finally {
          r.releaseSearcher(rs);
        }
      }
      long total = copiedTotal()[1];
      long[] lags = lags();
      println(String.format(Locale.ROOT, "  %d adds, %d updates, %d deletes; %d lines of Europarl read", adds, updates,
          deletes, docs.linesRead()));
      println(String.format(Locale.ROOT,
          "demo: OK final version=%d docs=%d replicas agree (hits %s) refreshes=%d p50 lag=%sms max lag=%sms bytes copied=%s",
          last.version, last.numDocs, hits(expected), rows.size(), lags.length == 0 ? "-" : millis(percentile(lags, 50)),
          lags.length == 0 ? "-" : millis(lags[lags.length - 1]), bytes(total)));
      return 0;
    }

    private int failed(String why) {
      println("demo: FAILED " + why);
      return Main.EXIT_FAILED;
    }

    /** Lags of every changed refresh on every replica that was up then, sorted. */
    private long[] lags() {
      List<Long> all = new ArrayList<>();
      for (Row row : rows) {
        if (!row.changed) {
          continue;
        }
        for (int i = 0; i < REPLICAS; i++) {
          long lag = slots[i].lagNanos(row.version, row.startNanos);
          if (!row.down[i] && lag >= 0) {
            all.add(lag);
          }
        }
      }
      return all.stream().mapToLong(Long::longValue).sorted().toArray();
    }

    private long nextFreeId() throws IOException {
      IndexSearcher s = primary.acquireSearcher();
      try {
        Terms terms = MultiTerms.getTerms(s.getIndexReader(), "id");
        long max = -1;
        if (terms != null) {
          TermsEnum te = terms.iterator();
          for (BytesRef t = te.next(); t != null; t = te.next()) {
            try {
              max = Math.max(max, Long.parseLong(t.utf8ToString()));
            } catch (NumberFormatException e) {
              // Not one of ours.
            }
          }
        }
        return max + 1;
      } finally {
        primary.releaseSearcher(s);
      }
    }

    private void closeAll() {
      List<String> problems = new ArrayList<>();
      for (Slot s : slots) {
        if (s != null) {
          try {
            s.close();
          } catch (IOException | RuntimeException e) {
            problems.add(s.name() + ": " + Main.describe(e));
          }
        }
      }
      if (primary != null) {
        try {
          if (!temporary && !stopRequested) {
            primary.commit();
          }
          primary.close();
        } catch (IOException | RuntimeException e) {
          problems.add("P0: " + Main.describe(e));
        }
      }
      try {
        if (docs != null) {
          docs.close();
        }
      } catch (IOException e) {
        // Nothing to lose.
      }
      for (String p : problems) {
        spec.commandLine().getErr().println("nrt demo: closing " + p);
      }
    }

    private void sleepUntil(long nanoTime) throws InterruptedException {
      long left;
      while ((left = nanoTime - System.nanoTime()) > 0 && !stopRequested) {
        TimeUnit.NANOSECONDS.sleep(Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
      }
    }

    private void event(String what) {
      println(String.format(Locale.ROOT, "%7s   %s", seconds(System.nanoTime() - t0), "-- " + what));
    }

    private synchronized void println(String line) {
      out.println(line);
      out.flush();
    }
  }

  private static long[] counts(IndexSearcher s) throws IOException {
    long[] out = new long[QUERIES.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = s.count(QUERIES.get(i).getValue());
    }
    return out;
  }

  private static String hits(long[] counts) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < counts.length; i++) {
      sb.append(i == 0 ? "" : " ").append(QUERIES.get(i).getKey()).append('=').append(counts[i]);
    }
    return sb.toString();
  }

  /** Bytes of the point-in-time a replica searches now. */
  private static long indexBytes(Replica r) throws IOException {
    IndexSearcher s = r.acquireSearcher();
    try {
      return indexBytes(s.getIndexReader());
    } finally {
      r.releaseSearcher(s);
    }
  }

  private static long indexBytes(IndexReader reader) throws IOException {
    long total = 0;
    for (LeafReaderContext leaf : reader.leaves()) {
      LeafReader unwrapped = FilterLeafReader.unwrap(leaf.reader());
      if (unwrapped instanceof SegmentReader sr) {
        total += sr.getSegmentInfo().sizeInBytes();
      }
    }
    return total;
  }

  private static long percentile(long[] sorted, int p) {
    int rank = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.max(0, rank - 1)];
  }

  static long millis(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(nanos);
  }

  static String seconds(long nanos) {
    return String.format(Locale.ROOT, "%.1fs", nanos / 1e9);
  }

  static String human(Duration d) {
    long ms = d.toMillis();
    if (ms % 60_000 == 0 && ms >= 60_000) {
      return ms / 60_000 + "m";
    }
    if (ms % 1000 == 0) {
      return ms / 1000 + "s";
    }
    return ms + "ms";
  }

  static String bytes(long n) {
    if (n < 1024) {
      return n + " B";
    }
    if (n < 1024 * 1024) {
      return String.format(Locale.ROOT, "%.1f KiB", n / 1024.0);
    }
    if (n < 1024L * 1024 * 1024) {
      return String.format(Locale.ROOT, "%.1f MiB", n / (1024.0 * 1024));
    }
    return String.format(Locale.ROOT, "%.2f GiB", n / (1024.0 * 1024 * 1024));
  }

  private static void deleteRecursively(Path root) {
    try (Stream<Path> walk = Files.walk(root)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.deleteIfExists(p);
        } catch (IOException e) {
          // Best effort: a temp directory left behind is harmless.
        }
      });
    } catch (IOException e) {
      // Best effort.
    }
  }
}

package io.nrtcluster.cli;

import io.nrtcluster.election.Role;
import io.nrtcluster.node.ClusterNode;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.IndexSearcher;

/**
 * One run of {@code nrt demo}: elect, index and refresh on whoever is primary, restart a replica
 * halfway, halt the primary at two thirds and replay the source on the new one, bring the halted
 * node back, then check that every node searches the same final version with the same hits and that
 * no source document was lost.
 */
final class DemoRun {
  static final Duration CONVERGE_TIMEOUT = Duration.ofSeconds(30);

  private final DemoCommand options;
  private final Console err;
  private final Path root;
  private final boolean temporary;
  private final BooleanSupplier stopped;
  private final DemoCluster cluster;
  private final DemoTable table;
  private final long refreshNanos;
  private final List<String> failures = new CopyOnWriteArrayList<>();
  private SourceLog source;
  private Ingest ingest;
  private long baselineDocs;
  private int refreshedEntries;
  private Ingest.Takeover takeover;
  private long oldGen;

  DemoRun(DemoCommand options, Path root, boolean temporary, Console out, Console err, BooleanSupplier stopped) {
    this.options = options;
    this.err = err;
    this.root = root;
    this.temporary = temporary;
    this.stopped = stopped;
    this.cluster = new DemoCluster(root);
    this.refreshNanos = TimeUnit.MILLISECONDS.toNanos(options.refreshMs);
    this.table = new DemoTable(out, cluster, Math.max(TimeUnit.SECONDS.toNanos(2), 5 * refreshNanos));
  }

  int run() throws Exception {
    try {
      int primary = elect();
      String position = cluster.node(primary).replayPosition();
      source = new SourceLog(options.seed, cluster.nextFreeId(primary), SourceLog.count(position));
      baselineDocs = cluster.numDocs(primary);
      ingest = new Ingest(cluster, source, primary);
      return drive();
    } finally {
      for (String p : cluster.closeAll()) {
        err.println("nrt demo: closing " + p);
      }
      if (source != null) {
        source.close();
      }
    }
  }

  /**
   * Starts N1 (with ZooKeeper), then N2 and N3 with the index, and waits for their election; N1
   * joins after it, as a replica, so that halting the primary never stops ZooKeeper.
   */
  private int elect() throws Exception {
    cluster.startZooKeeperHost();
    long start = System.nanoTime();
    for (int i = 1; i < DemoCluster.NODES; i++) {
      cluster.start(i);
    }
    int p = cluster.awaitPrimary(Ingest.ELECTION_TIMEOUT);
    long electedMs = Units.millis(System.nanoTime() - start);
    cluster.start(DemoCluster.ZK_HOST);
    table.println(String.format(Locale.ROOT,
        "nrt demo: %d nodes on 127.0.0.1 for %s; Europarl text, %d docs per refresh every %d ms, seed %d",
        DemoCluster.NODES, Units.human(options.duration), options.docsPerRefresh, options.refreshMs, options.seed));
    table.println("  ZooKeeper embedded in N1 at " + cluster.zooKeeper() + "; session timeout "
        + Units.human(DemoCluster.SESSION_TIMEOUT) + ", election settle " + Units.human(DemoCluster.ELECTION_SETTLE)
        + "; data in " + root + (temporary ? " (temporary, deleted at the end)" : " (kept)"));
    table.println(String.format(Locale.ROOT, "  election: %s is primary of generation %d (elected in %d ms); N1 joins "
        + "afterwards as a replica (it carries ZooKeeper, so it is never the one halted)", DemoCluster.name(p),
        cluster.node(p).primaryGen(), electedMs));
    table.println(String.format(Locale.ROOT, "  plan: restart a replica at %s; halt the primary at %s, replay the source "
        + "on the new one, restart the halted node", Units.seconds(options.duration.toNanos() / 2),
        Units.seconds(options.duration.toNanos() * 2 / 3)));
    table.println("  files, copied: by all replicas since the previous line; lag: from the start of a refresh until the "
        + "node searches that version");
    table.println("");
    return p;
  }

  private int drive() throws Exception {
    table.start();
    long t0 = System.nanoTime();
    long end = t0 + options.duration.toNanos();
    long restartAt = t0 + options.duration.toNanos() / 2;
    long failoverAt = t0 + options.duration.toNanos() * 2 / 3;
    long downNanos = Math.min(Math.max(TimeUnit.MILLISECONDS.toNanos(500), 2 * refreshNanos), options.duration.toNanos() / 4);
    long nextRefresh = t0 + refreshNanos;
    Thread restarter = null;
    Thread rejoiner = null;
    int halted = -1;
    long haltedAt = 0;
    while (!stopped.getAsBoolean()) {
      ingest.append(options.docsPerRefresh);
      long now = System.nanoTime();
      if (restarter == null && now >= restartAt) {
        restarter = background("nrt-demo-restart", () -> restartReplica(downNanos));
      }
      boolean refreshed = false;
      if (takeover == null && restarter != null && !restarter.isAlive() && now >= failoverAt) {
        halted = ingest.primary();
        haltedAt = System.nanoTime();
        failover();
        refreshed = true;
      }
      if (halted >= 0 && rejoiner == null && now >= haltedAt + downNanos) {
        int node = halted;
        long since = haltedAt;
        rejoiner = background("nrt-demo-rejoin", () -> rejoin(node, since));
      }
      sleepUntil(nextRefresh);
      if (System.nanoTime() >= end && rejoiner != null) {
        break;
      }
      if (!refreshed) {
        table.print(refresh());
      }
      nextRefresh = Math.max(nextRefresh + refreshNanos, System.nanoTime());
    }
    for (Thread t : Arrays.asList(restarter, rejoiner)) {
      if (t != null) {
        t.join(CONVERGE_TIMEOUT.toMillis() * 2);
      }
    }
    if (stopped.getAsBoolean()) {
      table.finish(1000);
      table.println("demo: interrupted");
      return 130;
    }
    // Indexing stopped: one last refresh that every node must reach.
    DemoTable.Row last = refresh();
    String lagging = awaitAll(last.version);
    last.note = "  (final)";
    last.printDeadline = Math.max(last.printDeadline, System.nanoTime() + TimeUnit.SECONDS.toNanos(1));
    table.print(last);
    table.finish(TimeUnit.SECONDS.toMillis(10));
    return verify(last, lagging);
  }

  private DemoTable.Row refresh() throws IOException, InterruptedException {
    boolean[] down = new boolean[DemoCluster.NODES];
    for (int i = 0; i < down.length; i++) {
      down[i] = !cluster.isUp(i);
    }
    long start = System.nanoTime();
    long version = ingest.refresh();
    long took = System.nanoTime() - start;
    refreshedEntries = source.size();
    int p = ingest.primary();
    return table.add(version, start, took, cluster.numDocs(p), p, down);
  }

  /** Halts the primary (crash-like), waits for the new one and replays the source there. */
  private void failover() throws Exception {
    int old = ingest.primary();
    oldGen = cluster.node(old).primaryGen();
    table.event(String.format(Locale.ROOT, "failover: halting primary %s (NrtHost.halt(): crash-like, nothing "
        + "committed or resigned) with %d source docs not yet refreshed", DemoCluster.name(old),
        source.size() - refreshedEntries));
    long start = System.nanoTime();
    cluster.halt(old);
    takeover = ingest.follow(start);
    table.event(String.format(Locale.ROOT, "%s is primary %d ms after the halt: generation %d -> %d, at version %d, "
        + "replay position %s", DemoCluster.name(takeover.node()), Units.millis(takeover.electedNanos()), oldGen,
        takeover.gen(), takeover.version(), takeover.position()));
    if (takeover.gen() <= oldGen) {
      failures.add("the new primary's generation " + takeover.gen() + " is not above " + oldGen);
    }
    table.event(String.format(Locale.ROOT, "replayed %d source docs (%s up to %s) on %s", takeover.replayed(),
        source.position(takeover.replayFrom()), source.position(), DemoCluster.name(takeover.node())));
    DemoTable.Row row = refresh();
    row.note = "  (after replay)";
    table.print(row);
  }

  /**
   * Closes a replica gracefully (not N1, not the primary), keeps it down for {@code downNanos}, starts
   * it again on the same directory, and reports what it copied to catch up.
   */
  private void restartReplica(long downNanos) throws Exception {
    int primary = ingest.primary();
    int r = 1;
    while (r == primary || r == DemoCluster.ZK_HOST) {
      r++;
    }
    String name = DemoCluster.name(r);
    table.event(String.format(Locale.ROOT, "%s restarting: NrtHost.close(), down %s, then NrtHost.start + openIndex "
        + "on the same directory", name, Units.seconds(downNanos)));
    Copied othersBefore = othersCopied(r);
    long closeStart = System.nanoTime();
    cluster.close(r);
    sleepUntil(closeStart + downNanos);
    Copied before = cluster.tracker(r).copied();
    ClusterNode node = cluster.start(r);
    long downMs = Units.millis(System.nanoTime() - closeStart);
    long openedAt = node.searchingVersion();
    long catchUpStart = System.nanoTime();
    long target = catchUp(node);
    Copied copied = cluster.tracker(r).copied().since(before);
    long index = cluster.indexBytes(r);
    table.event(String.format(Locale.ROOT, "%s open again at version %d after %d ms down; caught up to version %d in %d ms",
        name, openedAt, downMs, target, Units.millis(System.nanoTime() - catchUpStart)));
    table.event(String.format(Locale.ROOT, "%s copied %d files, %s of a %s index (%.0f%%); the other replica copied %s "
        + "meanwhile", name, copied.files(), Units.bytes(copied.bytes()), Units.bytes(index),
        index == 0 ? 0.0 : 100.0 * copied.bytes() / index, Units.bytes(othersCopied(r).since(othersBefore).bytes())));
  }

  /** Starts the halted node again on its directory: it must rejoin as a replica of the new generation. */
  private void rejoin(int i, long haltedAt) throws Exception {
    String name = DemoCluster.name(i);
    table.event(String.format(Locale.ROOT, "%s restarting after %s down: NrtHost.start + openIndex on the same "
        + "directory", name, Units.seconds(System.nanoTime() - haltedAt)));
    Copied before = cluster.tracker(i).copied();
    long start = System.nanoTime();
    ClusterNode node = cluster.start(i);
    long openedAt = node.searchingVersion();
    long target = catchUp(node);
    Copied copied = cluster.tracker(i).copied().since(before);
    if (node.role() != Role.REPLICA) {
      failures.add(name + " rejoined as " + node.role() + ", not as a replica");
    }
    table.event(String.format(Locale.ROOT, "%s back as %s of generation %d: opened at version %d, caught up to version "
        + "%d in %d ms, copied %d files, %s", name, node.role(), node.primaryGen(), openedAt, target,
        Units.millis(System.nanoTime() - start), copied.files(), Units.bytes(copied.bytes())));
  }

  /** Waits until {@code node} searches what the primary searches now; returns that version. */
  private long catchUp(ClusterNode node) throws InterruptedException {
    long target = cluster.node(ingest.primary()).searchingVersion();
    long deadline = System.nanoTime() + CONVERGE_TIMEOUT.toNanos();
    while (node.searchingVersion() < target && System.nanoTime() < deadline && !stopped.getAsBoolean()) {
      Thread.sleep(1);
    }
    if (node.searchingVersion() < target) {
      throw new Main.CliException("did not catch up to version " + target + " within " + Units.human(CONVERGE_TIMEOUT)
          + " (searching " + node.searchingVersion() + ")");
    }
    return target;
  }

  private Copied othersCopied(int except) {
    Copied sum = Copied.NONE;
    for (int i = 0; i < DemoCluster.NODES; i++) {
      if (i != except) {
        sum = sum.plus(cluster.tracker(i).copied());
      }
    }
    return sum;
  }

  /** Waits until every node searches {@code version}; returns who did not in time, or null. */
  private String awaitAll(long version) throws InterruptedException {
    long deadline = System.nanoTime() + CONVERGE_TIMEOUT.toNanos();
    List<String> behind = new ArrayList<>();
    do {
      behind.clear();
      for (int i = 0; i < DemoCluster.NODES; i++) {
        ClusterNode n = cluster.node(i);
        if (n == null || n.searchingVersion() < version) {
          behind.add(DemoCluster.name(i) + (n == null ? " (down)" : " at version " + n.searchingVersion()));
        }
      }
      if (behind.isEmpty()) {
        return null;
      }
      Thread.sleep(5);
    } while (System.nanoTime() < deadline && !stopped.getAsBoolean());
    return String.join(", ", behind) + " after waiting " + Units.human(CONVERGE_TIMEOUT);
  }

  private int verify(DemoTable.Row last, String lagging) throws IOException {
    if (!failures.isEmpty()) {
      return failed(String.join("; ", failures));
    }
    if (takeover == null) {
      return failed("the failover did not happen");
    }
    if (lagging != null) {
      return failed("nodes did not reach final version " + last.version + ": " + lagging);
    }
    long[] expected = null;
    for (int i = 0; i < DemoCluster.NODES; i++) {
      ClusterNode n = cluster.node(i);
      IndexSearcher s = n.acquireSearcher();
      try {
        long v = ((DirectoryReader) s.getIndexReader()).getVersion();
        if (v != last.version) {
          return failed(DemoCluster.name(i) + " searches version " + v + ", not the final version " + last.version);
        }
        long[] got = DemoQueries.counts(s);
        if (expected != null && !Arrays.equals(expected, got)) {
          return failed(DemoCluster.name(i) + " disagrees at version " + last.version + ": hits " + DemoQueries.hits(got)
              + " vs " + DemoQueries.hits(expected));
        }
        expected = got;
      } finally {
        n.releaseSearcher(s);
      }
    }
    long want = baselineDocs + source.distinctIds();
    if (expected[0] != want) {
      return failed(String.format(Locale.ROOT, "all nodes search %d docs, but the source wrote %d distinct ids%s: "
          + "acknowledged documents were lost", expected[0], source.distinctIds(),
          baselineDocs == 0 ? "" : " (plus " + baselineDocs + " from an earlier run)"));
    }
    long[] lags = table.lags();
    table.println(String.format(Locale.ROOT, "  source: %d docs written (%d new ids, %d new texts for earlier ids), "
        + "%d replayed after the failover; %d lines of Europarl read", source.size(), source.adds(), source.updates(),
        ingest.replayed(), source.linesRead()));
    table.println(String.format(Locale.ROOT, "demo: OK final version=%d docs=%d (= distinct source ids%s) all %d nodes "
        + "agree (hits %s) refreshes=%d failover=%dms gen %d->%d replayed=%d p50 lag=%sms max lag=%sms bytes copied=%s",
        last.version, expected[0], baselineDocs == 0 ? "" : " + " + baselineDocs + " earlier", DemoCluster.NODES,
        DemoQueries.hits(expected), table.refreshes(), Units.millis(takeover.electedNanos()), oldGen, takeover.gen(),
        takeover.replayed(), lags.length == 0 ? "-" : Units.millis(DemoTable.percentile(lags, 50)),
        lags.length == 0 ? "-" : Units.millis(lags[lags.length - 1]), Units.bytes(cluster.copiedTotal().bytes())));
    return 0;
  }

  private int failed(String why) {
    table.println("demo: FAILED " + why);
    return Main.EXIT_FAILED;
  }

  /** Runs {@code work} on a daemon thread; a failure becomes an event and fails the run. */
  private Thread background(String name, ThrowingRunnable work) {
    return Thread.ofPlatform().name(name).daemon().start(() -> {
      try {
        work.run();
      } catch (Exception e) {
        String what = name.substring("nrt-demo-".length()) + " failed: " + Main.describe(e);
        failures.add(what);
        table.event(what);
      }
    });
  }

  @FunctionalInterface
  private interface ThrowingRunnable {
    void run() throws Exception;
  }

  private void sleepUntil(long nanoTime) throws InterruptedException {
    long left;
    while ((left = nanoTime - System.nanoTime()) > 0 && !stopped.getAsBoolean()) {
      TimeUnit.NANOSECONDS.sleep(Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
    }
  }
}

package io.nrtcluster.stress.bench;

import io.nrtcluster.stress.NodeProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * Figure 9, many indexes per node: {@code nodes} node processes each hosting every one of {@code
 * indexes} indexes, against the same processes hosting one index, in the same run and on the same
 * ZooKeeper server. In order:
 *
 * <ol>
 *   <li>one index: start to searching, each node's threads and heap, and {@code baselineFailovers}
 *       kill -9s of the primary, each timed to the first write acknowledged on a survivor;
 *   <li>all indexes: start (every node at once) to every index searching; primaries per node as
 *       elected, then watched until they settle ({@link PlacementWatch}); threads, heap after a full GC
 *       and resident size per node, less the one-index figures, per extra index;
 *   <li>ZooKeeper's write transactions with nothing refreshing, then with a document and a refresh
 *       per second per index on its primary, counted from ZooKeeper's transaction log;
 *   <li>kill -9 of the node holding the most primaries (a third of them once primaries are spread),
 *       timed per index it led to the first write acknowledged on a survivor; primaries per survivor
 *       as elected, then settled;
 *   <li>the killed node restarted: to every index searching on it again, and primaries per node
 *       watched until they settle.
 * </ol>
 */
final class ScaleFigure {
  /** The targets. */
  static final double TARGET_THREADS_PER_INDEX = 1.0;
  static final double TARGET_OVER_ONE_INDEX_MS = 1_000;
  private static final Duration WRITABLE_DEADLINE = Duration.ofMinutes(2);
  /** How long every replica gets, after the refresh load, to search its primary's last version. */
  private static final Duration DRAIN = Duration.ofSeconds(30);
  private static final long REFRESH_MS = 1_000;

  /**
   * What the figure does once the killed node is back and has caught up, before it watches primaries
   * move. The rebalancing the issue asks for is automatic (on by default in the node), so nothing.
   *
   * <p>LEAD: to time the operator's path instead (nodes started with rebalancing off), replace {@link
   * #REJOIN} with one that runs it, e.g. {@code (zk, cluster) -> { try (ClusterAdmin a =
   * ClusterAdmin.connect(zk, Duration.ofSeconds(30))) { a.rebalance(cluster, Duration.ofMinutes(5)); }
   * }}. The figure needs nothing else: it reads the placement from ZooKeeper's primary znodes.
   */
  @FunctionalInterface
  interface RejoinHook {
    void afterCaughtUp(String zooKeeper, String cluster) throws Exception;
  }

  static final RejoinHook REJOIN = (zooKeeper, cluster) -> {};

  private ScaleFigure() {}

  /** The one-index cluster's figures: start, each node's threads and memory, failovers. */
  private record OneIndex(double startMs, Map<Integer, BenchApi.JvmReply> jvm, List<Long> failoverNanos) {}

  static BenchReport.Scale run(BenchConfig config, BenchNodes nodes, Consumer<String> out, BenchTable table)
      throws Exception {
    ScaleConfig sc = config.scale();
    Path dir = config.out().resolve("scale");
    OneIndex one;
    out.accept("bench: scale: " + sc.nodes() + " nodes with one index (the baseline)");
    try (ScaleCluster c = new ScaleCluster(config, nodes.zooKeeper(), dir.resolve("one-index"), "scale-one", 1, sc.nodes())) {
      one = oneIndex(c, sc, out);
    }
    out.accept("bench: scale: " + sc.nodes() + " nodes with " + sc.indexes() + " indexes each");
    Duration quiet = Duration.ofSeconds(sc.quietSec());
    try (ScaleCluster c = new ScaleCluster(config, nodes.zooKeeper(), dir.resolve("indexes"), "scale", sc.indexes(),
        sc.nodes())) {
      long t0 = System.nanoTime();
      c.startAll();
      long searching = c.awaitAllSearching(ScaleCluster.START);
      double startMs = (searching - t0) / 1e6;
      BenchReport.ScaleStart start = new BenchReport.ScaleStart(round(one.startMs()), round(startMs),
          Dist.ratio(startMs, one.startMs()));
      out.accept(String.format(Locale.ROOT, "bench: scale: every index searching %.0f ms after the start (one index: %.0f ms)",
          startMs, one.startMs()));
      BenchReport.Placement elected = PlacementWatch.placement(PlacementWatch.await(c, c.upIds()), c.upIds());
      BenchReport.Rebalance afterStart = PlacementWatch.watch(c, searching, PlacementWatch.await(c, c.upIds()),
          CompletableFuture.completedFuture(searching), null, quiet, () -> {}, out);
      out.accept("bench: scale: primaries per node as elected: " + elected.primariesPerNode() + "; settled ("
          + afterStart.endedBy() + ", " + afterStart.moves() + " moved): " + afterStart.placement().primariesPerNode());
      Map<Integer, BenchApi.JvmReply> idle = jvm(c, true);

      ZkWriteCensus.Mark i0 = c.mark();
      park(TimeUnit.SECONDS.toNanos(Math.max(2, sc.loadSec() / 3)));
      ZkWriteCensus.Mark i1 = c.mark();
      BenchReport.ZooKeeperWrites zkIdle = ZkWriteCensus.count(nodes.zooKeeperDir(), i0, i1, null, 0, sc.indexes(), -1);
      double capacity = c.zooKeeperCapacity(Duration.ofSeconds(3));
      out.accept("bench: scale: ZooKeeper: idle " + zkIdle.perSec() + " writes/s; the server sustains " + capacity
          + " writes/s from one client");
      BenchReport.ZooKeeperWrites zkLoaded = zooKeeperLoad(c, sc, nodes.zooKeeperDir());
      out.accept(String.format(Locale.ROOT, "bench: scale: ZooKeeper at a refresh per second per index: %.1f writes/s, "
          + "%.2f per published version, %s; %.1f refreshes/s of %.0f asked for, each p50 %.1f ms, p99 %.1f ms",
          zkLoaded.perSec(), zkLoaded.writesPerVersion(), zkLoaded.byKind(), zkLoaded.refreshesPerSec(),
          zkLoaded.targetRefreshesPerSec(), zkLoaded.refreshMs().p50(), zkLoaded.refreshMs().p99()));
      long drained = System.nanoTime();
      String behind = null;
      double drainMs = -1;
      try {
        drainMs = round((c.awaitAllSearching(DRAIN) - drained) / 1e6);
      } catch (IOException e) {
        behind = c.notSearching(null);
        out.accept("bench: scale: " + DRAIN.toSeconds() + " s after the load, replicas still behind: " + behind);
      }
      Map<Integer, BenchApi.JvmReply> loaded = jvm(c, false);
      BenchReport.PerIndexCost cost = cost(one.jvm(), idle, loaded, sc.indexes());

      Killed k = massFailover(c, one.failoverNanos(), nodes.zooKeeperDir(), out);
      BenchReport.MassFailover failover = k.figure();
      NodeProcess killed = c.node(failover.killedNode());
      Map<Integer, Integer> elected2 = PlacementWatch.await(c, c.upIds());
      BenchReport.Placement electedAfterFailover = PlacementWatch.placement(elected2, c.upIds());
      BenchReport.Rebalance afterFailover = PlacementWatch.watch(c, k.killedAt(), elected2,
          CompletableFuture.completedFuture(k.writableAt()), null, quiet, () -> {}, out);
      out.accept("bench: scale: primaries per survivor as elected: " + electedAfterFailover.primariesPerNode()
          + "; settled (" + afterFailover.endedBy() + ", " + afterFailover.moves() + " moved): "
          + afterFailover.placement().primariesPerNode());

      out.accept("bench: scale: N" + killed.id() + " restarted; watching the primaries move");
      Map<Integer, Integer> beforeReturn = c.primaries();
      long r0 = System.nanoTime();
      // Started beside the watch: primaries may move while the node still opens its indexes.
      CompletableFuture<Long> served = CompletableFuture.supplyAsync(() -> {
        try {
          c.start(killed);
          return System.nanoTime();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
      BenchReport.Rebalance rebalance = PlacementWatch.watch(c, r0, beforeReturn, served, killed.id(), quiet,
          () -> REJOIN.afterCaughtUp(nodes.zooKeeper(), c.cluster()), out);
      out.accept("bench: scale: rebalance ended (" + rebalance.endedBy() + ") after " + rebalance.toEndMs() + " ms, "
          + rebalance.moves() + " primaries moved: " + rebalance.placement().primariesPerNode());

      BenchReport.Scale fig = new BenchReport.Scale(sc.indexes(), sc.nodes(), sc.heapMb(), start, cost, elected, afterStart,
          zkIdle, zkLoaded, capacity, drainMs, behind, failover, k.zk(), electedAfterFailover, afterFailover, rebalance,
          "threads: the JVM's live threads less the benchmark agent's own; heap: used after a full GC; per index: "
          + "(all indexes - one index) / (indexes - 1), the one-index figures from the same node ids in the one-index "
          + "cluster of this run; ZooKeeper writes: every transaction in ZooKeeper's log between two marker writes");
      rows(fig, table);
      return fig;
    }
  }

  private static OneIndex oneIndex(ScaleCluster c, ScaleConfig sc, Consumer<String> out) throws Exception {
    long t0 = System.nanoTime();
    c.startAll();
    double startMs = (c.awaitAllSearching(ScaleCluster.START) - t0) / 1e6;
    Map<Integer, BenchApi.JvmReply> jvm = jvm(c, true);
    List<Long> failovers = new ArrayList<>();
    for (int k = 0; k < sc.baselineFailovers(); k++) {
      NodeProcess victim = c.node(PlacementWatch.await(c, c.upIds()).get(0));
      out.accept("bench: scale: one-index failover " + (k + 1) + "/" + sc.baselineFailovers() + ": kill -9 of N" + victim.id());
      long k0 = System.nanoTime();
      victim.kill();
      Long acked = c.awaitWritable(Set.of(0), victim, WRITABLE_DEADLINE).get(0);
      if (acked == null) {
        throw new IOException("the one index was not writable within " + WRITABLE_DEADLINE.toSeconds() + " s of N"
            + victim.id() + "'s kill");
      }
      failovers.add(acked - k0);
      c.start(victim);
      c.awaitAllSearching(ScaleCluster.START);
    }
    return new OneIndex(startMs, jvm, failovers);
  }

  /** A document and a refresh per second per index, on its primary; ZooKeeper's writes between two marks. */
  private static BenchReport.ZooKeeperWrites zooKeeperLoad(ScaleCluster c, ScaleConfig sc, Path zooKeeperDir)
      throws Exception {
    c.startRefreshLoad(REFRESH_MS);
    ZkWriteCensus.Mark from;
    ZkWriteCensus.Mark to;
    try {
      park(TimeUnit.SECONDS.toNanos(Math.max(2, sc.loadSec() / 5)));
      from = c.mark();
      park(TimeUnit.SECONDS.toNanos(sc.loadSec()));
      to = c.mark();
    } catch (IOException | RuntimeException e) {
      c.stopRefreshLoad(0, 0);
      throw e;
    }
    List<Long> took = new ArrayList<>();
    for (BenchApi.RefreshLoadReply r : c.stopRefreshLoad(from.nanos(), to.nanos())) {
      took.addAll(r.refreshNanos());
    }
    long cpu = 0;
    for (NodeProcess p : c.nodes()) {
      cpu += c.cpuNanos(p, from.nanos(), to.nanos());
    }
    return ZkWriteCensus.count(zooKeeperDir, from, to, took, sc.indexes() * 1000.0 / REFRESH_MS, sc.indexes(),
        Math.round(cpu / (double) (to.nanos() - from.nanos()) * 100) / 100.0);
  }

  private static Map<Integer, BenchApi.JvmReply> jvm(ScaleCluster c, boolean gc) throws Exception {
    Map<Integer, BenchApi.JvmReply> out = new HashMap<>();
    for (NodeProcess p : c.nodes()) {
      out.put(p.id(), c.jvm(p, gc));
    }
    return out;
  }

  /** Per node: (all indexes - one index) / (indexes - 1); threads at the higher of idle and just after the load. */
  static BenchReport.PerIndexCost cost(Map<Integer, BenchApi.JvmReply> one, Map<Integer, BenchApi.JvmReply> idle,
      Map<Integer, BenchApi.JvmReply> loaded, int indexes) {
    List<BenchReport.NodeCost> nodes = new ArrayList<>();
    double maxThreads = 0;
    double maxHeap = 0;
    double maxResident = 0;
    int extra = indexes - 1;
    for (Map.Entry<Integer, BenchApi.JvmReply> e : new TreeMap<>(idle).entrySet()) {
      BenchApi.JvmReply base = one.get(e.getKey());
      BenchApi.JvmReply all = e.getValue();
      BenchApi.JvmReply after = loaded.get(e.getKey());
      int threadsOne = base.threads() - base.harnessThreads();
      int threadsAll = Math.max(all.threads() - all.harnessThreads(),
          after == null ? 0 : after.threads() - after.harnessThreads());
      double threadsPer = round2((double) (threadsAll - threadsOne) / extra);
      double heapPer = round((all.heapUsedAfterGcBytes() - base.heapUsedAfterGcBytes()) / 1024.0 / extra);
      double residentPer = round((all.residentBytes() - base.residentBytes()) / 1024.0 / extra);
      nodes.add(new BenchReport.NodeCost(e.getKey(), threadsOne, threadsAll, threadsPer, mib(base.heapUsedAfterGcBytes()),
          mib(all.heapUsedAfterGcBytes()), heapPer, mib(base.residentBytes()), mib(all.residentBytes()), residentPer,
          after == null ? all.threadGroups() : after.threadGroups()));
      maxThreads = Math.max(maxThreads, threadsPer);
      maxHeap = Math.max(maxHeap, heapPer);
      maxResident = Math.max(maxResident, residentPer);
    }
    return new BenchReport.PerIndexCost(maxThreads, maxHeap, maxResident, TARGET_THREADS_PER_INDEX,
        maxThreads <= TARGET_THREADS_PER_INDEX, List.copyOf(nodes));
  }

  /**
   * The mass failover, when its node was killed and when the last of its indexes was writable again
   * (nanoTime), and ZooKeeper's writes in between.
   */
  private record Killed(BenchReport.MassFailover figure, long killedAt, long writableAt, BenchReport.ZooKeeperWrites zk) {}

  /** kill -9 of the node leading the most indexes; each of its indexes timed to a write acknowledged on a survivor. */
  private static Killed massFailover(ScaleCluster c, List<Long> oneIndexNanos, Path zooKeeperDir, Consumer<String> out)
      throws IOException {
    Map<Integer, Integer> primaries = PlacementWatch.await(c, c.upIds());
    Map<Integer, Integer> perNode = ScaleCluster.perNode(primaries, c.upIds());
    int victimId = perNode.entrySet().stream().max((a, b) -> a.getValue().equals(b.getValue())
        ? Integer.compare(b.getKey(), a.getKey()) : Integer.compare(a.getValue(), b.getValue())).orElseThrow().getKey();
    Set<Integer> led = new TreeSet<>();
    primaries.forEach((index, node) -> {
      if (node == victimId) {
        led.add(index);
      }
    });
    NodeProcess victim = c.node(victimId);
    out.accept("bench: scale: kill -9 of N" + victimId + ", primary of " + led.size() + " of " + c.indexes() + " indexes");
    ZkWriteCensus.Mark before = c.mark();
    long k0 = System.nanoTime();
    victim.kill();
    Map<Integer, Long> acked = c.awaitWritable(led, victim, WRITABLE_DEADLINE);
    ZkWriteCensus.Mark after = c.mark();
    BenchReport.ZooKeeperWrites zk = ZkWriteCensus.count(zooKeeperDir, before, after, null, 0, c.indexes(), -1);
    List<Long> took = acked.values().stream().map(t -> t - k0).toList();
    Dist perIndex = Dist.ofNanos(took);
    Dist oneIndex = Dist.ofNanos(oneIndexNanos);
    int notWritable = led.size() - acked.size();
    double all = notWritable > 0 ? -1 : perIndex.max();
    double over = notWritable > 0 ? -1 : round(all - oneIndex.p50());
    out.accept(String.format(Locale.ROOT, "bench: scale: every index writable %.0f ms after the kill (p50 %.0f ms; one index: "
        + "p50 %.0f ms)%s", perIndex.max(), perIndex.p50(), oneIndex.p50(),
        notWritable > 0 ? "; " + notWritable + " not writable in time" : ""));
    long writableAt = acked.values().stream().mapToLong(Long::longValue).max().orElse(System.nanoTime());
    return new Killed(new BenchReport.MassFailover(victimId, led.size(), perIndex, all, notWritable, oneIndex, over,
        TARGET_OVER_ONE_INDEX_MS, notWritable == 0 && over <= TARGET_OVER_ONE_INDEX_MS), k0, writableAt, zk);
  }

  private static void rows(BenchReport.Scale f, BenchTable table) {
    String n = f.indexes() + " indexes";
    table.row("scale: start to every index searching, " + n + " / 1 index", f.start().allIndexesMs(),
        f.start().oneIndexMs(), "ms", "");
    BenchReport.PerIndexCost cost = f.perIndex();
    String threadsBase = cost.nodes().stream().map(c -> "N" + c.nodeId() + " " + c.threadsOneIndex() + "->" + c.threadsAllIndexes())
        .collect(Collectors.joining(", "));
    table.text("scale: threads per extra index per node (max)", fmt(cost.maxThreadsPerIndex()), threadsBase, "",
        met(cost.targetMet(), "<= 1"));
    String heapBase = cost.nodes().stream().map(c -> "N" + c.nodeId() + " " + fmt(c.heapMiBOneIndex()) + "->"
        + fmt(c.heapMiBAllIndexes()) + " MiB").collect(Collectors.joining(", "));
    table.text("scale: heap after GC per extra index per node (max)", fmt(cost.maxHeapKiBPerIndex()) + " KiB", heapBase,
        "", "");
    String rssBase = cost.nodes().stream().map(c -> "N" + c.nodeId() + " " + fmt(c.residentMiBOneIndex()) + "->"
        + fmt(c.residentMiBAllIndexes()) + " MiB").collect(Collectors.joining(", "));
    table.text("scale: resident per extra index per node (max)", fmt(cost.maxResidentKiBPerIndex()) + " KiB", rssBase, "",
        "");
    // As elected, before the rebalancing settles: the target is for the settled placement.
    placementRow(table, "scale: primaries per node as elected at start, max / min", f.electedAtStart(), false);
    watchRow(table, "scale: every index searching to primaries settled", f.afterStart(), false);
    placementRow(table, "scale: primaries per node after start, settled, max / min", f.afterStart().placement());
    BenchReport.ZooKeeperWrites z = f.zooKeeperLoaded();
    double versionsPerSec = z.seconds() <= 0 ? 0 : z.versionsPublished() / z.seconds();
    table.row("scale: ZooKeeper writes/s at 1 refresh/s per index / versions/s", z.perSec(), versionsPerSec, "/s", "");
    table.row("scale: refreshes/s made / asked for (1 per index)", z.refreshesPerSec(), z.targetRefreshesPerSec(), "/s",
        met(z.refreshesPerSec() >= 0.95 * z.targetRefreshesPerSec(), "keeps up"));
    table.text("scale: ZooKeeper writes/s at the rate asked for (writes/version x asked-for/s)", fmt(z.perSecAtTargetRate()) + " /s",
        fmt(z.targetRefreshesPerSec()) + " versions/s", fmt(z.writesPerVersion()), "");
    table.row("scale: ZooKeeper publications / versions published", z.publications(), z.versionsPublished(), "",
        met(z.publicationsPerVersion() == 1.0, "1"));
    table.text("scale: ZooKeeper writes/s: publications, member records, other",
        fmt(z.publications() / z.seconds()) + ", " + fmt(z.memberUpdates() / z.seconds()) + ", " + fmt(z.other() / z.seconds()),
        "idle " + fmt(f.zooKeeperIdle().perSec()) + "/s", "", "");
    table.row("scale: ZooKeeper writes/s / this server's capacity", z.perSec(), f.zooKeeperCapacityWritesPerSec(), "/s", "");
    table.text("scale: nodes' CPU during the load, cores", fmt(z.nodesCpuCores()),
        Runtime.getRuntime().availableProcessors() + " cores", "", "");
    table.text("scale: load end to every replica on its primary's last version",
        f.drainMs() < 0 ? "not within " + DRAIN.toSeconds() + " s" : fmt(f.drainMs()) + " ms",
        f.behindAfterLoad() == null ? "" : f.behindAfterLoad().substring(0, f.behindAfterLoad().indexOf(" not")), "",
        met(f.behindAfterLoad() == null, "all caught up"));
    BenchReport.MassFailover m = f.massFailover();
    table.row("scale: kill -9 of N" + m.killedNode() + " (" + m.primariesOnKilledNode() + " primaries) to all writable / 1 index p50",
        m.allWritableMs(), m.oneIndexMs().p50(), "ms", met(m.targetMet(), "<= 1 index + 1,000 ms"));
    table.row("scale: the same, p50 over its indexes / 1 index p50", m.toWritableMs().p50(), m.oneIndexMs().p50(), "ms", "");
    placementRow(table, "scale: primaries per survivor as elected, max / min", f.electedAfterFailover(), false);
    watchRow(table, "scale: kill -9 to primaries settled on the survivors", f.afterFailover(), false);
    BenchReport.ZooKeeperWrites zf = f.zooKeeperFailover();
    table.text("scale: ZooKeeper writes, kill -9 to every index writable", zf.transactions() + " in " + fmt(zf.seconds()) + " s",
        zf.byKind().entrySet().stream().limit(3).map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", ")),
        "", "");
    placementRow(table, "scale: primaries per survivor, settled, max / min", f.afterFailover().placement());
    BenchReport.Rebalance r = f.rebalance();
    watchRow(table, "scale: restart to rebalance end", r, true);
    placementRow(table, "scale: primaries per node after the return, max / min", r.placement());
  }

  private static void watchRow(BenchTable table, String label, BenchReport.Rebalance r, boolean catchUp) {
    String caughtUp = !catchUp ? "" : r.toCaughtUpMs() < 0 ? "never caught up" : "caught up " + fmt(r.toCaughtUpMs()) + " ms";
    table.text(label + " (" + r.endedBy() + ")", fmt(r.toEndMs()) + " ms", caughtUp, r.moves() + " moved", "");
  }

  private static void placementRow(BenchTable table, String label, BenchReport.Placement p) {
    placementRow(table, label, p, true);
  }

  private static void placementRow(BenchTable table, String label, BenchReport.Placement p, boolean target) {
    table.text(label, p.max() + " " + p.primariesPerNode().values(), Integer.toString(p.min()),
        p.min() == 0 ? "n/a" : fmt(Dist.ratio(p.max(), p.min())),
        target ? met(p.withinOne(), "within one") : (p.withinOne() ? "within one" : "not within one"));
  }

  private static String met(boolean met, String target) {
    return target + (met ? " met" : " missed");
  }

  private static String fmt(double v) {
    return String.format(Locale.ROOT, v == Math.rint(v) && Math.abs(v) < 1e9 ? "%.0f" : Math.abs(v) >= 10 ? "%.1f" : "%.2f", v);
  }

  private static double mib(long bytes) {
    return bytes < 0 ? -1 : round(bytes / 1048576.0);
  }

  private static double round(double v) {
    return Math.round(v * 10) / 10.0;
  }

  private static double round2(double v) {
    return Math.round(v * 100) / 100.0;
  }

  private static void park(long nanos) {
    long end = System.nanoTime() + nanos;
    for (long left = nanos; left > 0; left = end - System.nanoTime()) {
      LockSupport.parkNanos(left);
    }
  }
}

package io.nrtcluster.stress.bench;

import io.nrtcluster.election.Role;
import io.nrtcluster.stress.AgentException;
import io.nrtcluster.stress.NodeProcess;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * Figure 5: a replica's search throughput while it pre-copies a merged segment, against the same
 * replica, same index, searching just before the merge began. Only the searched replica copies (the
 * others stop for the figure): on this one host another replica's copy would take the CPU the
 * search is measured without. The window counted is the pre-copy's own (the primary has finished
 * writing the merged segment by then), so the figure is the copy's cost to searches, not the
 * merge's. Two rounds: unpaced, then with the replica's pre-copies paced ({@link
 * io.nrtcluster.replica.ReplicaConfig#preCopyBytesPerSecond}); the paced round's pre-copy time is
 * what the pace costs.
 */
final class SearchFigure {
  static final double TARGET = 0.8;
  /** The paced round's pace. */
  static final long PACED_BYTES_PER_SECOND = 64L << 20;
  /** Searching before the merge: the first second warms up, the rest is the idle window. */
  private static final long IDLE_SECONDS = 4;
  private static final long MAX_SEARCH_SECONDS = 1800;
  private static final int TEXT_DOCS_PER_SEC = 2_000;
  private static final int TEXT_SECONDS = 10;

  private SearchFigure() {}

  static BenchReport.SearchWhileCopying run(BenchConfig config, BenchNodes nodes, Consumer<String> out, BenchTable table)
      throws Exception {
    NodeProcess primary = nodes.primary();
    List<NodeProcess> replicas = nodes.replicasOf(primary);
    NodeProcess searched = replicas.get(replicas.size() - 1);
    List<NodeProcess> others = replicas.subList(0, replicas.size() - 1);
    List<BenchReport.SearchRound> rounds = new ArrayList<>();
    for (NodeProcess o : others) {
      o.stopGracefully(60_000);
    }
    try {
      for (long pace : new long[] {0, PACED_BYTES_PER_SECOND}) {
        rounds.add(round(config, nodes, primary, searched, pace, out));
      }
    } finally {
      for (NodeProcess o : others) {
        BenchNodes.start(o);
        BenchNodes.awaitRole(o, Role.REPLICA);
      }
    }
    BenchNodes.client(primary).deleteAll();
    BenchReport.SearchRound unpaced = rounds.get(0);
    BenchReport.SearchRound paced = rounds.get(1);
    for (BenchReport.SearchRound r : rounds) {
      String label = r.preCopyBytesPerSecond() == 0 ? "unpaced" : "paced " + (r.preCopyBytesPerSecond() >> 20) + " MiB/s";
      table.row("replica qps while pre-copying a merge / idle (" + label + ")", r.copyingQps(), r.idleQps(), "q/s",
          r.preCopyBytesPerSecond() == 0 ? "" : ">= 0.8 " + (r.ratio() >= TARGET ? "met" : "missed"));
      table.row("pre-copy time (" + label + ")", r.preCopySeconds(), unpaced.preCopySeconds(), "s", "");
    }
    return new BenchReport.SearchWhileCopying(paced.ratio(), TARGET, unpaced.ratio(), PACED_BYTES_PER_SECOND,
        searched.id(), List.copyOf(rounds), "one search thread of term queries on the only replica copying; idle: "
        + (IDLE_SECONDS - 1) + " s before the forced merge began (after 1 s of warm-up); copying: the pre-copy's window "
        + "(whole 10 ms buckets), the primary done writing the merged segment; index: half figure 3's bytes in stored "
        + "payloads and " + TEXT_DOCS_PER_SEC * TEXT_SECONDS + " Europarl documents the queries find; ratio: the paced "
        + "round's");
  }

  private static BenchReport.SearchRound round(BenchConfig config, BenchNodes nodes, NodeProcess primary,
      NodeProcess searched, long pace, Consumer<String> out) throws Exception {
    BenchClient p = BenchNodes.client(primary);
    BenchClient r = BenchNodes.client(searched);
    long bytes = Math.max(1L << 20, config.copyBytes() / 2);
    out.accept("bench: search while copying: " + (bytes >> 20) + " MiB merged segment to N" + searched.id()
        + (pace == 0 ? ", unpaced" : ", paced at " + (pace >> 20) + " MiB/s"));
    r.preCopyBytesPerSecond(pace);
    p.deleteAll();
    p.bulk(bytes, Math.max(1 << 20, bytes / 8));
    // The bulk documents hold bytes, no text: text from the load is what the queries find, in about
    // ten segments the merge then merges with the rest.
    p.load(LoadRunner.Mode.NRT, TEXT_DOCS_PER_SEC, 1_000, 0, TEXT_SECONDS);
    nodes.awaitVersion(p.status().version());
    CompletableFuture<BenchApi.SearchReply> search = CompletableFuture.supplyAsync(() -> {
      try {
        return r.search(MAX_SEARCH_SECONDS, 1);
      } catch (AgentException e) {
        throw new IllegalStateException(e);
      }
    });
    LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(IDLE_SECONDS));
    BenchApi.MergeReply merge;
    try {
      merge = p.forceMerge();
    } finally {
      r.stopSearch();
    }
    BenchApi.SearchReply s = search.join();
    r.preCopyBytesPerSecond(0);
    if (merge.preCopyNanos() <= 0 || merge.succeeded() != 1) {
      throw new IOException("the forced merge did not pre-copy to N" + searched.id() + ": " + merge);
    }
    long second = TimeUnit.SECONDS.toNanos(1);
    double idle = qps(s, s.startNanos() + second, merge.fromNanos());
    long from = merge.preCopyFromNanos();
    long to = from + merge.preCopyNanos();
    double copying = qps(s, from, to);
    double window = whole(s, from, to).size() * s.bucketNanos() / 1e9;
    double seconds = merge.preCopyNanos() / 1e9;
    BenchReport.SearchRound round = new BenchReport.SearchRound(pace, merge.preCopyBytes(), round3(seconds),
        round3(merge.preCopyBytes() / seconds / (1 << 20)), idle, copying, Dist.ratio(copying, idle), round3(window));
    out.accept(String.format(Locale.ROOT, "bench: search while copying: idle %.1f q/s, pre-copying %.1f q/s (%.3f) over "
        + "%.2f s of a %.2f s pre-copy", idle, copying, round.ratio(), window, seconds));
    return round;
  }

  /** Queries per second in the whole buckets within {@code [from, to]}; -1 when there is none. */
  static double qps(BenchApi.SearchReply s, long from, long to) {
    long queries = 0;
    int buckets = 0;
    for (int i : whole(s, from, to)) {
      queries += s.perBucket()[i];
      buckets++;
    }
    return buckets == 0 ? -1 : Math.round(queries / (buckets * s.bucketNanos() / 1e9) * 10) / 10.0;
  }

  /** The buckets that lie wholly within {@code [from, to]}. */
  private static List<Integer> whole(BenchApi.SearchReply s, long from, long to) {
    List<Integer> inside = new ArrayList<>();
    for (int i = 0; i < s.perBucket().length; i++) {
      long start = s.startNanos() + i * s.bucketNanos();
      if (start >= from && start + s.bucketNanos() <= to) {
        inside.add(i);
      }
    }
    return inside;
  }

  private static double round3(double v) {
    return Math.round(v * 1000) / 1000.0;
  }
}

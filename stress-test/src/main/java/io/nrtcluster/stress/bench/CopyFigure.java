package io.nrtcluster.stress.bench;

import io.nrtcluster.election.Role;
import io.nrtcluster.stress.NodeProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Figure 3: the pre-copy of a large forced-merged segment to two, then one replica, checksums
 * verified. Right before each forced merge and right after it, the same baselines are measured
 * ({@link CopyBaseline}), as many transfers at once as replicas copy: raw loopback TCP and raw disk
 * writes for the throughput, and raw receiver processes ({@link RawReceiver}) for the CPU, a
 * replica's process CPU per GiB over a raw receiver's process CPU per GiB, like for like.
 */
final class CopyFigure {
  private CopyFigure() {}

  /** Figure 3: a forced merge's pre-copy to two, then one replica, each between its baselines. */
  static BenchReport.CopyThroughput run(BenchConfig config, BenchNodes nodes, Consumer<String> out, BenchTable table)
      throws Exception {
    NodeProcess primary = nodes.primary();
    NodeProcess second = nodes.replicasOf(primary).get(1);
    BenchClient p = BenchNodes.client(primary);
    Path rawDir = config.out().resolve("rawcopy");
    Path index = primary.dir().resolve("bench").resolve("index");
    List<RawReceiver> receivers = new ArrayList<>();
    BenchReport.CopyRound twoReplicas;
    BenchReport.CopyRound oneReplica;
    try {
      out.accept("bench: copy throughput: starting two raw receiver processes");
      for (int i = 0; i < 2; i++) {
        receivers.add(RawReceiver.start(rawDir.resolve("receiver-" + i), config.heapMb()));
      }
      warmUp(config, nodes, primary, out);
      twoReplicas = round(config, nodes, primary, index, receivers, rawDir, out);
      second.stopGracefully(60_000);
      oneReplica = round(config, nodes, primary, index, receivers.subList(0, 1), rawDir, out);
    } finally {
      for (RawReceiver r : receivers) {
        r.close();
      }
    }
    BenchReport.CopyThroughput fig = new BenchReport.CopyThroughput(twoReplicas, oneReplica,
        Math.min(twoReplicas.ratio(), oneReplica.ratio()), 0.9,
        Math.max(twoReplicas.processCpuRatio(), oneReplica.processCpuRatio()), 1.2,
        "throughput: pre-copy bytes per second per replica (checksums verified) over the lower of raw loopback TCP and "
        + "raw disk write (no fsync), measured right before the forced merge (on the segments it merges: about the same "
        + "bytes) and right after it (on the merged segment's files), as many at once as replicas copy (one host: they "
        + "share CPU, page cache and disk; two at once: the slower of the two), the disk writes starting, like the "
        + "pre-copy, while a copy of the files is still dirty in the page cache; a round's ratio is the lower of its "
        + "ratios to the two baselines, the figure's the lower of both rounds. cpu: a replica's process CPU (every "
        + "thread) over the pre-copy's window per GiB over a raw receiver's process CPU over its transfer per GiB "
        + "(a JVM started as a node is: loopback socket reads of up to 256 KiB into an off-heap buffer, one write "
        + "per read to new files, no checks, no fsync, as the replica's copy), as many receivers at once as replicas "
        + "copied, before and after as above; a round's ratio is the higher of the two, the figure's the higher of "
        + "both rounds; both sides warmed up first, unmeasured: each raw receiver by a 256 MiB transfer, the replicas "
        + "by a pre-copy of as many bytes");
    copyRows(table, 1, oneReplica);
    copyRows(table, 2, twoReplicas);
    BenchNodes.start(second);
    BenchNodes.awaitRole(second, Role.REPLICA);
    p.deleteAll();
    return fig;
  }

  /**
   * One unmeasured pre-copy to both replicas first, as large as the raw receivers' own unmeasured
   * transfer ({@link RawReceiver#WARM_UP_BYTES}): the baseline's receive loop is compiled before it
   * is measured, so the replicas' copy path is too. Without it the two-replica round charged the
   * replicas for compiling (a profile of that round: the JIT compilers took 0.30 of 1.0 CPU-s per
   * GiB), which a running replica pays once, not per merge.
   */
  private static void warmUp(BenchConfig config, BenchNodes nodes, NodeProcess primary, Consumer<String> out)
      throws Exception {
    long bytes = Math.min(config.copyBytes(), RawReceiver.WARM_UP_BYTES);
    out.accept("bench: copy throughput: one unmeasured pre-copy of " + (bytes >> 20) + " MiB to both replicas (warm-up)");
    BenchClient p = BenchNodes.client(primary);
    p.deleteAll();
    p.bulk(bytes, Math.max(1 << 20, bytes / 8));
    nodes.awaitVersion(p.status().version());
    BenchApi.MergeReply merge = p.forceMerge();
    if (merge.preCopyNanos() <= 0 || merge.succeeded() != 2) {
      throw new IOException("the warm-up's forced merge did not pre-copy to 2 replicas: " + merge);
    }
  }

  /**
   * One round with as many replicas as {@code receivers}: a bulk load, the baselines on its
   * segments, the forced merge and its pre-copy, the baselines on the merged segment.
   */
  private static BenchReport.CopyRound round(BenchConfig config, BenchNodes nodes, NodeProcess primary, Path index,
      List<RawReceiver> receivers, Path rawDir, Consumer<String> out) throws Exception {
    int replicas = receivers.size();
    BenchClient p = BenchNodes.client(primary);
    out.accept("bench: copy throughput: " + (config.copyBytes() >> 20) + " MiB merged segment to " + replicas
        + " replica(s), raw baselines right before and after");
    p.deleteAll();
    Set<String> older = names(index);
    p.bulk(config.copyBytes(), Math.max(1 << 20, config.copyBytes() / 8));
    nodes.awaitVersion(p.status().version());
    // No merged segment exists yet: the segments the merge is about to merge hold about the same bytes.
    List<Path> toMerge = segmentFiles(index, n -> !older.contains(n));
    BenchReport.RawSpeeds before = CopyBaseline.measure(toMerge, receivers, rawDir);
    RawSpeed.flushPageCache();
    BenchApi.MergeReply merge = p.forceMerge();
    if (merge.preCopyNanos() <= 0 || merge.succeeded() != replicas) {
      throw new IOException("the forced merge did not pre-copy to " + replicas + " replica(s): " + merge);
    }
    String segment = merge.files().get(0);
    List<Path> merged = segmentFiles(index, n -> n.startsWith(segment + ".") || n.startsWith(segment + "_"));
    BenchReport.RawSpeeds after = CopyBaseline.measure(merged, receivers, rawDir);
    BenchReport.PreCopyRun preCopy = preCopy(merge, nodes.replicasOf(primary).subList(0, replicas));
    double perReplica = preCopy.mibPerSecPerReplica() * (1 << 20);
    double ratioBefore = Dist.ratio(perReplica, before.floor());
    double ratioAfter = Dist.ratio(perReplica, after.floor());
    double cpuBefore = Dist.ratio(preCopy.replicaCpuSecPerGiB(), before.rawReceiverCpuSecPerGiB());
    double cpuAfter = Dist.ratio(preCopy.replicaCpuSecPerGiB(), after.rawReceiverCpuSecPerGiB());
    return new BenchReport.CopyRound(preCopy, before, after, ratioBefore, ratioAfter, Math.min(ratioBefore, ratioAfter),
        cpuBefore, cpuAfter, Math.max(cpuBefore, cpuAfter));
  }

  /** The pre-copy of {@code merge}, with the CPU each of {@code copying} spent while it ran. */
  private static BenchReport.PreCopyRun preCopy(BenchApi.MergeReply merge, List<NodeProcess> copying) throws Exception {
    double bytesPerSec = merge.preCopyBytes() / (merge.preCopyNanos() / 1e9);
    // CPU is steadier than wall time on a shared disk: what each replica spent while the pre-copy ran
    // (not the whole merge before it, when a replica only compiles, collects and answers heartbeats).
    long from = merge.preCopyFromNanos() > 0 ? merge.preCopyFromNanos() : merge.fromNanos();
    long to = merge.preCopyFromNanos() > 0 ? merge.preCopyFromNanos() + merge.preCopyNanos() : merge.toNanos();
    long cpu = 0;
    long user = 0;
    for (NodeProcess replica : copying) {
      BenchApi.CpuReply spent = BenchNodes.client(replica).cpu(from, to);
      cpu += spent.cpuNanos();
      user = user < 0 || spent.userNanos() < 0 ? -1 : user + spent.userNanos();
    }
    double gib = merge.preCopyBytes() / (double) (1L << 30);
    return new BenchReport.PreCopyRun(merge.preCopyBytes(), merge.preCopyNanos() / 1e9, bytesPerSec / (1 << 20),
        merge.mergeNanos() / 1e9, cpu / 1e9 / copying.size() / gib, user < 0 ? -1 : user / 1e9 / copying.size() / gib);
  }

  /** The console rows of one round: each ratio against the stricter baseline, and how far the baselines drifted. */
  private static void copyRows(BenchTable table, int replicas, BenchReport.CopyRound r) {
    String of = replicas == 1 ? "1 replica" : replicas + " replicas";
    String atOnce = replicas == 1 ? "" : ", " + replicas + " at once";
    double mib = r.preCopy().mibPerSecPerReplica();
    double floorBefore = r.before().floor() / (1 << 20);
    double floorAfter = r.after().floor() / (1 << 20);
    table.row("pre-copy to " + of + " / min(loopback, disk)" + atOnce + ", the faster of before, after", mib,
        Math.max(floorBefore, floorAfter), "MiB/s", ">= 0.9");
    table.text("  min(loopback, disk) before / after the pre-copy to " + of, String.format(Locale.ROOT, "%.1f MiB/s",
        floorBefore), String.format(Locale.ROOT, "%.1f MiB/s", floorAfter), "", "");
    table.row("replica process CPU per GiB / raw receiver process" + atOnce + " (" + of + "), the cheaper of before, after",
        r.preCopy().replicaCpuSecPerGiB(),
        Math.min(r.before().rawReceiverCpuSecPerGiB(), r.after().rawReceiverCpuSecPerGiB()), "s/GiB", "<= 1.2");
    table.text("  of which user mode, replica / raw receiver (the rest is the kernel's: reads, writes, faults)",
        String.format(Locale.ROOT, "%.2f s/GiB", r.preCopy().replicaUserCpuSecPerGiB()),
        String.format(Locale.ROOT, "%.2f s/GiB",
            Math.min(r.before().rawReceiverUserCpuSecPerGiB(), r.after().rawReceiverUserCpuSecPerGiB())), "", "");
    table.row("pre-copy to " + of + " / raw receiver process" + atOnce + ", the faster of before, after", mib,
        Math.max(r.before().rawReceiverMiBPerSec(), r.after().rawReceiverMiBPerSec()), "MiB/s", "");
  }

  /** The names of the files in {@code dir}. */
  private static Set<String> names(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(f -> f.getFileName().toString()).collect(Collectors.toSet());
    }
  }

  /** The segment files in {@code dir} (Lucene's, named {@code _...}) whose names pass {@code chosen}. */
  private static List<Path> segmentFiles(Path dir, Predicate<String> chosen) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> {
        String n = f.getFileName().toString();
        return n.startsWith("_") && chosen.test(n);
      }).sorted().toList();
    }
  }
}

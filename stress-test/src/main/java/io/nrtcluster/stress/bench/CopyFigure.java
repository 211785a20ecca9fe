package io.nrtcluster.stress.bench;

import io.nrtcluster.election.Role;
import io.nrtcluster.stress.NodeProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Figure 3: the pre-copy of a large forced-merged segment to two, then one replica, checksums
 * verified, against raw loopback TCP and raw disk writes of the same bytes in the same run, as many
 * raw transfers at once as replicas copied; and the replicas' CPU per GiB against a raw receiver
 * that reads the same bytes from a loopback socket and writes them to files with no checks.
 */
final class CopyFigure {
  private CopyFigure() {}

  /** Figure 3: a forced merge's pre-copy to two, then one replica, against raw loopback and disk. */
  static BenchReport.CopyThroughput run(BenchConfig config, BenchNodes nodes, Consumer<String> out, BenchTable table)
      throws Exception {
    NodeProcess primary = nodes.primary();
    NodeProcess second = nodes.replicasOf(primary).get(1);
    BenchClient p = BenchNodes.client(primary);
    BenchReport.PreCopyRun twoReplicas = null;
    BenchReport.PreCopyRun oneReplica = null;
    List<Path> mergedFiles = List.of();
    for (int replicas = 2; replicas >= 1; replicas--) {
      if (replicas == 1) {
        second.stopGracefully(60_000);
      }
      out.accept("bench: copy throughput: " + (config.copyBytes() >> 20) + " MiB merged segment to " + replicas + " replica(s)");
      p.deleteAll();
      p.bulk(config.copyBytes(), Math.max(1 << 20, config.copyBytes() / 8));
      nodes.awaitVersion(p.status().version());
      RawSpeed.flushPageCache();
      BenchApi.MergeReply merge = p.forceMerge();
      if (merge.preCopyNanos() <= 0 || merge.succeeded() != replicas) {
        throw new IOException("the forced merge did not pre-copy to " + replicas + " replica(s): " + merge);
      }
      double bytesPerSec = merge.preCopyBytes() / (merge.preCopyNanos() / 1e9);
      // CPU is steadier than wall time on a shared disk: what each replica spent while the pre-copy ran
      // (not the whole merge before it, when a replica only compiles, collects and answers heartbeats).
      long cpu = 0;
      List<NodeProcess> copying = nodes.replicasOf(primary).subList(0, replicas);
      long from = merge.preCopyFromNanos() > 0 ? merge.preCopyFromNanos() : merge.fromNanos();
      long to = merge.preCopyFromNanos() > 0 ? merge.preCopyFromNanos() + merge.preCopyNanos() : merge.toNanos();
      for (NodeProcess replica : copying) {
        cpu += BenchNodes.client(replica).cpuNanos(from, to);
      }
      BenchReport.PreCopyRun r = new BenchReport.PreCopyRun(merge.preCopyBytes(), merge.preCopyNanos() / 1e9,
          bytesPerSec / (1 << 20), merge.mergeNanos() / 1e9,
          cpu / 1e9 / copying.size() / (merge.preCopyBytes() / (double) (1L << 30)));
      if (replicas == 2) {
        twoReplicas = r;
      } else {
        oneReplica = r;
      }
      String segment = merge.files().get(0);
      try (Stream<Path> files = Files.list(primary.dir().resolve("bench").resolve("index"))) {
        mergedFiles = files.filter(f -> {
          String n = f.getFileName().toString();
          return n.startsWith(segment + ".") || n.startsWith(segment + "_");
        }).toList();
      }
    }
    out.accept("bench: copy throughput: raw loopback and disk baselines on the same bytes, one and two at once");
    double one = oneReplica.mibPerSecPerReplica() * (1 << 20);
    double two = twoReplicas.mibPerSecPerReplica() * (1 << 20);
    BenchReport.RawSpeeds raw1 = baseline(mergedFiles, 1, config.out().resolve("rawcopy"));
    BenchReport.RawSpeeds raw2 = baseline(mergedFiles, 2, config.out().resolve("rawcopy"));
    double floor1 = raw1.floor();
    double floor2 = raw2.floor();
    BenchReport.CopyThroughput fig = new BenchReport.CopyThroughput(twoReplicas, oneReplica, raw1, raw2,
        Dist.ratio(one, floor1), Dist.ratio(two, floor2),
        // The earlier definition, kept for comparison with older runs: two replicas against one raw stream.
        Dist.ratio(two, floor1),
        Math.min(Dist.ratio(one, floor1), Dist.ratio(two, floor2)), 0.9,
        Dist.ratio(oneReplica.replicaCpuSecPerGiB(), raw1.rawReceiveWriteCpuSecPerGiB()),
        Dist.ratio(twoReplicas.replicaCpuSecPerGiB(), raw2.rawReceiveWriteCpuSecPerGiB()), 1.2,
        "pre-copy bytes per second per replica (checksums verified) over the lower of raw loopback TCP "
        + "and raw disk write (no fsync) of the same files, run as many at once as replicas copy (one host: they share "
        + "CPU, page cache and disk; two at once: the slower of the two), the disk writes starting, like the pre-copy, "
        + "while the merge's output is still dirty in the page cache; cpu ratios: a replica's process CPU, while the pre-copy ran, per GiB "
        + "pre-copied over the CPU per GiB of a raw receiver's thread (loopback socket into an off-heap buffer, written "
        + "to new files, no checks), as many at once as replicas copied, onto a page cache dirty like the merge's");
    table.row("pre-copy to 1 replica / min(loopback, disk)", one / (1 << 20), floor1 / (1 << 20), "MiB/s", ">= 0.9");
    table.row("pre-copy to 2 replicas / same, two at once", two / (1 << 20), floor2 / (1 << 20), "MiB/s", ">= 0.9");
    table.row("replica CPU per GiB / raw receive-and-write (1 replica)", oneReplica.replicaCpuSecPerGiB(),
        raw1.rawReceiveWriteCpuSecPerGiB(), "s/GiB", "<= 1.2");
    table.row("replica CPU per GiB / same, two at once (2 replicas)", twoReplicas.replicaCpuSecPerGiB(),
        raw2.rawReceiveWriteCpuSecPerGiB(), "s/GiB", "");
    table.row("pre-copy to 1 replica / raw receive-and-write", one / (1 << 20), raw1.rawReceiveWriteMiBPerSec(), "MiB/s", "");
    BenchNodes.start(second);
    BenchNodes.awaitRole(second, Role.REPLICA);
    p.deleteAll();
    return fig;
  }

  /**
   * Raw loopback and raw disk speed of {@code streams} transfers of {@code files} at once, each phase
   * after a page-cache flush, the disk writes onto a cache left as the merge leaves it ({@link
   * RawSpeed#dirtyLikeAMerge}).
   */
  private static BenchReport.RawSpeeds baseline(List<Path> files, int streams, Path dir)
      throws IOException, InterruptedException {
    RawSpeed.flushPageCache();
    double loopback = RawSpeed.loopback(files, streams);
    RawSpeed.flushPageCache();
    Path mergeOutput = dir.resolve("merge-output");
    RawSpeed.dirtyLikeAMerge(files, mergeOutput);
    long cpuBefore = CpuClock.cpuNanos();
    double disk = RawSpeed.diskWrite(files, dir, streams);
    long cpu = CpuClock.cpuNanos() - cpuBefore;
    RawSpeed.delete(files, mergeOutput);
    // The replicas' copy without its checks and its protocol, onto a page cache as the merge leaves it.
    RawSpeed.flushPageCache();
    RawSpeed.dirtyLikeAMerge(files, mergeOutput);
    RawSpeed.ReceiveWrite receiveWrite = RawSpeed.receiveWrite(files, dir, streams);
    RawSpeed.delete(files, mergeOutput);
    long bytes = 0;
    for (Path f : files) {
      bytes += Files.size(f);
    }
    // For scale next to the replicas' CPU per GiB: a plain read-and-write copy of the same files.
    return new BenchReport.RawSpeeds(loopback / (1 << 20), disk / (1 << 20),
        cpu / 1e9 / streams / (bytes / (double) (1L << 30)), receiveWrite.bytesPerSec() / (1 << 20),
        receiveWrite.cpuSecPerGiB());
  }
}

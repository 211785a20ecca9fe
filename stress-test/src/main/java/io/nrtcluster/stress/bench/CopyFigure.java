package io.nrtcluster.stress.bench;

import io.nrtcluster.stress.NodeProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Figure 3: the pre-copy of a large forced-merged segment to two, then one replica, checksums
 * verified, against raw loopback TCP and raw disk writes of the same bytes in the same run.
 */
final class CopyFigure {
  private CopyFigure() {}

  /** Figure 3: a forced merge's pre-copy to two, then one replica, against raw loopback and disk. */
  static Map<String, Object> run(BenchConfig config, BenchNodes nodes, Consumer<String> out, BenchTable table)
      throws Exception {
    NodeProcess primary = nodes.primary();
    NodeProcess second = nodes.replicasOf(primary).get(1);
    BenchClient p = BenchNodes.client(primary);
    Map<String, Object> fig = new LinkedHashMap<>();
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
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("bytes", merge.preCopyBytes());
      r.put("seconds", merge.preCopyNanos() / 1e9);
      r.put("mibPerSecPerReplica", bytesPerSec / (1 << 20));
      r.put("mergeSeconds", merge.mergeNanos() / 1e9);
      fig.put(replicas == 2 ? "twoReplicas" : "oneReplica", r);
      String segment = merge.files().get(0);
      try (Stream<Path> files = Files.list(primary.dir().resolve("bench").resolve("index"))) {
        mergedFiles = files.filter(f -> {
          String n = f.getFileName().toString();
          return n.startsWith(segment + ".") || n.startsWith(segment + "_");
        }).toList();
      }
    }
    out.accept("bench: copy throughput: raw loopback and disk baselines on the same bytes");
    RawSpeed.flushPageCache();
    double loopback = RawSpeed.loopback(mergedFiles);
    RawSpeed.flushPageCache();
    double disk = RawSpeed.diskWrite(mergedFiles, config.out().resolve("rawcopy"));
    double floor = Math.min(loopback, disk);
    fig.put("loopbackMiBPerSec", loopback / (1 << 20));
    fig.put("diskWriteMiBPerSec", disk / (1 << 20));
    double one = (double) ((Map<?, ?>) fig.get("oneReplica")).get("mibPerSecPerReplica") * (1 << 20);
    double two = (double) ((Map<?, ?>) fig.get("twoReplicas")).get("mibPerSecPerReplica") * (1 << 20);
    fig.put("oneReplicaRatio", Dist.ratio(one, floor));
    fig.put("twoReplicasRatio", Dist.ratio(two, floor));
    fig.put("ratio", Math.min(Dist.ratio(one, floor), Dist.ratio(two, floor)));
    fig.put("target", 0.9);
    fig.put("note", "pre-copy bytes per second per replica (checksums verified) over the lower of raw loopback TCP "
        + "and raw disk write (no fsync) of the same files");
    table.row("pre-copy to 1 replica / min(loopback, disk)", one / (1 << 20), floor / (1 << 20), "MiB/s", ">= 0.9");
    table.row("pre-copy to 2 replicas / min(loopback, disk)", two / (1 << 20), floor / (1 << 20), "MiB/s", ">= 0.9");
    BenchNodes.start(second);
    BenchNodes.awaitRole(second, "REPLICA");
    p.deleteAll();
    return fig;
  }
}

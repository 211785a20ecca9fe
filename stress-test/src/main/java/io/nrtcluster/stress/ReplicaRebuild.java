package io.nrtcluster.stress;

import io.nrtcluster.objectstore.ManifestId;
import io.nrtcluster.stress.FaultPlan.Planned;
import io.nrtcluster.stress.agent.AgentApi;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link FaultKind#REPLICA_REBUILD} fault: a replica killed, its index's directory wiped, and
 * started again after the plan's delay, so that it bootstraps from the newest backup in the object
 * store and catches up from the primary. It records each rebuild's outcome (how the bootstrap ended,
 * how long the replica took to search a version refreshed after its restart, the bytes it then copied
 * from the primary), and owns that record.
 */
final class ReplicaRebuild {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaRebuild.class);

  private final ChaosCluster cluster;
  private final FaultNodes nodes;
  private final Timeline timeline;
  private final Recovery recovery;
  private final Duration recoveryTimeout;
  private final List<ChaosReport.Rebuild> rebuilds = new CopyOnWriteArrayList<>();

  ReplicaRebuild(ChaosCluster cluster, FaultNodes nodes, Timeline timeline, Recovery recovery, Duration recoveryTimeout) {
    this.cluster = cluster;
    this.nodes = nodes;
    this.timeline = timeline;
    this.recovery = recovery;
    this.recoveryTimeout = recoveryTimeout;
  }

  /**
   * Kills a replica, wipes its index's directory (its contents: with tmpfs storage it is a mount
   * point), and starts it again after the plan's delay: it bootstraps from the newest backup and
   * catches up from the primary. Records how its bootstrap ended (from its ready file), how long it
   * took to search a version refreshed after its restart, and the bytes it then copied from the primary.
   */
  void inject(Planned f) throws IOException, InterruptedException {
    ChaosStore store = cluster.store();
    // A rebuild is meant to find a backup: the first one may still be on its way early in a run.
    long deadline = System.nanoTime() + recoveryTimeout.toNanos();
    while (store.newest().isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(200);
    }
    NodeProcess r = nodes.replica(f.pick());
    r.kill();
    long at = timeline.now();
    long wiped = wipeContents(r.dir().resolve(ChaosCluster.INDEX));
    long newest = store.newest().map(ManifestId::version).orElse(-1L);
    timeline.fault(f.kind(), "N" + r.id(), "SIGKILL, index directory wiped (" + wiped + " files), restart after "
        + f.holdMillis() + " ms; newest backup " + (newest < 0 ? "none" : "at version " + newest));
    nodes.restartAfter(r, f.holdMillis());
    AgentApi.Ready ready = r.ready();
    String outcome = ready == null || ready.bootstrap() == null ? "UNKNOWN" : ready.bootstrap();
    long took = recovery.converge();
    AgentApi.Status status = r.statusIfUp();
    rebuilds.add(new ChaosReport.Rebuild(at, r.id(), outcome, ready == null ? -1 : ready.bootstrapVersion(), took,
        status == null ? -1 : status.bytesCopied()));
    LOG.info("N{} rebuilt: bootstrap {} (backup version {}), caught up in {} ms, {} bytes copied from the primary",
        r.id(), outcome, ready == null ? -1 : ready.bootstrapVersion(), took, status == null ? -1 : status.bytesCopied());
  }

  /** Deletes everything under {@code dir}, keeping {@code dir}; returns the files deleted. */
  private static long wipeContents(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return 0;
    }
    long files = 0;
    List<Path> all;
    try (Stream<Path> walk = Files.walk(dir)) {
      all = walk.filter(p -> !p.equals(dir)).sorted(Comparator.reverseOrder()).toList();
    }
    for (Path p : all) {
      if (!Files.isDirectory(p)) {
        files++;
      }
      Files.deleteIfExists(p);
    }
    return files;
  }

  /** What each replica rebuild did. */
  List<ChaosReport.Rebuild> rebuilds() {
    return List.copyOf(rebuilds);
  }
}

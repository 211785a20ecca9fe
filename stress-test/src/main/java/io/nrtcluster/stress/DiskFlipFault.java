package io.nrtcluster.stress;

import io.nrtcluster.stress.FaultPlan.Planned;
import io.nrtcluster.stress.agent.AgentApi;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link FaultKind#DISK_BIT_FLIP} fault: one bit of one file of a node's last commit flipped on
 * its disk with the file's timestamps put back (real rot changes none), on the primary or a replica,
 * either while the node is killed or while it runs. The rules recorded per flip:
 * <ul>
 *   <li>a killed node quarantines the file at start, before it serves anything: a node that did not
 *       stop cleanly verifies every file, whatever its record of verified files says;
 *   <li>a running node finds it within one scrub pass ({@link AgentApi#SCRUB}'s interval, plus
 *       {@value #REACTION_MILLIS} ms to react: a primary steps down and its replica quarantines the
 *       file at start), unless the file is gone first (merged away, or replaced by a copy or a
 *       restore), which counts as discarded.
 * </ul>
 * A replica never installs a rotten file: every copied byte is checked against the primary's
 * checksums, and the final CheckIndex of every node would show one.
 */
final class DiskFlipFault {
  private static final Logger LOG = LoggerFactory.getLogger(DiskFlipFault.class);
  /** Beyond a scrub interval: the pass's own reading time and the node's reaction (a step-down, a restart's check). */
  static final long REACTION_MILLIS = 20_000;

  private final FaultNodes nodes;
  private final Timeline timeline;
  private final Duration recoveryTimeout;
  private final List<ChaosReport.DiskFlip> flips;

  DiskFlipFault(FaultNodes nodes, Timeline timeline, Duration recoveryTimeout, List<ChaosReport.DiskFlip> flips) {
    this.nodes = nodes;
    this.timeline = timeline;
    this.recoveryTimeout = recoveryTimeout;
    this.flips = flips;
  }

  /** Half of the flips hit running nodes; which half is the plan's (seeded) pick. */
  static boolean running(Planned f) {
    return (f.pick() & 1) == 0;
  }

  static long runningBoundMillis() {
    return AgentApi.SCRUB.interval().toMillis() + REACTION_MILLIS;
  }

  void inject(Planned f) throws IOException, InterruptedException {
    NodeProcess n = f.variant() ? nodes.primary() : nodes.replica(f.pick() >>> 1);
    if (running(f)) {
      flipRunning(f, n);
    } else {
      flipKilled(f, n);
    }
  }

  private void flipKilled(Planned f, NodeProcess n) throws IOException, InterruptedException {
    n.kill();
    long at = timeline.now();
    Path index = DiskCorruptor.indexDir(n.dir(), ChaosCluster.INDEX);
    DiskCorruptor.Flip flip = DiskCorruptor.flip(index, new SplittableRandom(f.pick()));
    timeline.fault(f.kind(), "N" + n.id(), flip == null ? "SIGKILL; no commit on disk to corrupt"
        : "SIGKILL, bit " + flip.bit() + " of " + flip.file() + " (" + flip.length() + " bytes) flipped on disk, timestamps kept"
            + (f.variant() ? ", primary" : ""));
    nodes.restartAfter(n, f.holdMillis());
    if (flip == null) {
      return;
    }
    // The node answers once it started: a flip not quarantined by then was served (or could have been).
    if (DiskCorruptor.quarantined(index, flip.file())) {
      record(at, n, f, false, flip, ChaosReport.Found.AT_START, 0);
      return;
    }
    long restarted = System.nanoTime();
    ChaosReport.Found later = await(index, flip, restarted, recoveryTimeout.toMillis());
    record(at, n, f, false, flip, later == ChaosReport.Found.NOT_FOUND ? later : ChaosReport.Found.QUARANTINED,
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restarted));
  }

  private void flipRunning(Planned f, NodeProcess n) throws IOException, InterruptedException {
    long at = timeline.now();
    Path index = DiskCorruptor.indexDir(n.dir(), ChaosCluster.INDEX);
    // The largest file: small ones are merged away within seconds, before any scrub pass comes.
    DiskCorruptor.Flip flip = DiskCorruptor.flip(index, new SplittableRandom(f.pick()), true);
    timeline.fault(f.kind(), "N" + n.id(), flip == null ? "running; no commit on disk to corrupt"
        : "running, bit " + flip.bit() + " of " + flip.file() + " (" + flip.length() + " bytes) flipped on disk, timestamps kept"
            + (f.variant() ? ", primary" : ""));
    if (flip == null) {
      return;
    }
    long flipped = System.nanoTime();
    ChaosReport.Found found = await(index, flip, flipped, runningBoundMillis());
    record(at, n, f, true, flip, found, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - flipped));
  }

  /** Polls (bounded) until the file is quarantined or gone; NOT_FOUND when neither within {@code boundMillis}. */
  private static ChaosReport.Found await(Path index, DiskCorruptor.Flip flip, long startNanos, long boundMillis) {
    long deadline = startNanos + TimeUnit.MILLISECONDS.toNanos(boundMillis);
    while (System.nanoTime() < deadline) {
      if (DiskCorruptor.quarantined(index, flip.file())) {
        return ChaosReport.Found.QUARANTINED;
      }
      if (DiskCorruptor.gone(index, flip.file())) {
        return DiskCorruptor.quarantined(index, flip.file()) ? ChaosReport.Found.QUARANTINED : ChaosReport.Found.DISCARDED;
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
    }
    return ChaosReport.Found.NOT_FOUND;
  }

  private void record(long at, NodeProcess n, Planned f, boolean running, DiskCorruptor.Flip flip, ChaosReport.Found found,
      long afterMillis) {
    flips.add(new ChaosReport.DiskFlip(at, n.id(), f.variant(), running, flip.file(), flip.length(), flip.bit(), found,
        afterMillis));
    if (!flips.get(flips.size() - 1).ok()) {
      LOG.warn("N{} ({}) did not find {} (bit {} flipped on disk) as it must: {}", n.id(), running ? "running" : "killed",
          flip.file(), flip.bit(), found);
    }
  }
}

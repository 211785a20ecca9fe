package io.nrtcluster.stress;

import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.stress.FaultPlan.Planned;
import io.nrtcluster.stress.agent.AgentApi;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Executes the {@link FaultPlan} one fault at a time: waits for the fault's time (and for the cluster
 * to have recovered from the previous one), injects it, holds it, undoes it (restarts what it killed,
 * resumes what it paused, switches wire faults off), and records it on the {@link Timeline}.
 *
 * <p>It picks the nodes every fault hits ({@link FaultNodes}); the kinds with more to do and record
 * than a kill or a pause keep their own classes ({@link DiskFlipFault}, {@link CopyParentKill},
 * {@link ReplicaRebuild}, {@link StoreRestart}), and how the cluster recovers after each fault is
 * {@link Recovery}'s to judge.
 */
final class FaultRunner {
  private static final Logger LOG = LoggerFactory.getLogger(FaultRunner.class);
  private static final long AIM_MILLIS = 6_000;
  private static final long AIM_THROTTLE = 256 * 1024;
  private static final long START_TIMEOUT_MS = 90_000;

  private final ChaosConfig config;
  private final ChaosCluster cluster;
  private final WritePath path;
  private final Timeline timeline;
  private final SplittableRandom random;
  private final Recovery recovery;
  private final AtomicInteger executed = new AtomicInteger();
  private final AtomicInteger skipped = new AtomicInteger();
  private final AtomicInteger killsDuringCopy = new AtomicInteger();
  private final AtomicInteger killsDuringPreCopy = new AtomicInteger();
  private final AtomicInteger promotionsRefused = new AtomicInteger();
  private final List<ChaosReport.NetworkFault> networkOutcomes = new CopyOnWriteArrayList<>();
  private final List<ChaosReport.DiskFault> diskOutcomes = new CopyOnWriteArrayList<>();
  private final List<ChaosReport.DiskFlip> diskFlips = new CopyOnWriteArrayList<>();

  private final DiskFlipFault diskFlip;
  private final CopyParentKill copyParentKill;
  private final StoreRestart storeRestart;
  private final ReplicaRebuild replicaRebuild;

  FaultRunner(ChaosConfig config, ChaosCluster cluster, WritePath path, Timeline timeline) {
    this.config = config;
    this.cluster = cluster;
    this.path = path;
    this.timeline = timeline;
    this.recovery = new Recovery(config.recoveryTimeout(), cluster.processes(), path);
    FaultNodes nodes = new FaultNodes() {
      @Override
      public NodeProcess primary() throws IOException {
        return requirePrimary();
      }

      @Override
      public NodeProcess replica(int pick) throws IOException {
        return pickReplica(pick, false);
      }

      @Override
      public void restartAfter(NodeProcess n, long millis) throws IOException, InterruptedException {
        FaultRunner.this.restartAfter(n, millis);
      }
    };
    this.diskFlip = new DiskFlipFault(nodes, timeline, config.recoveryTimeout(), diskFlips);
    this.copyParentKill = new CopyParentKill(cluster.processes(), config.recoveryTimeout(), timeline,
        throttle -> setWireFaults(0, throttle), this::restartAfter);
    this.storeRestart = new StoreRestart(cluster, timeline, recovery, config.recoveryTimeout());
    this.replicaRebuild = new ReplicaRebuild(cluster, nodes, timeline, recovery, config.recoveryTimeout());
    this.random = new SplittableRandom(config.seed() ^ 0x5DEECE66DL);
  }

  /**
   * Runs the plan until it is done or {@code deadlineMillis} (run-relative) passes; faults not
   * started by then are skipped, and so are faults not applicable when they fire.
   */
  void run(FaultPlan plan, long deadlineMillis) throws InterruptedException {
    List<Planned> faults = plan.faults();
    for (int i = 0; i < faults.size(); i++) {
      Planned f = faults.get(i);
      long wait = f.atMillis() - timeline.now();
      if (wait > 0) {
        Thread.sleep(wait);
      }
      if (timeline.now() > deadlineMillis) {
        skipped.addAndGet(faults.size() - i);
        LOG.info("{} planned faults skipped: the run's time is up", faults.size() - i);
        return;
      }
      try {
        if (inject(f)) {
          executed.incrementAndGet();
        } else {
          skipped.incrementAndGet();
        }
      } catch (IOException e) {
        LOG.warn("fault {} could not be completed: {}", f, e.toString());
      }
      recovery.awaitWrites();
    }
  }

  /** Injects {@code f}; false when it was not applicable then (nothing was done). */
  private boolean inject(Planned f) throws IOException, InterruptedException {
    switch (f.kind()) {
      case PRIMARY_KILL -> {
        NodeProcess p = requirePrimary();
        if (f.variant()) {
          // Slow the wire so copies and merge pre-copies last long enough to be caught in the act.
          setWireFaults(0, AIM_THROTTLE);
          aimAtPreCopy(p);
        }
        String during = during(p);
        p.kill();
        if (f.variant()) {
          setWireFaults(0, 0);
        }
        timeline.fault(f.kind(), "N" + p.id(), "SIGKILL" + during);
        restartAfter(p, f.holdMillis());
      }
      case REPLICA_KILL -> {
        NodeProcess r = pickReplica(f.pick(), f.variant());
        String during = during(r);
        r.kill();
        timeline.fault(f.kind(), "N" + r.id(), "SIGKILL" + during);
        restartAfter(r, f.holdMillis());
      }
      case JVM_CRASH -> {
        boolean primary = random.nextBoolean();
        NodeProcess n = primary ? requirePrimary() : pickReplica(f.pick(), false);
        String during = during(n);
        n.crash(f.variant());
        timeline.fault(f.kind(), "N" + n.id(), (f.variant() ? "SIGSEGV" : "Runtime.halt") + (primary ? " of the primary" : "") + during);
        restartAfter(n, f.holdMillis());
      }
      case PAUSE -> {
        NodeProcess n = f.variant() ? requirePrimary() : pickReplica(f.pick(), false);
        n.pause();
        timeline.fault(f.kind(), "N" + n.id(), "SIGSTOP for " + f.holdMillis() + " ms (session timeout "
            + config.sessionTimeout().toMillis() + " ms)" + (f.variant() ? ", primary" : ""));
        Thread.sleep(f.holdMillis());
        n.resume();
      }
      case WIRE -> {
        double flip = f.flipProbability();
        long throttle = (1 + random.nextInt(8)) * 1024L * 1024;
        setWireFaults(flip, throttle);
        timeline.fault(f.kind(), "all", String.format(Locale.ROOT,
            "bit flips p=%.2f per frame, throttle %d MiB/s, for %d ms", flip, throttle >> 20, f.holdMillis()));
        Thread.sleep(f.holdMillis());
        setWireFaults(0, 0);
      }
      case ZK_RESTART -> {
        int server = f.pick() % cluster.zooKeeper().size();
        try {
          cluster.zooKeeper().kill(server);
          timeline.fault(f.kind(), "zk" + (server + 1), "down for " + f.holdMillis() + " ms");
          Thread.sleep(f.holdMillis());
          cluster.zooKeeper().restart(server);
        } catch (InterruptedException e) {
          throw e;
        } catch (Exception e) {
          throw new IOException("ZooKeeper server " + (server + 1) + ": " + e, e);
        }
      }
      case FULL_RESTART -> {
        cluster.killAll();
        timeline.fault(f.kind(), "all", "SIGKILL of every node, restart after " + f.holdMillis() + " ms");
        Thread.sleep(f.holdMillis());
        cluster.startAll();
      }
      case PRIMARY_PAUSE -> {
        NodeProcess p = requirePrimary();
        p.pause();
        timeline.fault(f.kind(), "N" + p.id(), "SIGSTOP of the primary for " + f.holdMillis() + " ms (session timeout "
            + config.sessionTimeout().toMillis() + " ms)");
        Thread.sleep(f.holdMillis());
        p.resume();
      }
      case PARTITION_PRIMARY_ZOOKEEPER, PARTITION_PRIMARY_REPLICAS, PARTITION_HALVES, PARTITION_BRIDGE,
          PARTITION_ONE_WAY, SLOW_LINK -> network(f);
      case DISK_FULL -> diskFull(f);
      case DISK_BIT_FLIP -> diskFlip.inject(f);
      case REPLICA_REBUILD -> replicaRebuild.inject(f);
      case COPY_PARENT_KILL -> {
        return copyParentKill.inject(f);
      }
      case STORE_RESTART -> storeRestart.inject(f);
      case COPY_DROP -> {
        // Slow the wire too, so copies last long enough to be cut in the middle.
        long drop = (256L * 1024) << (f.pick() % 5);
        setWireFaults(0, AIM_THROTTLE * 8, drop);
        timeline.fault(f.kind(), "all", "connections dropped after " + (drop >> 10) + " KiB of file data each, for "
            + f.holdMillis() + " ms");
        try {
          Thread.sleep(f.holdMillis());
        } finally {
          setWireFaults(0, 0, 0);
        }
        if (recovery.converge() < 0) {
          LOG.warn("the cluster did not converge within {} after connection drops ended", config.recoveryTimeout());
        }
      }
      case PROMOTION -> {
        NodeProcess r = pickReplica(f.pick(), false);
        try {
          cluster.admin().promote(ChaosCluster.CLUSTER, ChaosCluster.INDEX, r.id(), Duration.ofSeconds(30));
          timeline.fault(f.kind(), "N" + r.id(), "graceful promotion");
        } catch (NrtClusterException e) {
          promotionsRefused.incrementAndGet();
          timeline.fault(f.kind(), "N" + r.id(), "promotion refused: " + e.code());
        }
      }
    }
    return true;
  }

  /**
   * Cuts or slows links as the plan says, holds, heals, then checks convergence: once the write
   * path is clean again, a refresh's version must reach every live node within the recovery timeout.
   */
  private void network(Planned f) throws IOException, InterruptedException {
    NodeProcess primary = requirePrimary();
    WritePath.Target before = path.target();
    long at = timeline.now();
    List<String> nodes = cluster.nodes().stream().filter(n -> n.state() == NodeProcess.State.UP).map(n -> "N" + n.id())
        .toList();
    List<String> zooKeepers = IntStream.rangeClosed(1, cluster.zooKeeper().size()).mapToObj(i -> "zk" + i)
        .toList();
    LinkFault fault = LinkFault.plan(f.kind(), "N" + primary.id(), nodes, zooKeepers, new SplittableRandom(f.pick()));
    int band;
    try {
      cluster.links().apply(fault);
    } finally {
      // Recorded even if applying failed halfway: whatever was cut is healed below.
      band = timeline.lasting(f.kind(), fault.slowHost() != null ? fault.slowHost() : "N" + primary.id(),
          fault.detail() + " for " + f.holdMillis() + " ms");
    }
    try {
      Thread.sleep(f.holdMillis());
    } finally {
      cluster.links().healAll();
      timeline.healed(band);
    }
    long took = recovery.converge();
    WritePath.Target after = path.target();
    if (took >= 0) {
      networkOutcomes.add(new ChaosReport.NetworkFault(f.kind(), at, f.holdMillis(), primary.id(), before == null ? -1 : before.gen(),
          after == null ? -1 : after.node().id(), after == null ? -1 : after.gen(), took));
    } else {
      networkOutcomes.add(new ChaosReport.NetworkFault(f.kind(), at, f.holdMillis(), primary.id(), before == null ? -1 : before.gen(),
          -1, -1, -1));
      LOG.warn("the cluster did not converge within {} after healing {}", config.recoveryTimeout(), fault.description());
    }
  }

  /**
   * Fills a node's disk from outside (the primary's when the plan's variant says so, else a
   * replica's), holds, frees it, then checks convergence as after a partition: a node whose disk
   * filled must refuse or fail over, never lose an acknowledged write, and catch up once space is back.
   */
  private void diskFull(Planned f) throws IOException, InterruptedException {
    NodeProcess n = f.variant() ? requirePrimary() : pickReplica(f.pick(), false);
    long at = timeline.now();
    int band;
    long taken;
    try {
      taken = cluster.disks().fill(n.id());
    } finally {
      band = timeline.lasting(f.kind(), "N" + n.id(), (f.variant() ? "the primary's" : "a replica's")
          + " disk full for " + f.holdMillis() + " ms");
    }
    try {
      Thread.sleep(f.holdMillis());
    } finally {
      cluster.disks().free(n.id());
      timeline.healed(band);
    }
    long took = recovery.converge();
    diskOutcomes.add(new ChaosReport.DiskFault(at, f.holdMillis(), n.id(), f.variant(), taken, took));
    if (took < 0) {
      LOG.warn("the cluster did not converge within {} after freeing N{}'s disk", config.recoveryTimeout(), n.id());
    }
  }

  /** What each replica rebuild did. */
  List<ChaosReport.Rebuild> rebuilds() {
    return replicaRebuild.rebuilds();
  }

  /** What each object store outage did. */
  List<ChaosReport.StoreOutage> storeOutages() {
    return storeRestart.outages();
  }

  /** How the cluster recovered from each fault. */
  Recovery recovery() {
    return recovery;
  }

  /** The copy parent kills: each one's outcome, and those not applicable. */
  CopyParentKill copyParentKill() {
    return copyParentKill;
  }

  /** What each disk bit flip did. */
  List<ChaosReport.DiskFlip> diskFlips() {
    return List.copyOf(diskFlips);
  }

  /** What each disk-full fault did. */
  List<ChaosReport.DiskFault> diskOutcomes() {
    return List.copyOf(diskOutcomes);
  }

  List<ChaosReport.NetworkFault> networkOutcomes() {
    return List.copyOf(networkOutcomes);
  }

  private void setWireFaults(double flip, long throttle) {
    setWireFaults(flip, throttle, 0);
  }

  private void setWireFaults(double flip, long throttle, long dropAfterFileBytes) {
    for (NodeProcess n : cluster.nodes()) {
      if (n.state() == NodeProcess.State.UP) {
        try {
          n.client().faults(flip, throttle, dropAfterFileBytes);
        } catch (AgentException e) {
          LOG.debug("N{}: wire faults not set: {}", n.id(), e.getMessage());
        }
      }
    }
  }

  /** Restarts a killed node after a delay (a dead node does not come back at once). */
  private void restartAfter(NodeProcess n, long millis) throws IOException, InterruptedException {
    Thread.sleep(millis);
    n.start(START_TIMEOUT_MS);
  }

  /** The primary ZooKeeper names, waiting (bounded) for one. */
  private NodeProcess requirePrimary() throws IOException {
    return cluster.processes().awaitPrimary(config.recoveryTimeout());
  }

  /** A replica: number {@code pick} of the live ones, or (aimed) one that is copying right now. */
  private NodeProcess pickReplica(int pick, boolean aimAtCopy) throws IOException {
    List<NodeProcess> replicas = cluster.replicasOf(requirePrimary());
    if (replicas.isEmpty()) {
      throw new IOException("no live replica");
    }
    NodeProcess chosen = replicas.get(pick % replicas.size());
    if (aimAtCopy) {
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(AIM_MILLIS);
      while (System.nanoTime() < deadline) {
        for (NodeProcess r : replicas) {
          if (copying(r)) {
            return r;
          }
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
      }
    }
    return chosen;
  }

  /** Waits (briefly) until the primary has a merge pre-copy running. */
  private void aimAtPreCopy(NodeProcess primary) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(AIM_MILLIS);
    while (System.nanoTime() < deadline) {
      if (preCopying(primary)) {
        return;
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
    }
  }

  /** Notes (and counts) whether the node is in the middle of a copy or a merge pre-copy. */
  private String during(NodeProcess n) {
    if (preCopying(n)) {
      killsDuringPreCopy.incrementAndGet();
      return " during a merge pre-copy";
    }
    if (copying(n)) {
      killsDuringCopy.incrementAndGet();
      return " during a copy";
    }
    return "";
  }

  private boolean copying(NodeProcess n) {
    AgentApi.Status s = n.statusIfUp();
    return s != null && s.copying();
  }

  private boolean preCopying(NodeProcess n) {
    AgentApi.Status s = n.statusIfUp();
    return s != null && s.preCopiesRunning() > 0;
  }


  int executed() {
    return executed.get();
  }

  int skipped() {
    return skipped.get();
  }

  int killsDuringCopy() {
    return killsDuringCopy.get();
  }

  int killsDuringPreCopy() {
    return killsDuringPreCopy.get();
  }

  int promotionsRefused() {
    return promotionsRefused.get();
  }
}

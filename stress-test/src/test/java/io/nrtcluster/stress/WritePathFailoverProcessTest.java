package io.nrtcluster.stress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The harness's writes follow a paused primary's replacement as a client of the cluster would, with
 * real node JVMs and the chaos run's ZooKeeper ensemble: the primary is paused (SIGSTOP) and kept
 * paused, and the indexers' writes must be acknowledged by the new primary well before a write's
 * 10 s timeout could have run out on the paused one (seed 20261121 wrote to it for about 15 s).
 */
class WritePathFailoverProcessTest {
  /** Far above the replicas' evidence failover plus a view read and a resync, far below the old ~10-15 s. */
  private static final long BOUND_MS = 5_000;
  @TempDir Path dir;

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void writesAreAcknowledgedByTheNewPrimarySoonAfterThePrimaryIsPaused() throws Exception {
    long seed = Long.getLong("nrt.chaos.seed", 20261121);
    System.out.println("WritePathFailoverProcessTest seed " + seed + " (rerun with -Dnrt.chaos.seed=" + seed + ")");
    ChaosConfig config = ChaosConfig.builder().nodes(3).duration(Duration.ofSeconds(60)).seed(seed).reportDir(dir)
        .faults(EnumSet.noneOf(FaultKind.class)).writesPerSecond(200).searchers(0).build();
    try (ChaosCluster cluster = ChaosCluster.start(config, dir)) {
      TxLog log = new TxLog(seed);
      WritePath path = new WritePath(cluster, log, new Timeline(), new AckLog());
      Workload workload = new Workload(config, cluster, log, path, new Ledger(), new SearchLog());
      NodeProcess old = null;
      try {
        workload.start();
        await().atMost(Duration.ofSeconds(90)).until(() -> path.target() != null && log.acknowledged() > 100);
        old = path.target().node();
        NodeProcess paused = old;
        long pausedAt = System.nanoTime();
        paused.pause();
        // Acknowledgements counted once another node is the target include the replay; a later one is a new write's.
        AtomicLong ackedOnSwitch = new AtomicLong(-1);
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(10)).until(() -> {
          WritePath.Target t = path.target();
          if (t == null || t.node() == paused) {
            return false;
          }
          ackedOnSwitch.compareAndSet(-1, log.acknowledged());
          return log.acknowledged() > ackedOnSwitch.get();
        });
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - pausedAt);
        System.out.println("WritePathFailoverProcessTest: N" + paused.id() + " paused; N" + path.target().node().id()
            + " acknowledged a new write " + tookMs + " ms later");
        assertThat(tookMs).as("from the pause of N%d to a write acknowledged by the new primary N%d (seed %d)", paused.id(),
            path.target().node().id(), seed).isLessThan(BOUND_MS);
      } finally {
        if (old != null) {
          old.resume();
        }
        workload.close();
      }
    }
  }
}

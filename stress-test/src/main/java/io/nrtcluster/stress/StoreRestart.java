package io.nrtcluster.stress;

import io.nrtcluster.stress.FaultPlan.Planned;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link FaultKind#STORE_RESTART} fault: the object store stopped for the plan's hold and started
 * again. While it is down, indexing and replication must go on (a refresh reaches every live node);
 * once it is back, backups must resume (a backup newer than the newest one it held when it came back
 * appears within the recovery timeout). It records each outage's outcome, and owns that record.
 */
final class StoreRestart {
  private static final Logger LOG = LoggerFactory.getLogger(StoreRestart.class);

  private final ChaosCluster cluster;
  private final Timeline timeline;
  private final Recovery recovery;
  private final Duration recoveryTimeout;
  private final List<ChaosReport.StoreOutage> outages = new CopyOnWriteArrayList<>();

  StoreRestart(ChaosCluster cluster, Timeline timeline, Recovery recovery, Duration recoveryTimeout) {
    this.cluster = cluster;
    this.timeline = timeline;
    this.recovery = recovery;
    this.recoveryTimeout = recoveryTimeout;
  }

  /**
   * Stops the object store for the plan's hold, checks while it is still down that indexing and
   * replication go on (a refresh reaches every live node), starts it again, and waits (bounded by the
   * recovery timeout) for a backup newer than the newest one the store held when it came back.
   */
  void inject(Planned f) throws IOException, InterruptedException {
    ChaosStore store = cluster.store();
    long at = timeline.now();
    int band;
    try {
      store.stop();
    } catch (IOException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException("stopping the object store: " + e, e);
    } finally {
      band = timeline.lasting(f.kind(), "store", "object store down for " + f.holdMillis() + " ms");
    }
    long convergedDown;
    try {
      Thread.sleep(f.holdMillis());
      convergedDown = recovery.converge();
    } finally {
      try {
        store.restart();
      } catch (IOException e) {
        throw e;
      } catch (Exception e) {
        throw new IOException("restarting the object store: " + e, e);
      } finally {
        timeline.healed(band);
      }
    }
    long down = timeline.now() - at;
    long back = System.nanoTime();
    long deadline = back + recoveryTimeout.toNanos();
    boolean known = false;
    long baseline = -1;
    long resumed = -1;
    long newest = -1;
    while (System.nanoTime() < deadline) {
      try {
        newest = store.newestVersion();
        if (!known) {
          known = true;
          baseline = newest; // no backup can have been written while it was down
        } else if (newest > baseline) {
          resumed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - back);
          break;
        }
      } catch (IOException e) {
        LOG.debug("object store not answering yet: {}", e.toString());
      }
      Thread.sleep(200);
    }
    outages.add(new ChaosReport.StoreOutage(at, down, convergedDown, baseline, newest, resumed));
    if (resumed < 0) {
      LOG.warn("no backup newer than version {} within {} after the object store came back", baseline, recoveryTimeout);
    }
  }

  /** What each object store outage did. */
  List<ChaosReport.StoreOutage> outages() {
    return List.copyOf(outages);
  }
}

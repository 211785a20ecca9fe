package io.nrtcluster.node;

import io.nrtcluster.common.ExecutorSource;
import io.nrtcluster.common.NodeLog;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * What one index on one node watches for by itself and acts on: the followed primary's silence
 * ({@link PrimarySuspicion}), a writer lost under its primary ({@link LostWriterWatch}), and rot,
 * found by the primary's background scrub ({@link PrimaryScrubWatch}) or by a search that could not
 * read a document ({@link UnreadableReads}). Each watch acts through the index's {@link RoleSwitch},
 * never on the roles directly. {@link #tick} runs on the progress reporter's thread, about every
 * 100 ms; {@link #stop} ends the scrub (and the read checks when the index closes for good).
 */
final class HealthWatches {
  private final PrimarySuspicion suspicion;
  private final LostWriterWatch lostWriter;
  private final PrimaryScrubWatch primaryScrub;
  private final UnreadableReads reads;

  HealthWatches(NrtHost host, IndexSettings settings, RoleSwitch roles, DiskFloor floor, NodeLog log,
      Supplier<IndexMetrics> metrics) {
    Path dataDir = host.config().dataDir().resolve(settings.name());
    this.suspicion = new PrimarySuspicion(roles,
        host.config().failoverOnSuspicion() ? host.config().suspicionDelay() : Duration.ZERO, System::nanoTime);
    this.lostWriter = new LostWriterWatch(roles, floor, metrics, log, host.nodeId(), settings.name());
    this.primaryScrub = new PrimaryScrubWatch(host, roles, dataDir, settings.name(), log, metrics);
    this.reads = new UnreadableReads(roles, settings.name(), dataDir, log, metrics,
        host.executors().serial(ExecutorSource.Pool.WORK, "nrt-readcheck-" + host.nodeId() + "-" + settings.name()));
  }

  /** The lost-writer watch, which the index's writes also consult. */
  LostWriterWatch lostWriter() {
    return lostWriter;
  }

  /** Where searches report documents they could not read. */
  UnreadableReads reads() {
    return reads;
  }

  /** One progress tick: the primary's silence is judged, a lost writer noticed, the scrub follows the role. */
  void tick() {
    suspicion.check();
    lostWriter.check();
    primaryScrub.check();
  }

  /** Stops the scrub; with {@code closeReads} (the index closes for good) the read checks first. */
  void stop(boolean closeReads) {
    if (closeReads) {
      reads.close();
    }
    primaryScrub.close();
  }
}

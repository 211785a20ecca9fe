package io.nrtcluster.replica;

import io.nrtcluster.transport.Connection;
import io.nrtcluster.transport.Message;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.apache.lucene.replicator.nrt.CopyJob;

/**
 * Keeps the primary informed while a merge pre-copy runs: a progress keep-alive every interval, then
 * exactly one result when the job ends, the connection drops or the replica closes. The primary
 * skips a replica whose keep-alives stop.
 */
final class PreCopyReporter implements Runnable {
  private static final long TICK_MILLIS = 20;

  private final Connection connection;
  private final long requestId;
  private final CopyJob job;
  private final AtomicBoolean finished;
  private final BooleanSupplier replicaClosed;
  private final ReplicaStats stats;
  private final long intervalNanos;
  private long lastSent = System.nanoTime();
  private ScheduledFuture<?> schedule;
  private boolean done;

  private PreCopyReporter(Connection connection, long requestId, CopyJob job, AtomicBoolean finished,
      BooleanSupplier replicaClosed, ReplicaStats stats, Duration interval) {
    this.connection = connection;
    this.requestId = requestId;
    this.job = job;
    this.finished = finished;
    this.replicaClosed = replicaClosed;
    this.stats = stats;
    this.intervalNanos = interval.toNanos();
  }

  /** Starts reporting on {@code scheduler} for pre-copy {@code requestId} running as {@code job}. */
  static void start(ScheduledExecutorService scheduler, Connection connection, long requestId, CopyJob job,
      AtomicBoolean finished, BooleanSupplier replicaClosed, ReplicaStats stats, Duration interval) {
    PreCopyReporter r = new PreCopyReporter(connection, requestId, job, finished, replicaClosed, stats, interval);
    synchronized (r) {
      r.schedule = scheduler.scheduleWithFixedDelay(r, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
    }
  }

  @Override
  public synchronized void run() {
    if (done) {
      return;
    }
    // A failed job may never reach Lucene's completion (installing its files can fail too): its
    // failure alone ends the report, so the primary never waits for it until its deadline.
    if (finished.get() || job.getFailed() || !connection.isOpen() || replicaClosed.getAsBoolean()) {
      done = true;
      boolean ok = finished.get() && !job.getFailed();
      if (ok) {
        stats.preCopyCompleted();
      }
      connection.reply(new Message.PreCopyDone(requestId, ok));
      schedule.cancel(false);
    } else if (System.nanoTime() - lastSent >= intervalNanos) {
      lastSent = System.nanoTime();
      connection.reply(new Message.PreCopyProgress(requestId, job.getTotalBytesCopied()));
    }
  }
}

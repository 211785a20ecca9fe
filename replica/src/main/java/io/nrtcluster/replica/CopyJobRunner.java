package io.nrtcluster.replica;

import io.nrtcluster.common.ExecutorSource;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.StorageException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.lucene.store.AlreadyClosedException;

/**
 * Runs copy jobs in the background, several at once, so a slow stream never blocks another job.
 * NRT-point copies come first: a merge pre-copy steps aside between slices while any NRT copy
 * runs, so a big merged segment never delays a refresh. Every job's completion callback runs
 * exactly once, whether it finished, failed or was cancelled.
 *
 * <p>On a host's shared copy pool ({@link ExecutorSource.Pool#COPY}) a job holds a thread only
 * while it copies: after {@value #SLICE_MILLIS} ms of slices it queues itself again behind the
 * other indexes' jobs; a pre-copy that must step aside waits off the pool until no NRT copy runs
 * (it would otherwise hold the thread the NRT copy needs), and a copy whose connection dropped
 * looks for its link again every {@value #LINK_POLL_MILLIS} ms off the pool. A slice itself waits
 * for file data from the network (bounded by the transport's read timeout) and for the disk.
 *
 * <p>A merge pre-copy can be paced ({@link ReplicaConfig#preCopyBytesPerSecond}): once it is ahead
 * of its pace it waits off the pool until the pace catches up, so while it waits it holds no
 * thread and takes no CPU from searches; its sender stops too once the transport's window is full.
 * A pre-copy keeps the pace in force when it started.
 */
final class CopyJobRunner {
  /** How long a job copies before other jobs get the thread. */
  static final long SLICE_MILLIS = 100;
  /** How often a copy waiting for its link to come back looks again. */
  static final long LINK_POLL_MILLIS = 50;

  private final NodeLog log;
  private final ExecutorService threads;
  private final ScheduledExecutorService timer;
  private final Object gate = new Object();
  private int highPriorityRunning;
  /** Jobs off the pool: pre-copies stepping aside, copies waiting for their link. Guarded by the gate. */
  private final List<StreamingCopyJob> parked = new ArrayList<>();
  private volatile boolean closed;
  private volatile long preCopyBytesPerSecond;

  /**
   * @param threads where jobs run (this runner shuts it down when it closes)
   * @param timer brings parked jobs back (only queues them: never copies)
   */
  CopyJobRunner(NodeLog log, ExecutorService threads, ScheduledExecutorService timer) {
    this.log = log;
    this.threads = threads;
    this.timer = timer;
  }

  /** The pace of merge pre-copies that start from now on; 0: unpaced. */
  void preCopyBytesPerSecond(long bytesPerSecond) {
    preCopyBytesPerSecond = bytesPerSecond;
  }

  void launch(StreamingCopyJob job) {
    if (job.highPriority) {
      synchronized (gate) {
        highPriorityRunning++;
      }
    }
    try {
      threads.execute(() -> run(job));
    } catch (RejectedExecutionException e) {
      if (job.highPriority) {
        highPriorityDone();
      }
      throw e;
    }
  }

  /** Queues a job that already ran slices; when the runner is gone meanwhile, ends it here. */
  private void resubmit(StreamingCopyJob job) {
    try {
      threads.execute(() -> run(job));
    } catch (RejectedExecutionException e) {
      end(job, new AlreadyClosedException("replica closing"));
    }
  }

  private void run(StreamingCopyJob job) {
    long sliceEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SLICE_MILLIS);
    try {
      while (!closed) {
        if (!job.highPriority && parkWhileHighPriorityRuns(job)) {
          return;
        }
        if (job.visit()) {
          break;
        }
        // What a dropped copy wrote is reread here, outside the job's monitor; no waiting for the link.
        job.betweenSlices(0);
        if (job.awaitingLink()) {
          parkFor(job, LINK_POLL_MILLIS);
          return;
        }
        long ahead = job.highPriority ? 0 : aheadOfPaceMillis(job);
        if (ahead > 0) {
          parkFor(job, ahead);
          return;
        }
        if (System.nanoTime() - sliceEnd > 0) {
          resubmit(job);
          return;
        }
      }
      if (closed && !job.getFailed()) {
        job.cancel("replica closing", null);
      }
    } catch (Throwable t) {
      end(job, t);
      return;
    }
    finish(job);
  }

  /** How many milliseconds a paced pre-copy is ahead of its pace (0 when not ahead, or unpaced). */
  private long aheadOfPaceMillis(StreamingCopyJob job) {
    long now = System.nanoTime();
    if (job.pacedBytesPerSecond < 0) {
      job.pacedBytesPerSecond = preCopyBytesPerSecond;
      job.pacedSinceNanos = now;
    }
    if (job.pacedBytesPerSecond == 0) {
      return 0;
    }
    long due = job.pacedSinceNanos + (long) (job.bytesWrittenSoFar() * 1e9 / job.pacedBytesPerSecond);
    return due - now >= TimeUnit.MILLISECONDS.toNanos(1) ? TimeUnit.NANOSECONDS.toMillis(due - now) : 0;
  }

  /** The job failed or was stopped with {@code t}: cancelled, then completed. */
  private void end(StreamingCopyJob job, Throwable t) {
    if (t instanceof InterruptedException) {
      Thread.currentThread().interrupt();
    }
    if (t instanceof AlreadyClosedException || closed) {
      log.debug("copy job {} stopped: replica closing", job);
    } else if (t instanceof StorageException) {
      log.warn("copy job {} abandoned, local storage failed (temp files removed, searcher kept, retry with backoff): {}",
          job, t.getMessage());
    } else {
      log.warn("copy job {} failed: {}", job, t.toString());
    }
    try {
      job.cancel("copy failed", t);
    } catch (Throwable t2) {
      log.warn("cancelling copy job {} failed", job, t2);
    }
    finish(job);
  }

  /** Runs the job's completion, once it is over. */
  private void finish(StreamingCopyJob job) {
    if (job.highPriority) {
      highPriorityDone();
    }
    try {
      job.onceDone.run(job);
    } catch (Throwable t) {
      // Lucene's completion wraps what failed installing the files in a RuntimeException.
      if (t.getCause() instanceof StorageException s) {
        log.warn("installing copy job {} failed, local storage failed (searcher kept, retry with backoff): {}",
            job, s.getMessage());
      } else {
        log.warn("completing copy job {} failed", job, t);
      }
    }
  }

  private void highPriorityDone() {
    List<StreamingCopyJob> resume = List.of();
    synchronized (gate) {
      highPriorityRunning--;
      if (highPriorityRunning == 0) {
        resume = takeParked(j -> !j.highPriority && !j.awaitingLink());
      }
    }
    resume.forEach(this::resubmit);
  }

  /** True (and the job parked until no NRT copy runs) while an NRT copy runs. */
  private boolean parkWhileHighPriorityRuns(StreamingCopyJob job) {
    synchronized (gate) {
      if (highPriorityRunning == 0 || closed) {
        return false;
      }
      parked.add(job);
      return true;
    }
  }

  /** Parks the job off the pool for {@code millis}; with the replica closing, ends it instead. */
  private void parkFor(StreamingCopyJob job, long millis) {
    synchronized (gate) {
      if (!closed) {
        parked.add(job);
        try {
          timer.schedule(() -> unpark(job), millis, TimeUnit.MILLISECONDS);
          return;
        } catch (RejectedExecutionException e) {
          // The link (whose timer this is) closed: the replica is closing.
          parked.remove(job);
        }
      }
    }
    end(job, new AlreadyClosedException("replica closing"));
  }

  private void unpark(StreamingCopyJob job) {
    // Under the gate, so it is queued before close() shuts the pool down, or close() queues it.
    synchronized (gate) {
      if (!closed && parked.remove(job)) {
        resubmit(job);
      }
    }
  }

  private List<StreamingCopyJob> takeParked(Predicate<StreamingCopyJob> which) {
    List<StreamingCopyJob> out = new ArrayList<>();
    parked.removeIf(j -> {
      if (which.test(j)) {
        out.add(j);
        return true;
      }
      return false;
    });
    return out;
  }

  void close(long timeoutMillis) {
    List<StreamingCopyJob> last;
    synchronized (gate) {
      closed = true;
      last = takeParked(j -> true);
    }
    // Parked jobs run once more, see the runner closed and end (each completion runs once).
    last.forEach(this::resubmit);
    threads.shutdown();
    try {
      if (!threads.awaitTermination(timeoutMillis, TimeUnit.MILLISECONDS)) {
        threads.shutdownNow();
        log.warn("copy threads did not stop within {} ms", timeoutMillis);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      threads.shutdownNow();
    }
  }
}

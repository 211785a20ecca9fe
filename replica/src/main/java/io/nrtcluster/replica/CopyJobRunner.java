package io.nrtcluster.replica;

import io.nrtcluster.common.NamedThreadFactory;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.StorageException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.store.AlreadyClosedException;

/**
 * Runs copy jobs in the background, one thread each, so a slow stream never blocks another job.
 * NRT-point copies come first: a merge pre-copy pauses between slices while any NRT copy runs, so a
 * big merged segment never delays a refresh. Every job's completion callback runs exactly once,
 * whether it finished, failed or was cancelled.
 */
final class CopyJobRunner {
  private final NodeLog log;
  private final ExecutorService threads;
  private final Object gate = new Object();
  private int highPriorityRunning;
  private volatile boolean closed;

  CopyJobRunner(NodeLog log) {
    this.log = log;
    this.threads = Executors.newCachedThreadPool(new NamedThreadFactory("nrt-copy-" + log.name()));
  }

  void launch(StreamingCopyJob job) {
    if (job.highPriority) {
      synchronized (gate) {
        highPriorityRunning++;
      }
    }
    threads.execute(() -> run(job));
  }

  private void run(StreamingCopyJob job) {
    try {
      while (!closed) {
        if (!job.highPriority) {
          awaitNoHighPriority();
        }
        if (job.visit()) {
          break;
        }
        // A copy whose connection dropped waits here, outside its monitor, for the link to return.
        job.betweenSlices(200);
      }
      if (closed && !job.getFailed()) {
        job.cancel("replica closing", null);
      }
    } catch (Throwable t) {
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
    } finally {
      if (job.highPriority) {
        synchronized (gate) {
          highPriorityRunning--;
          gate.notifyAll();
        }
      }
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

  private void awaitNoHighPriority() throws InterruptedException {
    synchronized (gate) {
      while (highPriorityRunning > 0 && !closed) {
        gate.wait(100);
      }
    }
  }

  void close(long timeoutMillis) {
    closed = true;
    synchronized (gate) {
      gate.notifyAll();
    }
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

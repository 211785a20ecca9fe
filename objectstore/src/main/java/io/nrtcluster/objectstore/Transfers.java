package io.nrtcluster.objectstore;

import io.nrtcluster.common.NamedThreadFactory;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs a batch of transfers with at most {@code parallelism} at once, and fails the batch on the
 * first failure (transfers not started yet are skipped). Its threads wait only on the store and the
 * local disk, never on each other.
 */
final class Transfers implements AutoCloseable {
  @FunctionalInterface
  interface Transfer {
    void run() throws IOException;
  }

  private final ExecutorService pool;

  Transfers(String name, int parallelism) {
    ThreadPoolExecutor p = new ThreadPoolExecutor(parallelism, parallelism, 30, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(), new NamedThreadFactory(name));
    p.allowCoreThreadTimeOut(true);
    this.pool = p;
  }

  /** Runs every transfer; returns when all are done, or throws the first failure once the others stopped. */
  void runAll(List<Transfer> transfers) throws IOException {
    AtomicBoolean failed = new AtomicBoolean();
    List<Future<?>> futures = new ArrayList<>(transfers.size());
    for (Transfer t : transfers) {
      futures.add(pool.submit(() -> {
        if (failed.get()) {
          return null;
        }
        try {
          t.run();
        } catch (IOException | RuntimeException e) {
          failed.set(true);
          throw e;
        }
        return null;
      }));
    }
    IOException first = null;
    try {
      for (Future<?> f : futures) {
        try {
          f.get();
        } catch (ExecutionException e) {
          if (first == null) {
            first = e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
          }
        }
      }
    } catch (InterruptedException e) {
      failed.set(true);
      futures.forEach(f -> f.cancel(true));
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while transferring");
    }
    if (first != null) {
      throw first;
    }
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}

package io.nrtcluster.replica;

import io.nrtcluster.common.SerialExecutor;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Repairs of files that a failed read found corrupt, on the replica's own serial executor (the
 * repair closes and reopens the index, which a search thread must not wait for), one at a time, a
 * file queued once however often it is reported meanwhile. {@link #close} waits for a repair under
 * way, so the replica's close knows no index is reopened behind its back.
 */
final class ReadRepairs {
  private final SerialExecutor executor;
  private final Consumer<String> repair;
  private final Set<String> queued = ConcurrentHashMap.newKeySet();

  ReadRepairs(SerialExecutor executor, Consumer<String> repair) {
    this.executor = executor;
    this.repair = repair;
  }

  void submit(String fileName) {
    if (!queued.add(fileName)) {
      return;
    }
    try {
      executor.execute(() -> {
        queued.remove(fileName);
        repair.accept(fileName);
      });
    } catch (RejectedExecutionException e) {
      // Closed meanwhile: the next open verifies the file.
      queued.remove(fileName);
    }
  }

  /** Stops taking repairs and waits up to {@code millis} for one under way (no interrupt: it may be reopening the index). */
  void close(long millis) {
    executor.shutdown();
    try {
      executor.awaitTermination(Math.max(1, millis), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

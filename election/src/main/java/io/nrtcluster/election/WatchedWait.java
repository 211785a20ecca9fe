package io.nrtcluster.election;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.WatcherRemoveCuratorFramework;
import org.apache.zookeeper.Watcher;

/**
 * Waiting for a condition on znodes without polling: each read leaves a one-shot watch, and the
 * next read happens only when that watch fires (a change, or a connection event) or the time is up.
 * The watches are removed when the wait ends, so a long-lived client does not collect them.
 */
final class WatchedWait {
  private WatchedWait() {}

  /** One read that leaves {@code watcher} on every znode whose change could change the answer. */
  @FunctionalInterface
  interface WatchedRead<T> {
    T read(CuratorFramework client, Watcher watcher) throws Exception;
  }

  /**
   * Reads until {@code done} holds or {@code timeout} passed; returns the last value read (the
   * caller tells the two apart with {@code done}). Interrupts end the wait with an
   * {@link InterruptedException}, the flag set.
   */
  static <T> T until(CuratorFramework client, Duration timeout, WatchedRead<T> read, Predicate<T> done) throws Exception {
    WatcherRemoveCuratorFramework scoped = client.newWatcherRemoveCuratorFramework();
    try {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (true) {
        CountDownLatch changed = new CountDownLatch(1);
        T value = read.read(scoped, event -> changed.countDown());
        long left = deadline - System.nanoTime();
        if (done.test(value) || left <= 0) {
          return value;
        }
        try {
          changed.await(left, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    } finally {
      scoped.removeWatchers();
    }
  }
}

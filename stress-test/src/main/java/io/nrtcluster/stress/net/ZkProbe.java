package io.nrtcluster.stress.net;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/** Whether a ZooKeeper connect string serves: a session is established and {@code exists("/")} answers. */
final class ZkProbe {
  private static final int SESSION_MILLIS = 4_000;

  private ZkProbe() {}

  /** True if a session to {@code connectString} is up and answers within {@code wait}; never throws for a "no". */
  static boolean serves(String connectString, Duration wait) throws IOException {
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper zk = new ZooKeeper(connectString, SESSION_MILLIS, event -> {
      if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
        connected.countDown();
      }
    });
    try {
      if (!connected.await(wait.toMillis(), TimeUnit.MILLISECONDS)) {
        return false;
      }
      return zk.exists("/", false) != null;
    } catch (KeeperException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while probing ZooKeeper at " + connectString, e);
    } finally {
      try {
        zk.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}

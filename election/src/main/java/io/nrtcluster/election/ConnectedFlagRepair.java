package io.nrtcluster.election;

import io.nrtcluster.common.Durations;
import io.nrtcluster.common.NamedThreadFactory;
import java.io.Closeable;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.curator.CuratorZookeeperClient;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooKeeper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts Curator's "connected" flag right when it says disconnected while the ZooKeeper handle under
 * it is connected.
 *
 * <p>Curator keeps that flag beside the handle and changes it only on the handle's connection
 * events. When a session expires while connected (ZooKeeper's injected expiry, or Curator's own
 * after a suspension outlasts the session), Curator opens the new handle from inside the old
 * handle's event thread; if the new handle connects before that thread has finished, the old
 * thread clears the flag last and no later event sets it (CURATOR-639). Every operation then fails
 * with ConnectionLoss and no listener hears of a reconnection, so an expired primary never rejoins.
 *
 * <p>Once the flag has disagreed with the same connected handle for a whole connection timeout
 * (Curator's own limit for an operation to wait for a connection), this replays on that handle the
 * two events Curator missed, {@code Disconnected} then {@code SyncConnected}: the flag follows the
 * handle again, the session is kept, and every listener sees an ordinary suspension and
 * reconnection. A handle that is not connected, or a disagreement that ends, resets the clock, so a
 * real disconnection is never touched.
 */
final class ConnectedFlagRepair implements Closeable {
  private static final Logger log = LoggerFactory.getLogger(ConnectedFlagRepair.class);

  private final CuratorFramework client;
  private final long graceNanos;
  private final ScheduledExecutorService timer;
  // Only the timer thread reads and writes these two.
  private ZooKeeper suspect;
  private long suspectSince;

  private ConnectedFlagRepair(CuratorFramework client, Duration grace) {
    this.client = client;
    this.graceNanos = grace.toNanos();
    this.timer = Executors.newSingleThreadScheduledExecutor(new NamedThreadFactory("nrt-zk-flag"));
  }

  /** Checks {@code client} every quarter of {@code grace} (at least every second) until closed. */
  static ConnectedFlagRepair start(CuratorFramework client, Duration grace) {
    ConnectedFlagRepair r = new ConnectedFlagRepair(client, grace);
    long period = Math.clamp(grace.toMillis() / 4, 50, 1000);
    r.timer.scheduleWithFixedDelay(r::check, period, period, TimeUnit.MILLISECONDS);
    return r;
  }

  private void check() {
    try {
      CuratorZookeeperClient zc = client.getZookeeperClient();
      if (client.getState() != CuratorFrameworkState.STARTED || zc.isConnected()) {
        suspect = null;
        return;
      }
      ZooKeeper handle = zc.getZooKeeper();
      if (handle == null || !handle.getState().isConnected()) {
        suspect = null;
        return;
      }
      long now = System.nanoTime();
      if (handle != suspect) {
        suspect = handle;
        suspectSince = now;
        return;
      }
      if (now - suspectSince < graceNanos) {
        return;
      }
      log.warn("ZooKeeper session 0x{}: connected, but Curator has said disconnected for {}; replaying the connection events it missed",
          Long.toHexString(handle.getSessionId()), Durations.format(Duration.ofNanos(now - suspectSince)));
      handle.getTestable().queueEvent(new WatchedEvent(EventType.None, KeeperState.Disconnected, null));
      handle.getTestable().queueEvent(new WatchedEvent(EventType.None, KeeperState.SyncConnected, null));
      suspect = null;
    } catch (Exception e) {
      // getZooKeeper() hands over an error Curator queued for the next operation: say what it was.
      log.warn("checking the ZooKeeper client's connection failed: {}", e.toString());
      suspect = null;
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}

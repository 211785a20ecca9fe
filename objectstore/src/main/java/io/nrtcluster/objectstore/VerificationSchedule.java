package io.nrtcluster.objectstore;

import io.nrtcluster.common.NodeLog;
import io.nrtcluster.election.Role;
import io.nrtcluster.node.ClusterNode;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * When a host rereads the newest backup of the indexes it leads ({@link BackupVerification}): every
 * {@link HostStoreConfig#verifyInterval()}, the first one a check after the node starts to lead (so
 * a primary that just took over verifies what it will build on, and primaries that move often do not
 * reread on every move within a check). Verifications run one at a time on the host's own daemon
 * thread, at the configured pace, and wait for nothing but the store; a node that stops leading
 * stops verifying at its next check.
 */
final class VerificationSchedule implements AutoCloseable {
  /** One index this host may verify. */
  interface Target {
    /** The index as open on this host, or null while it is not (yet). */
    ClusterNode node();

    BackupVerification verification();

    NodeLog log();
  }

  private final long intervalNanos;
  private final long checkNanos;
  private final ScheduledExecutorService thread;
  private final Map<String, Entry> targets = new ConcurrentHashMap<>();

  /** Touched by the schedule's thread only. */
  private static final class Entry {
    final Target target;
    boolean leading;
    long dueNanos;

    Entry(Target target) {
      this.target = target;
    }
  }

  VerificationSchedule(Duration interval, int nodeId) {
    this.intervalNanos = interval.toNanos();
    Duration check = RetentionSchedule.tick(interval);
    this.checkNanos = check.toNanos();
    this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "nrt-N" + nodeId + "-backup-verify");
      t.setDaemon(true);
      return t;
    });
    thread.scheduleWithFixedDelay(this::checkAll, check.toMillis(), check.toMillis(), TimeUnit.MILLISECONDS);
  }

  void add(String index, Target target) {
    targets.put(index, new Entry(target));
  }

  void remove(String index) {
    targets.remove(index);
  }

  private void checkAll() {
    for (Entry e : targets.values()) {
      if (Thread.currentThread().isInterrupted()) {
        return;
      }
      try {
        check(e);
      } catch (RuntimeException ex) {
        e.target.log().warn("backup verification failed: {}", ex.toString());
      }
    }
  }

  private void check(Entry e) {
    ClusterNode node = e.target.node();
    long now = System.nanoTime();
    if (node == null || node.role() != Role.PRIMARY) {
      e.leading = false;
      return;
    }
    if (!e.leading) {
      e.leading = true;
      e.dueNanos = now + checkNanos;
      return;
    }
    if (now - e.dueNanos < 0) {
      return;
    }
    try {
      e.target.verification().verifyNewest();
      e.dueNanos = System.nanoTime() + intervalNanos;
    } catch (BackupNotFoundException none) {
      e.dueNanos = System.nanoTime() + checkNanos; // nothing backed up yet: look again soon
    } catch (InterruptedIOException closing) {
      Thread.currentThread().interrupt(); // the host closes
    } catch (IOException ex) {
      e.dueNanos = System.nanoTime() + Math.min(intervalNanos, TimeUnit.MINUTES.toNanos(1));
      if (!(ex instanceof CorruptBackupException)) { // a corrupt manifest was logged by the verification
        e.target.log().warn("backup verification could not read the store, tried again later: {}", ex.toString());
      }
    }
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}

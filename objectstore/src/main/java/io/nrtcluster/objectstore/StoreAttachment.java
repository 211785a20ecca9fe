package io.nrtcluster.objectstore;

import io.nrtcluster.common.NodeLog;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Whether a host's object store answers, so that a store that does not costs the host one bounded
 * look instead of every index's whole retry budget. Detached, the store is skipped by what can do
 * without it (an index's bootstrap falls back to copying from its primary at once); a probe, one
 * call bounded by the start timeout every {@link #probeEvery}, attaches it again once it answers.
 * Backups never wait for it: they try, fail typed and count, as without it.
 *
 * <p>Thread-safe: the state is one atomic flag; probes run on this object's own daemon thread, one at
 * a time, and never hold a lock.
 */
final class StoreAttachment implements AutoCloseable {
  private final BlobStore store;
  private final Duration timeout;
  private final NodeLog log;
  private final AtomicBoolean attached = new AtomicBoolean(true);
  private final AtomicBoolean probing = new AtomicBoolean();
  private final ScheduledExecutorService prober;

  StoreAttachment(BlobStore store, Duration timeout, NodeLog log, String threadName) {
    this.store = store;
    this.timeout = timeout;
    this.log = log;
    this.prober = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, threadName);
      t.setDaemon(true);
      return t;
    });
  }

  /** How often a detached store is probed: the start timeout, at least a second. */
  Duration probeEvery() {
    return timeout.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : timeout;
  }

  /** The bound of one look at the store at start. */
  Duration timeout() {
    return timeout;
  }

  /** A deadline one start timeout from now, for an index's one bounded look. */
  Deadline lookDeadline() {
    return Deadline.after(System.nanoTime(), timeout);
  }

  /**
   * Looks at the store once, bounded by the start timeout, and attaches or detaches it.
   *
   * @throws ObjectStoreAccessException the store answered and refused (credentials, no bucket)
   */
  boolean probe() throws IOException {
    try {
      store.checkAccess(lookDeadline());
      attach();
      return true;
    } catch (ObjectStoreUnavailableException e) {
      detach(e);
      return false;
    }
  }

  boolean attached() {
    return attached.get();
  }

  /** A look at the store failed (it did not answer in time): skip it until a probe says it answers. */
  void detach(Exception cause) {
    if (attached.compareAndSet(true, false)) {
      log.warn("object store not answering ({}): detached; indexes copy from their primaries, backups retry, "
          + "probing every {}", cause.toString(), probeEvery());
    }
    scheduleProbe();
  }

  private void attach() {
    if (attached.compareAndSet(false, true)) {
      log.info("object store answers again: attached");
    }
  }

  private void scheduleProbe() {
    if (!probing.compareAndSet(false, true)) {
      return;
    }
    try {
      prober.schedule(this::probeInBackground, probeEvery().toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException closed) {
      probing.set(false);
    }
  }

  private void probeInBackground() {
    probing.set(false);
    try {
      if (probe()) {
        return;
      }
    } catch (IOException | RuntimeException e) {
      // It answered (a refusal is an answer): attached, and the backups report the refusal.
      attach();
      log.warn("object store answers but refuses: {}", e.toString());
      return;
    }
    scheduleProbe();
  }

  @Override
  public void close() {
    prober.shutdownNow();
  }
}

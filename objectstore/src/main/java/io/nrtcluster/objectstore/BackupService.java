package io.nrtcluster.objectstore;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.Experimental;
import io.nrtcluster.common.NamedThreadFactory;
import io.nrtcluster.common.NodeLog;
import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Backs up points of one index, incrementally and in the background.
 *
 * <p>{@link #submit} never blocks and never waits for the store: it hands the point to the
 * service's own thread and returns a future. One backup runs at a time; while it runs, at most one
 * more point waits, and a newer submission replaces the waiting one (which completes with {@link
 * BackupAbandonedException} and is released at once). So a primary that refreshes faster than the
 * store takes its points backs up every point it can, always the newest, and never queues more than
 * one point's files.
 *
 * <p>A backup of point P, in this order:
 *
 * <ol>
 *   <li>writes a marker {@code pending/<id>} naming every file key P references;
 *   <li>waits for the retention sweeps it finds under way to finish (see {@link RetentionSweeper}
 *       for why this order makes concurrent sweeps safe);
 *   <li>for each file, HEADs its key ({@link StoreLayout#fileKey name, length, checksum}) and uploads
 *       it only if the store lacks it, holds it with another length (a truncated object), or a
 *       verification marked it damaged ({@link DamagedObjects}: a reused object is otherwise checked by
 *       its length only, and {@link BackupVerification} rereads the bytes), up to
 *       {@link ObjectStoreConfig#maxParallelTransfers()} at once; each upload checks the local file
 *       against its Lucene checksum as its bytes go up, so a file damaged on this disk fails the
 *       backup ({@link io.nrtcluster.common.CorruptLocalFileException}, naming it) instead of being stored;
 *   <li>writes the manifest, last, unless it outlived {@link ObjectStoreConfig#backupLease()}: the
 *       manifest's PUT starts no attempt once the lease has passed since just before (1), and its
 *       attempt under way is cut there, whatever retries the store client had left (a backup stopped
 *       there is abandoned);
 *   <li>deletes its marker.
 * </ol>
 *
 * A manifest therefore never names a file that is not in the store. A backup that fails leaves no
 * manifest; what it uploaded is reused by the next backup or removed by retention. {@link
 * PrimaryBackups} feeds it a cluster's primary (every commit or every NRT point); a new primary after
 * failover uses its own service on the same layout and finds the files already there.
 */
@Experimental
public final class BackupService implements Closeable {
  private static final Duration SWEEP_POLL = Duration.ofMillis(100);

  private record Pending(BackupSource source, CompletableFuture<BackupResult> future, long sinceEpochMillis) {}

  private final BlobStore store;
  private final ManifestStore manifests;
  private final StoreLayout layout;
  private final ObjectStoreConfig config;
  private final ObjectStoreMetrics metrics;
  private final NodeLog log;
  private final DamagedObjects damaged;
  private final ExecutorService runner;
  private final Transfers transfers;
  private final Object lock = new Object();
  private boolean running;
  private Pending waiting;
  private boolean closed;

  public BackupService(ManifestStore manifests, NodeLog log) {
    this(manifests, log, new DamagedObjects());
  }

  /**
   * A service that uploads a fresh copy of every file whose key is in {@code damaged} (a verification
   * found the stored object damaged) instead of reusing it, and removes the key once that copy is stored.
   */
  public BackupService(ManifestStore manifests, NodeLog log, DamagedObjects damaged) {
    this.damaged = Checks.notNull("damaged", damaged);
    this.manifests = manifests;
    this.store = manifests.blobStore();
    this.layout = manifests.layout();
    this.config = store.config();
    this.metrics = store.metrics();
    this.log = log;
    this.runner = Executors.newSingleThreadExecutor(new NamedThreadFactory(log.name() + "-backup"));
    this.transfers = new Transfers(log.name() + "-upload", config.maxParallelTransfers());
  }

  /**
   * Backs up {@code source}'s point in the background; never blocks. The future completes with the
   * result, or with the error (typed: {@link ObjectStoreUnavailableException}, {@link
   * ObjectStoreAccessException}, {@link BackupAbandonedException}, {@link
   * io.nrtcluster.common.CorruptLocalFileException}, ...). The source is closed exactly once.
   */
  public CompletableFuture<BackupResult> submit(BackupSource source) {
    CompletableFuture<BackupResult> future = new CompletableFuture<>();
    long now = System.currentTimeMillis();
    long version = source.point().version();
    metrics.submitted(version, now);
    Pending replaced = null;
    Pending start = null;
    boolean refused;
    synchronized (lock) {
      refused = closed;
      if (!refused) {
        if (!running) {
          running = true;
          start = new Pending(source, future, now);
        } else {
          replaced = waiting;
          waiting = new Pending(source, future, replaced == null ? now : Math.min(now, replaced.sinceEpochMillis()));
        }
      }
    }
    if (refused) {
      finish(new Pending(source, future, now), null, new BackupAbandonedException("backup service closed; version " + version + " not backed up"));
      return future;
    }
    if (replaced != null) {
      metrics.backupSuperseded();
      finish(replaced, null, new BackupAbandonedException("version " + replaced.source().point().version()
          + " superseded by version " + version + " before its backup started"));
    }
    if (start != null) {
      Pending first = start;
      try {
        runner.execute(() -> runAll(first));
      } catch (RejectedExecutionException e) {
        finish(first, null, new BackupAbandonedException("backup service closed; version " + version + " not backed up"));
      }
    }
    return future;
  }

  private void runAll(Pending first) {
    Pending p = first;
    while (p != null) {
      try {
        BackupResult r = backup(p.source());
        long pendingSince;
        synchronized (lock) {
          pendingSince = waiting == null ? -1 : waiting.sinceEpochMillis();
        }
        metrics.backedUp(p.source().point().version(), System.currentTimeMillis(), pendingSince);
        finish(p, r, null);
      } catch (IOException | RuntimeException e) {
        metrics.backupFailed();
        log.warn("backup of version {} failed: {}", p.source().point().version(), e.toString());
        finish(p, null, e);
      }
      synchronized (lock) {
        p = waiting;
        waiting = null;
        if (p == null) {
          running = false;
        }
      }
    }
  }

  private void finish(Pending p, BackupResult result, Throwable error) {
    try {
      p.source().close();
    } catch (IOException | RuntimeException e) {
      log.warn("releasing the files of version {} failed: {}", p.source().point().version(), e.toString());
    }
    if (error == null) {
      p.future().complete(result);
    } else {
      p.future().completeExceptionally(error);
    }
  }

  /** Runs one backup on the calling thread (the protocol in the class comment). */
  private BackupResult backup(BackupSource source) throws IOException {
    long start = System.nanoTime();
    BackupPoint point = source.point();
    String id = point.version() + "-" + point.primaryGen() + "-" + UUID.randomUUID();
    String marker = layout.pendingKey(id);
    List<FileEntry> files = List.copyOf(point.files().values());
    List<String> keys = files.stream().map(layout::fileKey).toList();
    store.put(marker, String.join("\n", keys).getBytes(StandardCharsets.UTF_8));
    try {
      awaitSweepsUnderWay(start);
      AtomicInteger uploaded = new AtomicInteger();
      AtomicInteger reused = new AtomicInteger();
      AtomicLong bytes = new AtomicLong();
      List<Transfers.Transfer> work = new ArrayList<>(files.size());
      for (FileEntry f : files) {
        String key = layout.fileKey(f);
        work.add(() -> {
          if (damaged.contains(key)) {
            // Its length may hold while its bytes do not, which only a verification that read them sees.
            log.warn("stored {} was found damaged by a verification: uploading it again", key);
          } else {
            Optional<ObjectInfo> there = store.head(key);
            if (there.isPresent()) {
              if (there.get().size() == f.length()) {
                reused.incrementAndGet();
                metrics.fileSkipped();
                return;
              }
              // The key names the length, so only a damaged (truncated) object can differ: replace it.
              log.warn("stored {} has {} bytes, not {}: uploading it again", key, there.get().size(), f.length());
            }
          }
          store.putFile(key, source.directory(), f); // a PUT replaces the damaged object whole
          // Only now: a failed upload leaves the mark, so the next backup tries again.
          damaged.remove(key);
          uploaded.incrementAndGet();
          bytes.addAndGet(f.length());
          metrics.fileUploaded();
        });
      }
      transfers.runAll(work);
      checkLease(start, point);
      ManifestId written = writeManifest(point, Deadline.after(start, config.backupLease()));
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      log.debug("backed up version {} gen {}: {} files ({} bytes) uploaded, {} already stored, in {} ms",
          point.version(), point.primaryGen(), uploaded.get(), bytes.get(), reused.get(), took.toMillis());
      return new BackupResult(written, uploaded.get(), bytes.get(), reused.get(), took);
    } finally {
      try {
        store.delete(marker);
      } catch (IOException e) {
        // Left behind, it goes stale after the lease and retention removes it.
        log.warn("could not delete backup marker {}: {}", marker, e.toString());
      }
    }
  }

  /**
   * Waits until every sweep listed now has finished or run past its lease (plus the clock margin,
   * counted from when this backup first saw it). Sweeps that start later see this backup's marker.
   */
  private void awaitSweepsUnderWay(long start) throws IOException {
    Set<String> sweeps = new HashSet<>();
    store.list(layout.sweepsPrefix()).forEach(o -> sweeps.add(o.key()));
    if (sweeps.isEmpty()) {
      return;
    }
    long deadline = System.nanoTime() + config.sweepLease().plus(config.clockMargin()).toNanos();
    log.debug("waiting for {} retention sweep(s) under way", sweeps.size());
    while (true) {
      Set<String> now = new HashSet<>();
      store.list(layout.sweepsPrefix()).forEach(o -> now.add(o.key()));
      sweeps.retainAll(now);
      if (sweeps.isEmpty() || System.nanoTime() - deadline >= 0) {
        return;
      }
      if (System.nanoTime() - start > config.backupLease().toNanos()) {
        return; // checkLease abandons the backup
      }
      try {
        Thread.sleep(SWEEP_POLL.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while waiting for a retention sweep");
      }
    }
  }

  /**
   * The manifest, sent only within the lease: a sweep that found this backup's marker stale (older
   * than the lease and the margin) may have deleted the files it names, so a PUT sent later, a retry
   * included, could name deleted objects.
   */
  private ManifestId writeManifest(BackupPoint point, Deadline lease) throws IOException {
    try {
      return manifests.write(point.manifest(System.currentTimeMillis()), lease);
    } catch (LeaseExpiredException e) {
      throw new BackupAbandonedException("backup of version " + point.version() + " did not write its manifest within"
          + " its lease of " + config.backupLease().toMillis() + " ms: retention may have removed its files", e);
    }
  }

  private void checkLease(long start, BackupPoint point) throws BackupAbandonedException {
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    if (took.compareTo(config.backupLease()) >= 0) {
      throw new BackupAbandonedException("backup of version " + point.version() + " took " + took.toMillis()
          + " ms, past its lease of " + config.backupLease().toMillis() + " ms: retention may have removed its files");
    }
    synchronized (lock) {
      if (closed) {
        throw new BackupAbandonedException("backup service closed during the backup of version " + point.version());
      }
    }
  }

  /** True while a backup runs or waits. */
  public boolean busy() {
    synchronized (lock) {
      return running;
    }
  }

  /**
   * Stops: the waiting point is released unbacked, a running backup is interrupted (it writes no
   * manifest), and the threads end. Waits at most {@code timeout} for the running backup.
   */
  public void close(Duration timeout) {
    Pending dropped;
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      dropped = waiting;
      waiting = null;
    }
    if (dropped != null) {
      finish(dropped, null, new BackupAbandonedException("backup service closed; version "
          + dropped.source().point().version() + " not backed up"));
    }
    runner.shutdownNow();
    try {
      runner.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    transfers.close();
  }

  @Override
  public void close() {
    close(Duration.ofSeconds(30));
  }
}

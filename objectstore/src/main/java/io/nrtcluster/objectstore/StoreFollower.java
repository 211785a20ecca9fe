package io.nrtcluster.objectstore;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.Experimental;
import io.nrtcluster.common.IndexUnavailableException;
import io.nrtcluster.common.NamedThreadFactory;
import io.nrtcluster.common.NodeLog;
import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.Lock;
import org.apache.lucene.util.IOUtils;
import org.slf4j.LoggerFactory;

/**
 * A read-only copy of one index that follows its backups through the object store alone: it never
 * connects to a primary (so it can live in another region), takes no part in elections and never
 * becomes primary. Every {@link StoreFollowerConfig#pollInterval()} it lists the index's manifests;
 * when the newest (by version, then primary generation) is newer than the point it serves, it reads
 * that manifest, downloads only the files its directory lacks, installs the point and opens a
 * searcher on it.
 *
 * <p>Guarantees:
 *
 * <ul>
 *   <li>It only ever searches a point some primary backed up, at that point's version, every byte
 *       verified: each downloaded file's length, CodecUtil footer and CRC32 against both the footer
 *       and the manifest ({@link VerifiedDownloads}, the checks of a {@link Restorer}); a file is
 *       reused only under the same name, length and checksum, and a local file it did not write is
 *       read in full first.
 *   <li>It never goes back: a manifest older than the point served is ignored. A new primary
 *       generation's manifest of a higher version (after a failover) is followed, even where the new
 *       primary gave an old name other bytes.
 *   <li>A failure (the store unreachable, an object damaged or missing, the manifest deleted meanwhile
 *       by retention) installs nothing and leaves the last good searcher serving; it is counted, and
 *       the next look tries again with whatever is newest then.
 *   <li>It lags the newest backup by at most the poll interval plus the time to download the new
 *       files, while the store answers; {@link #status()} shows the lag in versions and in time.
 * </ul>
 *
 * <p>It owns {@code <path>/index}, locked against any other writer (Lucene's {@code write.lock}), and
 * deletes what no open reader and no newer point needs. On a restart it serves at once the point an
 * earlier run installed there (its generation unknown until the store's manifest of it, or a newer
 * one, is installed: the files are then read in full before reuse), so a store that does not answer
 * at start does not leave it empty. Searches {@link #acquire()} a searcher and
 * {@link #release} it; release every searcher before {@link #close()}. Thread-safe.
 */
@Experimental
public final class StoreFollower implements Closeable {
  private final ManifestStore manifests;
  private final NodeLog log;
  private final FSDirectory dir;
  private final Lock writeLock;
  private final PointInstaller installer;
  private final ScheduledExecutorService poller;
  /** The files of every open reader, by reader: what must not be deleted ({@link FollowerSearchers}). */
  private final Map<IndexReader.CacheKey, Set<String>> live = new ConcurrentHashMap<>();
  private final AtomicLong points = new AtomicLong();
  private final AtomicLong filesDownloaded = new AtomicLong();
  private final AtomicLong bytesDownloaded = new AtomicLong();
  private final AtomicLong filesReused = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  /** Null until the first install; written only by the poll thread. */
  private volatile FollowerSearchers searchers;
  private volatile ManifestId served;
  private volatile ManifestId newest;
  private volatile String lastError;
  /** What the last failure was about (the object, for a damaged one); the poll thread's alone. */
  private String lastCause;
  private volatile boolean closed;

  private StoreFollower(ManifestStore manifests, Path path, StoreFollowerConfig config, String logName)
      throws IOException {
    this.manifests = Checks.notNull("manifests", manifests);
    Checks.notNull("config", config);
    this.log = new NodeLog(LoggerFactory.getLogger(StoreFollower.class), Checks.notBlank("logName", logName),
        () -> served == null ? -1 : served.primaryGen());
    this.dir = FSDirectory.open(Checks.notNull("path", path).resolve("index"));
    Lock lock = null;
    try {
      lock = dir.obtainLock(IndexWriter.WRITE_LOCK_NAME);
    } finally {
      if (lock == null) {
        dir.close();
      }
    }
    this.writeLock = lock;
    this.installer = new PointInstaller(dir, manifests, logName + "-download", config.maxParallelDownloads());
    this.served = openLocal();
    this.poller = Executors.newSingleThreadScheduledExecutor(new NamedThreadFactory(logName + "-follow"));
    poller.scheduleWithFixedDelay(this::poll, 0, config.pollInterval().toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Starts following: the first look at the store is taken at once, on the follower's own thread.
   *
   * @param manifests the followed index's backups ({@link StoreLayout#of} with its cluster and index)
   * @param path a directory of this host for the follower alone; its index goes in {@code path/index}
   * @param config how often it looks and how many downloads run at once
   * @param logName what its log lines and threads start with, for example {@code "F3/docs"}
   * @throws org.apache.lucene.store.LockObtainFailedException another follower or writer holds the directory
   */
  public static StoreFollower start(ManifestStore manifests, Path path, StoreFollowerConfig config, String logName)
      throws IOException {
    return new StoreFollower(manifests, path, config, logName);
  }

  /**
   * The point an earlier run installed here, if any, served at once: it was verified when installed,
   * and an install deletes every commit before it gives a name other bytes, so the newest commit on
   * disk never names a file that changed below it. Its generation is not recorded (-1), so the store's
   * manifest of the same version installs over it, reading every local file in full before reuse.
   */
  private ManifestId openLocal() {
    try {
      if (SegmentInfos.getLastCommitGeneration(dir) < 0) {
        return null;
      }
      FollowerSearchers local = new FollowerSearchers(dir, live);
      long version = local.version();
      searchers = local;
      log.info("serving version {} that an earlier run installed in {}, until the store has a newer point", version,
          dir.getDirectory());
      return new ManifestId(version, -1, "local", null);
    } catch (IOException | RuntimeException e) {
      log.warn("cannot open the index an earlier run left in {}, following from scratch: {}", dir.getDirectory(),
          e.toString());
      return null;
    }
  }

  /** One look at the store, and an install when it holds a newer point; never throws. */
  private void poll() {
    if (closed) {
      return;
    }
    try {
      List<ManifestId> ids = manifests.list();
      ManifestId top = ids.isEmpty() ? null : ids.get(ids.size() - 1);
      newest = top;
      ManifestId current = served;
      if (top != null && (current == null || top.compareTo(current) > 0)) {
        install(top);
      }
      if (searchers != null) {
        Set<String> keep = new HashSet<>();
        live.values().forEach(keep::addAll);
        installer.sweep(keep);
      }
    } catch (InterruptedIOException e) {
      Thread.currentThread().interrupt(); // closing: the executor stops this thread
    } catch (IOException | RuntimeException e) {
      if (!closed) {
        failed(e);
      }
    }
  }

  /**
   * Takes one look now on the follower's thread (after any under way) and returns when it is done: for
   * tests, which drive a follower with a long poll interval so.
   */
  void pollNow() throws Exception {
    poller.submit(this::poll).get(60, TimeUnit.SECONDS);
  }

  private void install(ManifestId id) throws IOException {
    long start = System.nanoTime();
    Manifest m = manifests.read(id);
    PointInstaller.Result r = installer.install(id, m);
    if (searchers == null) {
      searchers = new FollowerSearchers(dir, live);
    } else {
      searchers.refresh(r.replaced());
    }
    long opened = searchers.version();
    if (opened != m.version()) {
      // The commit just written is the directory's newest, so this is a bug, never the store's doing.
      throw new IllegalStateException("opened version " + opened + " after installing " + id.key());
    }
    served = id;
    points.incrementAndGet();
    filesDownloaded.addAndGet(r.filesDownloaded());
    bytesDownloaded.addAndGet(r.bytesDownloaded());
    filesReused.addAndGet(r.filesReused());
    log.info("serving version {} of primary generation {} ({}): {} files downloaded ({} bytes), {} reused{}, in {} ms",
        m.version(), m.primaryGen(), r.segmentsFile(), r.filesDownloaded(), r.bytesDownloaded(), r.filesReused(),
        r.replaced() ? ", names reused with other bytes replaced" : "",
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
  }

  private void failed(Exception e) {
    failures.incrementAndGet();
    String error = e.toString();
    ManifestId current = served;
    String serving = current == null ? "nothing yet" : "version " + current.version();
    // The same damaged object fails every look, each time through another temporary file: warn once.
    String cause = e instanceof CorruptBackupException c ? c.objectKey() : error;
    if (cause.equals(lastCause)) {
      log.debug("still failing ({}), serving {}", error, serving);
    } else {
      log.warn("following {} failed, serving {}; trying again at the next look: {}", manifests.layout().root(),
          serving, error);
    }
    lastCause = cause;
    lastError = error;
  }

  /**
   * A searcher over the point served, to {@link #release} after the search; it stays at its version
   * while held.
   *
   * @throws IndexUnavailableException no point installed yet (the store had none, or none verified)
   */
  public IndexSearcher acquire() throws IOException {
    FollowerSearchers s = searchers;
    if (s == null) {
      throw new IndexUnavailableException("follower " + log.name() + " has installed no point of "
          + manifests.layout().root() + " yet");
    }
    return s.acquire();
  }

  /** Releases a searcher from {@link #acquire()}; its files may go once no search holds them. */
  public void release(IndexSearcher searcher) throws IOException {
    searchers.release(searcher); // set before any searcher was handed out, never unset
  }

  /** The version of the searcher {@link #acquire()} returns now, -1 before the first point. */
  public long searcherVersion() throws IOException {
    FollowerSearchers s = searchers;
    return s == null ? -1 : s.version();
  }

  /** What it serves and how far behind the store it is. */
  public FollowerStatus status() {
    ManifestId current = served;
    ManifestId top = newest;
    long version = current == null ? -1 : current.version();
    boolean behind = top != null && (current == null || top.compareTo(current) > 0);
    long lagVersions = behind ? Math.max(0, top.version() - Math.max(version, 0)) : 0;
    Duration lag = Duration.ZERO;
    if (behind && top.stored() != null) {
      Duration since = Duration.between(top.stored(), Instant.now());
      lag = since.isNegative() ? Duration.ZERO : since;
    }
    return new FollowerStatus(version, current == null ? -1 : current.primaryGen(), top == null ? -1 : top.version(),
        lagVersions, lag, points.get(), filesDownloaded.get(), bytesDownloaded.get(), filesReused.get(),
        failures.get(), lastError);
  }

  /**
   * Stops following: the look or install under way is interrupted (it installs nothing), then the
   * searcher, the directory and its lock are closed. Searchers still held fail from then on. Closing
   * again does nothing.
   */
  @Override
  public synchronized void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    poller.shutdownNow();
    try {
      if (!poller.awaitTermination(30, TimeUnit.SECONDS)) {
        log.warn("the follower's thread did not stop within 30 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      installer.close();
      IOUtils.close(searchers, writeLock, dir);
    }
  }
}

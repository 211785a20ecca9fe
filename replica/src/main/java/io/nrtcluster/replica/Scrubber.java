package io.nrtcluster.replica;

import io.nrtcluster.common.ExecutorSource;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.SerialExecutor;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.store.ChecksumIndexInput;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.NIOFSDirectory;
import org.apache.lucene.util.IOUtils;

/**
 * The background scrub of one replica, or of a cluster node's primary ({@link PrimaryScrub}):
 * rereads every file of the point-in-time it searches and recomputes its whole checksum, at no more
 * than {@link ScrubConfig#bytesPerSecond()} on average, one pass per {@link ScrubConfig#interval()}.
 *
 * <p>Guarantees: a file whose checksum fails is reported to its {@link Target} once per pass (a
 * replica quarantines it and copies it again; a primary steps down); a file that disappears while it is read (merged
 * away) is skipped; any other failure of a step (an I/O error, a bug) ends that pass only: it is
 * counted ({@link ReplicaStats#scrubFailures()}), logged at WARN the first time its kind occurs,
 * and the next pass starts on schedule; the scrub never writes to the index and stops within one
 * step of {@link #close}. It reads in steps on a serial executor ({@link ExecutorSource.Pool#WORK}),
 * each step on whichever pool thread is free, so a file begun on one thread is read on in others: a
 * step reads until it is ahead of the pace or has read for {@value #STEP_MILLIS} ms, then gives the thread back
 * and is scheduled again when the pace allows, so the scrub holds no thread while it waits, and
 * between passes it holds no buffer either.
 */
final class Scrubber {
  /** What the scrub reads and whom it tells. */
  interface Target {
    /** The files of the point-in-time searched now; empty while there is none. */
    Collection<String> searchedFiles();

    /** {@code fileName} failed its checksum. */
    void corrupt(String fileName, String reason);
  }

  /**
   * Fault-injection point "scrubRead": called before each chunk the scrub reads; what it throws
   * stands for a failed read. {@link #NONE} (no fault) unless a test passes one to the constructor.
   */
  @FunctionalInterface
  interface ReadFault {
    ReadFault NONE = (fileName, offset) -> {};

    void beforeRead(String fileName, long offset) throws IOException;
  }

  private static final int CHUNK = 64 * 1024;
  /** The longest a step reads before it lets other work have the thread. */
  static final long STEP_MILLIS = 50;
  /** How far ahead of the pace a step may read rather than wait (fewer, longer pauses). */
  private static final long SLACK_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

  private final ScrubConfig config;
  private final Path indexPath;
  private final NodeLog log;
  private final ReplicaStats stats;
  private final Target target;
  private final SerialExecutor executor;
  private final ReadFault readFault;
  private volatile boolean closed;
  /** Classes of the failures logged at WARN so far ({@link #failed}); only the executor's tasks touch it. */
  private final Set<String> failureKindsLogged = new HashSet<>();
  // The pass under way; only the executor's tasks touch it (and close, once they are done).
  private Directory dir;
  private Iterator<String> files;
  private ChecksumIndexInput input;
  private String current;
  private long left;
  private byte[] buffer;
  private int filesRead;
  private long passStartNanos;
  private long passBytes;

  Scrubber(ScrubConfig config, Path indexPath, NodeLog log, ReplicaStats stats, Target target) {
    this(config, indexPath, log, stats, target, SerialExecutor.ownThread("nrt-scrub-" + log.name()));
  }

  /** As above, reading on {@code executor}, which the scrub shuts down when it closes. */
  Scrubber(ScrubConfig config, Path indexPath, NodeLog log, ReplicaStats stats, Target target, SerialExecutor executor) {
    this(config, indexPath, log, stats, target, executor, ReadFault.NONE);
  }

  /** As above, with the fault-injection point {@code readFault}. */
  Scrubber(ScrubConfig config, Path indexPath, NodeLog log, ReplicaStats stats, Target target, SerialExecutor executor,
      ReadFault readFault) {
    this.readFault = readFault;
    this.config = config;
    this.indexPath = indexPath;
    this.log = log;
    this.stats = stats;
    this.target = target;
    this.executor = executor;
  }

  /** Starts the first pass now, unless the scrub is off. */
  void start() {
    if (config.enabled()) {
      submit(this::step, 0);
    }
  }

  private void submit(Runnable task, long delayNanos) {
    try {
      if (delayNanos <= 0) {
        executor.execute(task);
      } else {
        executor.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
      }
    } catch (RejectedExecutionException e) {
      // Closed meanwhile, while a step ran (close could not wait for it): that step lets the pass go.
      endPass();
    }
  }

  private void step() {
    if (closed) {
      endPass();
      return;
    }
    try {
      if (dir == null && !beginPass()) {
        return;
      }
      long stepEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STEP_MILLIS);
      while (!closed) {
        if (input == null && !openNext()) {
          return;
        }
        if (left > 0) {
          long now = System.nanoTime();
          long ahead = passStartNanos + (long) (passBytes * 1e9 / config.bytesPerSecond()) - now;
          if (ahead > SLACK_NANOS) {
            submit(this::step, ahead);
            return;
          }
          if (now - stepEnd > 0) {
            submit(this::step, 0);
            return;
          }
          int n = (int) Math.min(CHUNK, left);
          readFault.beforeRead(current, input.getFilePointer());
          input.readBytes(buffer, 0, n);
          left -= n;
          passBytes += n;
          continue;
        }
        CodecUtil.checkFooter(input);
        stats.verified(input.length());
        closeInput();
        filesRead++;
      }
      endPass();
    } catch (NoSuchFileException | FileNotFoundException e) {
      // Merged away while it was read.
      closeInput();
      submit(this::step, 0);
    } catch (CorruptIndexException | EOFException e) {
      corrupt(e.getMessage());
    } catch (IOException | RuntimeException e) {
      failed(e);
    }
  }

  /**
   * A step failed for a reason that says nothing about the file's bytes (the disk or the code): the
   * pass ends, the next starts on schedule. Logged at WARN, with its stack, once per kind of failure
   * per scrub: one that recurs every pass (every interval, on every index of the host) would
   * otherwise bury the log; the counter still counts each.
   */
  private void failed(Exception e) {
    stats.scrubFailed();
    if (failureKindsLogged.add(e.getClass().getName())) {
      log.warn("scrub: a pass failed (file: {}): {}; the next pass starts on schedule, failures of this kind are counted"
          + " (scrub failures) and log at DEBUG from now on", reading(), e.toString(), e);
    } else {
      log.debug("scrub: a pass failed (file: {}): {}", reading(), e.toString());
    }
    endPassAndWait();
  }

  private String reading() {
    return current == null ? "none open" : current;
  }

  /** Starts a pass over the files searched now; false (the next one is scheduled) when there are none. */
  private boolean beginPass() throws IOException {
    passStartNanos = System.nanoTime();
    Collection<String> names = target.searchedFiles();
    if (names.isEmpty()) {
      endPassAndWait();
      return false;
    }
    // Not FSDirectory.open: its MMapDirectory maps a READONCE input (openChecksumInput) in a confined
    // Arena, readable only by the thread that opened it, and the next step of a file may run on
    // another pool thread (WrongThreadException). NIOFSDirectory reads with positional FileChannel
    // reads, which any thread may make, and into a small buffer rather than mapping each file whole
    // for one sequential pass. Reopening the file in every step instead would map it once per step
    // and need the running checksum carried across steps by hand.
    dir = new NIOFSDirectory(indexPath);
    files = List.copyOf(names).iterator();
    buffer = new byte[CHUNK];
    passBytes = 0;
    filesRead = 0;
    return true;
  }

  /** Opens the next file of the pass; false when the pass is over (the next one is scheduled) or a file failed. */
  private boolean openNext() throws IOException {
    while (files.hasNext()) {
      current = files.next();
      try {
        input = dir.openChecksumInput(current);
      } catch (NoSuchFileException | FileNotFoundException e) {
        continue;
      }
      left = input.length() - CodecUtil.footerLength();
      if (left < 0) {
        corrupt("shorter than a footer: " + input.length() + " bytes");
        return false;
      }
      return true;
    }
    log.debug("scrub pass read {} files ({} bytes) in {} ms", filesRead, passBytes, (System.nanoTime() - passStartNanos) / 1_000_000);
    endPassAndWait();
    return false;
  }

  private void corrupt(String problem) {
    String name = current;
    endPass();
    // Role-neutral: what follows logs itself (a replica's check quarantines the file, a primary steps down).
    log.warn("scrub: file {} failed its checksum ({})", name, problem);
    // The searched point changes now: the next pass looks at the new one. Scheduled only once the
    // target is done: should it throw, the failure schedules the next pass instead (never both).
    target.corrupt(name, problem);
    endPassAndWait();
  }

  /** Ends the pass and schedules the next one an interval after this one started. */
  private void endPassAndWait() {
    endPass();
    if (!closed) {
      submit(this::step, passStartNanos + config.interval().toNanos() - System.nanoTime());
    }
  }

  private void closeInput() {
    IOUtils.closeWhileHandlingException(input);
    input = null;
  }

  private void endPass() {
    closeInput();
    IOUtils.closeWhileHandlingException(dir);
    dir = null;
    files = null;
    current = null;
    buffer = null;
  }

  /** Stops the scrub and waits up to {@code millis} for a step under way to end. */
  void close(long millis) {
    closed = true;
    // No interrupt: a step may be reopening the replica's index (after a corrupt file), which an
    // interrupt would break.
    executor.shutdown();
    try {
      if (executor.awaitTermination(Math.max(1, millis), TimeUnit.MILLISECONDS)) {
        // A pass whose next step was scheduled (and is cancelled now) still holds its files open.
        endPass();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

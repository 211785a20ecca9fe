package io.nrtcluster.replica;

import io.nrtcluster.common.NodeLog;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.store.ChecksumIndexInput;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;

/**
 * The background scrub of one replica: one thread that rereads every file of the point-in-time the
 * replica searches and recomputes its whole checksum, at no more than {@link
 * ScrubConfig#bytesPerSecond()} on average, one pass per {@link ScrubConfig#interval()}.
 *
 * <p>Guarantees: a file whose checksum fails is reported to its {@link Target} once per pass (the
 * replica quarantines it and copies it again); a file that disappears while it is read (merged
 * away) is skipped; the thread never writes to the index and stops within one read of {@link
 * #close}.
 */
final class Scrubber {
  /** What the scrub reads and whom it tells. */
  interface Target {
    /** The files of the point-in-time searched now; empty while there is none. */
    Collection<String> searchedFiles();

    /** {@code fileName} failed its checksum. */
    void corrupt(String fileName, String reason);
  }

  private static final int CHUNK = 64 * 1024;

  private final ScrubConfig config;
  private final Path indexPath;
  private final NodeLog log;
  private final ReplicaStats stats;
  private final Target target;
  private final Thread thread;
  private final Object pause = new Object();
  private volatile boolean closed;
  private final byte[] buffer = new byte[CHUNK];
  private long passStartNanos;
  private long passBytes;

  Scrubber(ScrubConfig config, Path indexPath, NodeLog log, ReplicaStats stats, Target target) {
    this.config = config;
    this.indexPath = indexPath;
    this.log = log;
    this.stats = stats;
    this.target = target;
    this.thread = new Thread(this::run, "nrt-scrub-" + log.name());
    this.thread.setDaemon(true);
  }

  /** Starts the thread, unless the scrub is off. */
  void start() {
    if (config.enabled()) {
      thread.start();
    }
  }

  private void run() {
    try {
      while (!closed) {
        long start = System.nanoTime();
        pass();
        long next = start + config.interval().toNanos();
        pauseUntil(next);
      }
    } catch (InterruptedException e) {
      // closing
    } catch (RuntimeException e) {
      log.warn("the background scrub stopped: {}", e.toString());
    }
  }

  /** One pass over the files searched now. */
  void pass() throws InterruptedException {
    Collection<String> files = target.searchedFiles();
    if (files.isEmpty()) {
      return;
    }
    passStartNanos = System.nanoTime();
    passBytes = 0;
    int read = 0;
    try (Directory dir = FSDirectory.open(indexPath)) {
      for (String name : files) {
        if (closed) {
          return;
        }
        String problem = check(dir, name);
        if (problem != null) {
          log.warn("scrub: file {} failed its checksum ({}); quarantining it and copying it again", name, problem);
          target.corrupt(name, problem);
          // The searched point changes now: the next pass looks at the new one.
          return;
        }
        read++;
      }
    } catch (IOException e) {
      log.warn("scrub pass failed: {}", e.toString());
      return;
    }
    log.debug("scrub pass read {} files ({} bytes) in {} ms", read, passBytes, (System.nanoTime() - passStartNanos) / 1_000_000);
  }

  /** Null when {@code name} is intact (or gone), else why it is not. */
  private String check(Directory dir, String name) throws IOException, InterruptedException {
    try (ChecksumIndexInput in = dir.openChecksumInput(name)) {
      long left = in.length() - CodecUtil.footerLength();
      if (left < 0) {
        return "shorter than a footer: " + in.length() + " bytes";
      }
      while (left > 0) {
        int n = (int) Math.min(CHUNK, left);
        in.readBytes(buffer, 0, n);
        left -= n;
        pace(n);
      }
      CodecUtil.checkFooter(in);
      stats.verified(in.length());
      return null;
    } catch (NoSuchFileException | FileNotFoundException e) {
      return null;
    } catch (CorruptIndexException | EOFException e) {
      return e.getMessage();
    }
  }

  /** Waits as long as reading {@code bytes} more takes at the configured pace. */
  private void pace(long bytes) throws InterruptedException {
    passBytes += bytes;
    long due = passStartNanos + (long) (passBytes * 1e9 / config.bytesPerSecond());
    pauseUntil(due);
  }

  private void pauseUntil(long nanos) throws InterruptedException {
    synchronized (pause) {
      long left;
      while (!closed && (left = nanos - System.nanoTime()) > 0) {
        TimeUnit.NANOSECONDS.timedWait(pause, left);
      }
    }
  }

  /** Stops the thread and waits up to {@code millis} for it. */
  void close(long millis) {
    closed = true;
    synchronized (pause) {
      pause.notifyAll();
    }
    // No interrupt: the thread may be reopening the replica's index, which an interrupt would break.
    if (thread.isAlive() && thread != Thread.currentThread()) {
      try {
        thread.join(Math.max(1, millis));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}

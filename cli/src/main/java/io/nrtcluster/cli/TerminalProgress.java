package io.nrtcluster.cli;

import io.nrtcluster.common.NamedThreadFactory;
import io.nrtcluster.objectstore.BlobStore;
import io.nrtcluster.objectstore.Manifest;
import io.nrtcluster.objectstore.ManifestId;
import io.nrtcluster.objectstore.ManifestStore;
import java.io.Console;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.lang.reflect.Method;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * One line of progress for a long operation (files, bytes, rate, time left), redrawn in place a few
 * times a second on a terminal and cleared when the operation ends, so the command's own result is
 * all that remains. Prints nothing when the command does not run on a terminal (a pipe, a file, a
 * service's log): scripts and logs see only the result.
 */
final class TerminalProgress implements AutoCloseable {
  static final long PERIOD_MILLIS = 250;
  /** Shows nothing: for a command that does not run on a terminal. */
  static final TerminalProgress NONE = new TerminalProgress("", new PrintWriter(Writer.nullWriter()), false, 0, 0,
      () -> 0, () -> 0, 0);

  private final String what;
  private final PrintWriter out;
  private final long totalBytes;
  private final int totalFiles;
  private final LongSupplier bytes;
  private final LongSupplier files;
  private final long bytesAtStart;
  private final long filesAtStart;
  private final long startNanos;
  private final ScheduledExecutorService timer;
  private int drawn;

  TerminalProgress(String what, PrintWriter out, boolean shown, long totalBytes, int totalFiles,
      LongSupplier bytes, LongSupplier files, long startNanos) {
    this.what = what;
    this.out = out;
    this.totalBytes = totalBytes;
    this.totalFiles = totalFiles;
    this.bytes = bytes;
    this.files = files;
    this.bytesAtStart = bytes.getAsLong();
    this.filesAtStart = files.getAsLong();
    this.startNanos = startNanos;
    this.timer = shown ? Executors.newSingleThreadScheduledExecutor(new NamedThreadFactory("nrt-progress")) : null;
  }

  /**
   * Starts showing the progress of {@code what} on {@code out} when {@code terminal}: {@code bytes}
   * and {@code files} are counters that the operation advances (their values now count as zero).
   */
  static TerminalProgress start(String what, PrintWriter out, boolean terminal, long totalBytes, int totalFiles,
      LongSupplier bytes, LongSupplier files) {
    TerminalProgress p = new TerminalProgress(what, out, terminal, totalBytes, totalFiles, bytes, files, System.nanoTime());
    if (p.timer != null) {
      p.timer.scheduleAtFixedRate(() -> p.draw(System.nanoTime()), PERIOD_MILLIS, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
    }
    return p;
  }

  /**
   * The progress of reading backup {@code id} ({@code what}: restore, verify), shown on {@code out}:
   * totals from its manifest, counters from {@code blobs}' metrics. For a command on a terminal
   * ({@link #onTerminal()}); a manifest that cannot be read leaves the totals out, and the operation
   * itself then reports why.
   */
  static TerminalProgress ofBackup(String what, PrintWriter out, BlobStore blobs, ManifestStore manifests,
      Optional<ManifestId> id) {
    long totalBytes = 0;
    int totalFiles = 0;
    if (id.isPresent()) {
      try {
        Manifest m = manifests.read(id.get());
        totalBytes = m.totalBytes();
        totalFiles = m.files().size();
      } catch (IOException | RuntimeException e) {
        // Shown without totals; the restore or verification that follows reads it again and says why it failed.
      }
    }
    return start(what, out, true, totalBytes, totalFiles, () -> blobs.metrics().snapshot().bytesDownloaded(),
        () -> blobs.metrics().snapshot().filesDownloaded());
  }

  /**
   * Whether this process writes to an interactive terminal: a console exists and (from JDK 22 on,
   * where a console exists even for pipes) says it is a terminal.
   */
  static boolean onTerminal() {
    Console console = System.console();
    if (console == null) {
      return false;
    }
    try {
      Method isTerminal = Console.class.getMethod("isTerminal");
      return (Boolean) isTerminal.invoke(console);
    } catch (NoSuchMethodException e) {
      return true; // JDK 21: a console exists only on a terminal
    } catch (ReflectiveOperationException e) {
      return false;
    }
  }

  /** The line at {@code nowNanos}: {@code restore: 12/40 files, 120.0 MiB of 512.0 MiB, 45.2 MiB/s, 9 s left}. */
  String line(long nowNanos) {
    long doneBytes = Math.max(0, bytes.getAsLong() - bytesAtStart);
    long doneFiles = Math.max(0, files.getAsLong() - filesAtStart);
    double seconds = Math.max(1e-9, (nowNanos - startNanos) / 1e9);
    double rate = doneBytes / seconds;
    StringBuilder sb = new StringBuilder(what).append(": ");
    if (totalFiles > 0) {
      sb.append(Math.min(doneFiles, totalFiles)).append('/').append(totalFiles).append(" files, ");
    } else if (doneFiles > 0) {
      sb.append(doneFiles).append(" files, ");
    }
    sb.append(Units.bytes(doneBytes));
    if (totalBytes > 0) {
      sb.append(" of ").append(Units.bytes(totalBytes));
    }
    sb.append(", ").append(Units.bytes((long) rate)).append("/s");
    if (totalBytes > 0 && rate > 0 && doneBytes < totalBytes) {
      long left = (long) Math.ceil((totalBytes - doneBytes) / rate);
      sb.append(", ").append(left < 120 ? left + " s" : String.format(Locale.ROOT, "%d min", (left + 59) / 60))
          .append(" left");
    }
    return sb.toString();
  }

  synchronized void draw(long nowNanos) {
    if (bytes.getAsLong() == bytesAtStart && files.getAsLong() == filesAtStart) {
      return; // nothing moved yet (a node with its index on disk bootstraps nothing): no line at all
    }
    String line = line(nowNanos);
    // Pad over what the previous line left, then return to the line's start for the next draw.
    out.print("\r" + line + " ".repeat(Math.max(0, drawn - line.length())));
    out.flush();
    drawn = line.length();
  }

  /** Stops drawing and clears the line, so the command's result starts on a clean line. */
  @Override
  public void close() {
    if (timer == null) {
      return;
    }
    timer.shutdownNow();
    try {
      timer.awaitTermination(1, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    synchronized (this) {
      if (drawn > 0) {
        out.print("\r" + " ".repeat(drawn) + "\r");
        out.flush();
      }
    }
  }
}

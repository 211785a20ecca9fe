package io.nrtcluster.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The demo's output: one row per refresh (printed once every node up at the refresh searches its
 * version, or after a while with "-" for those not there), and event lines in between.
 */
final class DemoTable {
  /** One refresh, as printed. */
  static final class Row {
    final long version;
    final boolean changed;
    final long startNanos;
    final long refreshNanos;
    final long numDocs;
    /** The node that refreshed. */
    final int primary;
    /** Nodes down (or restarting) when the refresh started: no lag is measured for them. */
    final boolean[] down;
    long printDeadline;
    String note = "";

    Row(long version, boolean changed, long startNanos, long refreshNanos, long numDocs, int primary, boolean[] down) {
      this.version = version;
      this.changed = changed;
      this.startNanos = startNanos;
      this.refreshNanos = refreshNanos;
      this.numDocs = numDocs;
      this.primary = primary;
      this.down = down;
    }
  }

  private static final Row END = new Row(-1, false, 0, 0, 0, -1, new boolean[0]);

  private final Console out;
  private final DemoCluster cluster;
  private final long printWaitNanos;
  private final BlockingQueue<Row> toPrint = new LinkedBlockingQueue<>();
  private final List<Row> rows = new ArrayList<>();
  private final Thread printer;
  private Copied printedCopied = Copied.NONE;
  private volatile long t0 = System.nanoTime();

  DemoTable(Console out, DemoCluster cluster, long printWaitNanos) {
    this.out = out;
    this.cluster = cluster;
    this.printWaitNanos = printWaitNanos;
    this.printer = Thread.ofPlatform().name("nrt-demo-printer").daemon().unstarted(this::printRows);
  }

  void println(String line) {
    out.println(line);
  }

  /** Prints the column header; times count from now on. */
  void start() {
    StringBuilder h = new StringBuilder(String.format(Locale.ROOT, "%7s %9s %8s %8s %7s %6s %10s", "time", "version",
        "docs", "refresh", "primary", "files", "copied"));
    for (int i = 0; i < DemoCluster.NODES; i++) {
      h.append(String.format(Locale.ROOT, " %8s", DemoCluster.name(i) + " lag"));
    }
    println(h.toString());
    t0 = System.nanoTime();
    printedCopied = cluster.copiedTotal();
    printer.start();
  }

  /** Nanos since {@link #start()}. */
  long elapsed() {
    return System.nanoTime() - t0;
  }

  /** {@code 12.3s   -- what}: something that happened now. */
  void event(String what) {
    println(String.format(Locale.ROOT, "%7s   -- %s", Units.seconds(elapsed()), what));
  }

  /** A refresh that just happened; printed when the nodes got there. */
  Row add(long version, long startNanos, long refreshNanos, long numDocs, int primary, boolean[] down) {
    boolean changed = rows.isEmpty() || rows.get(rows.size() - 1).version != version;
    Row row = new Row(version, changed, startNanos, refreshNanos, numDocs, primary, down);
    row.printDeadline = startNanos + printWaitNanos;
    rows.add(row);
    return row;
  }

  void print(Row row) {
    toPrint.add(row);
  }

  /** Prints what is queued and stops the printer (waiting at most {@code waitMillis}). */
  void finish(long waitMillis) throws InterruptedException {
    toPrint.add(END);
    printer.join(waitMillis);
    if (printer.isAlive()) {
      printer.interrupt();
      printer.join(1000);
    }
  }

  int refreshes() {
    return rows.size();
  }

  private void printRows() {
    try {
      for (Row row = toPrint.take(); row != END; row = toPrint.take()) {
        while (!allReached(row) && System.nanoTime() < row.printDeadline) {
          Thread.sleep(1);
        }
        printRow(row);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private boolean measured(Row row, int i) {
    return i != row.primary && !row.down[i];
  }

  private boolean allReached(Row row) {
    for (int i = 0; i < DemoCluster.NODES; i++) {
      if (measured(row, i) && cluster.tracker(i).lagNanos(row.version, row.startNanos) == NodeTracker.NOT_YET) {
        return false;
      }
    }
    return true;
  }

  private void printRow(Row row) {
    Copied copied = cluster.copiedTotal();
    StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%7s %9d %8d %8s %7s %6d %10s",
        Units.seconds(row.startNanos - t0), row.version, row.numDocs, Units.millis(row.refreshNanos) + "ms",
        DemoCluster.name(row.primary), copied.since(printedCopied).files(),
        Units.bytes(copied.since(printedCopied).bytes())));
    printedCopied = copied;
    for (int i = 0; i < DemoCluster.NODES; i++) {
      String cell;
      if (i == row.primary) {
        cell = "primary";
      } else {
        long lag = row.down[i] ? -1 : cluster.tracker(i).lagNanos(row.version, row.startNanos);
        cell = lag < 0 ? "-" : Units.millis(lag) + "ms";
      }
      line.append(String.format(Locale.ROOT, " %8s", cell));
    }
    println(line.append(row.note).toString());
  }

  /** Lags of every changed refresh on every node that was a replica up then, sorted. */
  long[] lags() {
    List<Long> all = new ArrayList<>();
    for (Row row : rows) {
      for (int i = 0; row.changed && i < DemoCluster.NODES; i++) {
        long lag = measured(row, i) ? cluster.tracker(i).lagNanos(row.version, row.startNanos) : -1;
        if (lag >= 0) {
          all.add(lag);
        }
      }
    }
    return all.stream().mapToLong(Long::longValue).sorted().toArray();
  }

  static long percentile(long[] sorted, int p) {
    int rank = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.max(0, rank - 1)];
  }
}

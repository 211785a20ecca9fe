package io.nrtcluster.replica;

import io.nrtcluster.common.Backoff;
import io.nrtcluster.common.Durations;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.transport.Connection;
import io.nrtcluster.transport.Message;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.lucene.replicator.nrt.FileMetaData;

/**
 * Counts, per primary generation and file (as the primary advertised it: name, length, checksum),
 * how often a fetched file failed its checksum, over every copy. After {@code
 * corruptFileReportAfter} failures the file is reported to the primary, which reads its own copy, and
 * the replica stops fetching it from that primary for a while: until the verdict, then for a growing,
 * bounded backoff ({@code badFileBackoffMin} to {@code badFileBackoffMax}) when the primary found it
 * intact (the fault is on the way or here), or for {@code badFileBackoffMax} when the primary found
 * it corrupt (it is expected to step down; a new generation ends the wait at once).
 *
 * <p>Never blocks: the report is an asynchronous request, its answer updates the state under this
 * object's own monitor (never a copy job's or the node's) and wakes the catch-up loop.
 */
final class BadFileTracker {
  private record Key(long primaryGen, String name, long length, long checksum) {}

  private static final class Entry {
    final Backoff backoff;
    int failures;
    boolean reporting;
    long holdUntilNanos;

    Entry(Backoff backoff) {
      this.backoff = backoff;
    }
  }

  private final ReplicaContext ctx;
  private final NodeLog log;
  private final Runnable onHoldChanged;
  private final Map<Key, Entry> entries = new HashMap<>();

  BadFileTracker(ReplicaContext ctx, Runnable onHoldChanged) {
    this.ctx = ctx;
    this.log = ctx.log();
    this.onHoldChanged = onHoldChanged;
  }

  /**
   * File {@code name} fetched over {@code c} failed its checksum once more. Returns true when the copy
   * must stop fetching it now: it was just reported, or it waits out a report's backoff.
   */
  boolean checksumFailed(Connection c, String name, FileMetaData meta) {
    long gen = c.peerPrimaryGen();
    Key key = new Key(gen, name, meta.length(), meta.checksum());
    int failures;
    synchronized (this) {
      entries.keySet().removeIf(k -> k.primaryGen() < gen);
      Entry e = entries.computeIfAbsent(key, k -> new Entry(
          new Backoff(ctx.config().badFileBackoffMin(), ctx.config().badFileBackoffMax())));
      if (e.reporting || e.holdUntilNanos - System.nanoTime() > 0) {
        return true;
      }
      failures = ++e.failures;
      if (failures < ctx.config().corruptFileReportAfter()) {
        return false;
      }
      e.reporting = true;
      e.failures = 0;
      // Bounded even if the answer never comes: the request times out and the backoff applies.
      e.holdUntilNanos = System.nanoTime() + ctx.config().transport().requestTimeout().toNanos();
    }
    ctx.stats().corruptFileReported();
    log.warn("file {} from primary P{} (generation {}) failed its checksum {} times; reporting it and not fetching it "
        + "until the primary answers", name, c.peerNodeId(), gen, failures);
    c.request(id -> new Message.ReportCorruptFile(id, gen, name, meta.length(), meta.checksum(), failures))
        .whenComplete((reply, failure) -> answered(c, key, reply, failure));
    return true;
  }

  /** File {@code name} arrived intact over {@code c}: its failures so far were passing faults. */
  void fileCopied(Connection c, String name, FileMetaData meta) {
    synchronized (this) {
      if (!entries.isEmpty()) {
        Key key = new Key(c.peerPrimaryGen(), name, meta.length(), meta.checksum());
        Entry e = entries.get(key);
        if (e != null && !e.reporting && e.holdUntilNanos - System.nanoTime() <= 0) {
          entries.remove(key);
        }
      }
    }
  }

  private void answered(Connection c, Key key, Message reply, Throwable failure) {
    Duration hold;
    synchronized (this) {
      Entry e = entries.get(key);
      if (e == null) {
        return;
      }
      e.reporting = false;
      boolean corrupt = failure == null && reply instanceof Message.FileVerdict v && v.verdict() == Message.Verdict.CORRUPT;
      hold = corrupt ? ctx.config().badFileBackoffMax() : e.backoff.next();
      e.holdUntilNanos = System.nanoTime() + hold.toNanos();
    }
    if (failure != null) {
      log.warn("report of file {} to primary P{} got no verdict ({}); not fetching it from generation {} for {}",
          key.name(), c.peerNodeId(), failure.toString(), key.primaryGen(), Durations.format(hold));
    } else if (reply instanceof Message.FileVerdict v && v.verdict() == Message.Verdict.CORRUPT) {
      ctx.stats().verdictReceived(true);
      log.error("primary P{} found its own file {} corrupt on its disk ({}); not fetching it from generation {} for {} "
          + "or until a new primary", c.peerNodeId(), key.name(), v.detail(), key.primaryGen(), Durations.format(hold));
    } else if (reply instanceof Message.FileVerdict v) {
      ctx.stats().verdictReceived(false);
      log.warn("primary P{} verified file {} intact ({}): the bytes were damaged on the way here or on this node "
          + "(network path, memory, local storage); backing off {} before fetching it again", c.peerNodeId(), key.name(),
          v.detail(), Durations.format(hold));
    } else {
      log.warn("primary P{} answered the report of file {} with {}; backing off {}", c.peerNodeId(), key.name(),
          reply.getClass().getSimpleName(), Durations.format(hold));
    }
    onHoldChanged.run();
  }

  /**
   * How long copying from primary generation {@code currentGen} must still wait for a reported file:
   * zero when none is held off. A newer generation is never held off by an older one's reports.
   */
  synchronized Duration holdOff(long currentGen) {
    long now = System.nanoTime();
    long longest = 0;
    for (Map.Entry<Key, Entry> e : entries.entrySet()) {
      if (e.getKey().primaryGen() == currentGen) {
        longest = Math.max(longest, e.getValue().holdUntilNanos - now);
      }
    }
    return Duration.ofNanos(longest);
  }
}

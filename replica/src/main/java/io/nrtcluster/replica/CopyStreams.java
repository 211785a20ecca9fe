package io.nrtcluster.replica;

import io.nrtcluster.common.NodeLog;
import io.nrtcluster.transport.Connection;
import io.nrtcluster.transport.FaultStats;
import io.nrtcluster.transport.Message;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.CRC32;
import org.apache.lucene.replicator.nrt.FileMetaData;

/**
 * The transfer side of one copy job: the streams its files arrive on (the one being written and
 * those requested ahead of it), the connection they are fetched on, and the source of each file:
 * the parent replica when the primary named one and it is connected (whole files only), else the
 * primary's copy-state or merge pre-copy that the job copies.
 *
 * <p>Guarantees: at most {@code prefetch} files are requested ahead, and beyond that only files
 * that fit whole in what {@code prefetch} full windows could hold, never more than {@value
 * #MAX_QUEUED}; a file the parent failed to serve comes from the primary for the rest of the copy;
 * the primary's copy-state is released at most once, and never blocking.
 *
 * <p>Not thread-safe: the monitor of its job guards it, except {@link #connection()}.
 */
final class CopyStreams {
  /** A file requested ahead, with the stream it arrives on. */
  record Pending(String name, FileMetaData meta, VerifyingFileInput input) {}

  /** Most files requested ahead at once, however small: each is a stream the primary serves. */
  private static final int MAX_QUEUED = 64;

  /** An iterator that shows its next element before taking it. */
  private static final class PeekingIterator<T> {
    private final Iterator<T> it;
    private T next;

    PeekingIterator(Iterator<T> it) {
      this.it = it;
    }

    boolean hasNext() {
      return next != null || it.hasNext();
    }

    T peek() {
      if (next == null) {
        next = it.next();
      }
      return next;
    }

    T next() {
      T t = peek();
      next = null;
      return t;
    }
  }

  private final PrimaryLink link;
  private final NodeLog log;
  private final ReplicaStats stats;
  private final Message.SourceKind sourceKind;
  private final long sourceId;
  private final int prefetch;
  private final Duration peerStallTimeout;
  /** The connection to fetch on: the one the copy-state came on, or the one the copy resumed on. */
  private volatile Connection connection;
  private final ArrayDeque<Pending> queued = new ArrayDeque<>();
  private PeekingIterator<Map.Entry<String, FileMetaData>> remaining;
  /** The stream of the file being written, or null. */
  private VerifyingFileInput writing;
  private boolean released;
  /** Files whose stream open now (being written or queued) comes from the parent replica, not the primary. */
  private final Set<String> fromPeer = new HashSet<>();
  /** Files the parent failed to serve in this copy: fetched from the primary only. */
  private final Set<String> primaryOnly = new HashSet<>();

  /** Streams of the files of {@code sourceKind} {@code sourceId}, fetched on {@code connection}. */
  CopyStreams(PrimaryLink link, ReplicaContext ctx, Connection connection, Message.SourceKind sourceKind, long sourceId) {
    this.link = link;
    this.log = ctx.log();
    this.stats = ctx.stats();
    this.connection = connection;
    this.sourceKind = sourceKind;
    this.sourceId = sourceId;
    this.prefetch = ctx.config().prefetchFiles();
    this.peerStallTimeout = ctx.config().peerStallTimeout();
  }

  /** The connection files are fetched on now; readable without the job's monitor. */
  Connection connection() {
    return connection;
  }

  /** True for the files of a copy-state (an NRT point's copy), false for a merge pre-copy's. */
  boolean forCopyState() {
    return sourceKind == Message.SourceKind.COPY_STATE;
  }

  /** Id of the copy-state or merge pre-copy the primary holds for this copy. */
  long sourceId() {
    return sourceId;
  }

  boolean started() {
    return remaining != null;
  }

  /** Starts requesting {@code toCopy}, in order. */
  void start(List<Map.Entry<String, FileMetaData>> toCopy) {
    remaining = new PeekingIterator<>(toCopy.iterator());
    fill();
  }

  /**
   * Keeps up to {@code prefetch} files requested ahead of the one being written, and beyond that
   * every further file that fits whole in what {@code prefetch} full windows could hold: the small
   * files of an NRT point are all requested at once, so over a long link a point costs one round
   * trip, not one per {@code prefetch} files, and what may wait in memory stays bounded as before.
   */
  private void fill() {
    long budget = (long) prefetch * connection.windowBytes();
    long queuedBytes = 0;
    for (Pending p : queued) {
      queuedBytes += Math.min(p.meta().length(), connection.windowBytes());
    }
    while (remaining.hasNext()) {
      Map.Entry<String, FileMetaData> e = remaining.peek();
      long bytes = Math.min(e.getValue().length(), connection.windowBytes());
      if (queued.size() >= prefetch && (queuedBytes + bytes > budget || queued.size() >= MAX_QUEUED)) {
        break;
      }
      remaining.next();
      queuedBytes += bytes;
      queued.add(new Pending(e.getKey(), e.getValue(), open(e.getKey(), e.getValue(), 0, new CRC32())));
    }
  }

  private VerifyingFileInput open(String name, FileMetaData meta, long offset, CRC32 crc) {
    Connection peer = offset == 0 && !primaryOnly.contains(name) ? link.peers().connection() : null;
    if (peer != null) {
      fromPeer.add(name);
      return new VerifyingFileInput(peer.fetchFile(Message.SourceKind.PEER, meta.checksum(), name, 0, peerStallTimeout),
          name, meta, 0, crc, new FileFlips(link.faults()), stats);
    }
    fromPeer.remove(name);
    return new VerifyingFileInput(connection.fetchFile(sourceKind, sourceId, name, offset), name, meta, offset, crc,
        new FileFlips(link.faults()), stats);
  }

  /** The next file to write, whose stream becomes the one being written; null when none is left. */
  Pending next() {
    Pending next = queued.poll();
    fill();
    if (next != null) {
      writing = next.input();
    }
    return next;
  }

  /** The stream of the file being written, or null. */
  VerifyingFileInput writing() {
    return writing;
  }

  /** Requests {@code name} again from byte 0, ahead of every file queued. */
  void requestFirst(String name, FileMetaData meta) {
    queued.addFirst(new Pending(name, meta, open(name, meta, 0, new CRC32())));
  }

  /** The parent failed to serve {@code name}: it is requested from the primary, for the rest of the copy. */
  void requestFromPrimary(String name, FileMetaData meta) {
    fromPeer.remove(name);
    primaryOnly.add(name);
    requestFirst(name, meta);
  }

  /** True when the stream open now for {@code name} comes from the parent replica. */
  boolean fromPeer(String name) {
    return fromPeer.contains(name);
  }

  /** {@code name} was written whole: true when it came from the parent replica. */
  boolean copiedFromPeer(String name) {
    return fromPeer.remove(name);
  }

  /**
   * The file being written passed its checksum: its stream is closed, and what it read is known
   * good. Returns the wire bit flips read into it nonetheless (undetected ones).
   */
  long writtenWhole() {
    long escaped = writing.flips().resolve(FaultStats.FlipOutcome.UNDETECTED);
    writing.close();
    writing = null;
    return escaped;
  }

  /** The file being written failed its checksum: the flips read into it were detected. */
  void checksumFailed() {
    if (writing != null) {
      writing.flips().resolve(FaultStats.FlipOutcome.DETECTED);
    }
  }

  /** Gives up the stream of the file being written, whose bytes are thrown away with its flips. */
  void discardWriting() {
    if (writing != null) {
      writing.flips().resolve(FaultStats.FlipOutcome.DISCARDED);
      writing.close();
      writing = null;
    }
  }

  /**
   * Counts the files of this copy the primary is sending now: the one being written and those
   * requested ahead whose answer arrived (bytes on the way or here, unread). A few volatile reads.
   */
  int inFlight() {
    int n = writing != null && writing.answered() ? 1 : 0;
    for (Pending p : queued) {
      if (p.input().answered()) {
        n++;
      }
    }
    return n;
  }

  /** The connection dropped: every stream is closed, keeping its checksum state and its place. */
  void dropped() {
    if (writing != null) {
      writing.close();
    }
    for (Pending p : queued) {
      p.input().close();
    }
  }

  /** Fetches on {@code next} from now on, after the connection dropped. */
  void moveTo(Connection next) {
    connection = next;
  }

  /**
   * Requests {@code again} from byte 0 ahead of the queued files, in reverse order; with {@code
   * reopen}, the queued files' streams, dead with the old connection, are requested again first.
   */
  void requestAgain(List<Map.Entry<String, FileMetaData>> again, boolean reopen) {
    List<Pending> first = new ArrayList<>();
    for (Map.Entry<String, FileMetaData> e : again) {
      first.add(new Pending(e.getKey(), e.getValue(), open(e.getKey(), e.getValue(), 0, new CRC32())));
    }
    if (reopen) {
      List<Pending> old = List.copyOf(queued);
      queued.clear();
      for (Pending p : old) {
        queued.add(new Pending(p.name(), p.meta(), open(p.name(), p.meta(), 0, new CRC32())));
      }
    }
    for (Pending p : first) {
      queued.addFirst(p);
    }
  }

  /**
   * The file being written goes on after a drop with the checksum state of its bytes on disk, on a
   * new stream from its offset when {@code reopen}, else on the one it has.
   */
  VerifyingFileInput continueWriting(String name, TempFileRecheck.Prefix disk, boolean reopen) {
    VerifyingFileInput before = writing;
    writing = reopen
        ? before.continueOn(connection.fetchFile(sourceKind, sourceId, name, before.position()), disk.crc(), disk.trailer())
        : before.withChecksumState(disk.crc(), disk.trailer());
    return writing;
  }

  /**
   * Continues the file {@code from}, the streams of a superseded job, was writing, from byte {@code
   * offset} with its checksum state; its stream there is closed.
   */
  VerifyingFileInput takeOver(CopyStreams from, String name, long offset) {
    writing = from.writing.continueOn(connection.fetchFile(sourceKind, sourceId, name, offset));
    from.writing.close();
    from.writing = null;
    return writing;
  }

  /** Closes every stream; the partly copied file (deleted by the job unless carried over) takes its flips with it. */
  void close() {
    discardWriting();
    for (Pending p : queued) {
      p.input().close();
    }
    queued.clear();
  }

  /** Tells the primary the copy no longer needs its copy-state; once, and never blocking. */
  void releaseCopyState() {
    if (released || sourceKind != Message.SourceKind.COPY_STATE) {
      return;
    }
    released = true;
    Connection c = connection;
    Connection now = link.current();
    if (!c.isOpen() && now != null && now.peerNodeId() == c.peerNodeId() && now.peerPrimaryGen() == c.peerPrimaryGen()) {
      // Dropped: the primary keeps the copy-state under a lease, which this ends early.
      c = now;
    }
    if (c.isOpen()) {
      c.request(id -> new Message.ReleaseCopyState(id, sourceId))
          .exceptionally(t -> {
            log.debug("release of copy-state {} failed (the primary releases it on disconnect): {}", sourceId, t.toString());
            return null;
          });
    }
  }
}

package io.nrtcluster.replica;

import io.nrtcluster.common.ConnectionException;
import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.transport.Connection;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.lucene.replicator.nrt.FileMetaData;
import org.apache.lucene.util.IOUtils;

/**
 * How one copy of an NRT point outlives a dropped connection: it waits up to {@code
 * copyResumeWindow} for the link to come back to the same primary, then goes on where it stopped:
 * the partly copied file from its byte offset, queued files requested again, finished temp files
 * kept; the primary kept the copy-state under a lease meanwhile. What was written before the drop
 * is read back from disk first ({@link TempFileRecheck}), and again when a newer point's copy takes
 * such files over: the partly copied file's checksum state is recomputed from its bytes on disk (a
 * file changed meanwhile is fetched again from byte 0) and every finished temp file is checked in
 * full, so a resumed file is verified exactly as one copied in one go.
 *
 * <p>Guarantees: when the link stays down past the window, comes back to another primary, or the
 * primary no longer holds the copy-state ({@code UNKNOWN_COPY_STATE}: its lease ended), the copy
 * fails as any other and the next one starts afresh; a reread applies only to the job's state it
 * was made of. The disk is reread outside the job's monitor ({@link #betweenSlices}); everything
 * else runs under it.
 */
final class CopyResume {
  private final StreamingCopyJob job;
  private final ReplicatingReplicaNode node;
  private final CopyStreams streams;
  private final Map<String, FileMetaData> files;
  private final NodeLog log;
  private final ReplicaStats stats;
  private final long resumeWindowNanos;
  /** Set while the copy waits for the link to come back after the connection it fetched on dropped. */
  private volatile Connection lostConnection;
  private long lostAtNanos;
  /** The copy resumed at least once: a later "unknown copy-state" means the lease had ended. */
  private boolean resumed;
  /** What was written before a drop must be reread from disk before the copy goes on. */
  private volatile boolean recheckNeeded;
  /** That reread, done between slices outside the monitor ({@link #betweenSlices}); applied by {@link #goOn}. */
  private volatile TempFileRecheck.Result recheck;

  /** For {@code job}, which fetches its {@code files} on {@code streams} into {@code node}'s directory. */
  CopyResume(StreamingCopyJob job, ReplicatingReplicaNode node, CopyStreams streams, Map<String, FileMetaData> files,
      ReplicaContext ctx) {
    this.job = job;
    this.node = node;
    this.streams = streams;
    this.files = files;
    this.log = ctx.log();
    this.stats = ctx.stats();
    this.resumeWindowNanos = ctx.config().copyResumeWindow().toNanos();
  }

  /** True while the copy waits for its link to come back. */
  boolean waiting() {
    return lostConnection != null;
  }

  /** What the copy carried over from a job that had lost its link must be reread before it goes on. */
  void carriedOverFromDrop() {
    recheckNeeded = true;
  }

  /**
   * The copy's connection failed with {@code e}: true when it can resume, its streams are closed
   * (the inputs keep their checksum state) and it waits for the link; false when {@code e} ends
   * the copy.
   */
  boolean lost(NrtClusterException e) {
    Connection c = streams.connection();
    if (!(e instanceof ConnectionException) || !streams.forCopyState() || resumeWindowNanos == 0 || c.isOpen()) {
      if (resumed && e.code() == ErrorCode.UNKNOWN_COPY_STATE) {
        stats.resumeRefused();
        log.info("the primary no longer holds copy-state {} (its lease ended): the copy starts over", streams.sourceId());
      }
      return false;
    }
    lostAtNanos = System.nanoTime();
    recheck = null;
    recheckNeeded = true;
    lostConnection = c;
    streams.dropped();
    TempFileCopy current = job.writingFile();
    log.info("connection to the primary dropped at byte {} of {} ({}); resuming on the next connection within {} ms",
        current == null ? 0 : current.getBytesCopied(), current == null ? "-" : current.name, job,
        resumeWindowNanos / 1_000_000);
    return true;
  }

  /**
   * True while the copy's connection is down and the link has no other one yet: nothing to do
   * until it has (a slice would only find the window not over yet, or end the copy once it is).
   */
  boolean awaitingLink() {
    Connection lost = lostConnection;
    if (lost == null) {
      return false;
    }
    Connection next = node.link().current();
    return next == null || next == lost;
  }

  /**
   * Runs between two slices, outside the monitor: a copy that lost its connection waits up to {@code
   * millis} for the link to come back, and what it wrote before the drop is reread from disk here,
   * where a large file takes no monitor anyone else needs.
   */
  void betweenSlices(long millis) throws InterruptedException {
    Connection lost = lostConnection;
    if (lost != null && node.link().awaitOther(lost, millis) == null) {
      return;
    }
    if (!recheckNeeded || recheck != null) {
      return;
    }
    TempFileRecheck.Request request = job.recheckRequest();
    if (request != null) {
      recheck = TempFileRecheck.run(request, node.indexFolder(), node.getDirectory(), files);
    }
  }

  /**
   * Before a slice, under the job's monitor: false while the copy must wait for its link or for the
   * reread of what it wrote before a drop; once both are there, applies the reread.
   */
  boolean goOn() throws IOException {
    if (lostConnection != null && !resume()) {
      return false;
    }
    if (recheckNeeded && lostConnection == null) {
      // A newer point's copy took over this partly copied file from a copy that had lost its link.
      TempFileRecheck.Result rc = readyRecheck();
      if (rc == null) {
        return false;
      }
      applyRecheck(rc, false);
    }
    return true;
  }

  /** The reread of the job's state as it is now, or null when there is none yet (or it is outdated). */
  private TempFileRecheck.Result readyRecheck() {
    TempFileRecheck.Result rc = recheck;
    if (rc == null) {
      return null;
    }
    TempFileRecheck.Request now = job.recheckRequest();
    if (!rc.request().equals(now)) {
      recheck = null;
      return null;
    }
    return rc;
  }

  /** Resumes on the link's new connection; false while there is none yet or the disk is being reread. */
  private boolean resume() throws IOException {
    Connection lost = lostConnection;
    Connection next = node.link().current();
    if (next == null || next == lost) {
      if (System.nanoTime() - lostAtNanos > resumeWindowNanos) {
        stats.resumeRefused();
        throw new ConnectionException("the connection to the primary stayed down for more than "
            + resumeWindowNanos / 1_000_000 + " ms; the copy starts over");
      }
      return false;
    }
    if (next.peerNodeId() != lost.peerNodeId() || next.peerPrimaryGen() != lost.peerPrimaryGen()) {
      stats.resumeRefused();
      throw new ConnectionException("reconnected to P" + next.peerNodeId() + " generation " + next.peerPrimaryGen()
          + ", not P" + lost.peerNodeId() + " generation " + lost.peerPrimaryGen() + ": the copy starts over");
    }
    TempFileRecheck.Result rc = readyRecheck();
    if (rc == null) {
      return false;
    }
    streams.moveTo(next);
    lostConnection = null;
    resumed = true;
    long kept = applyRecheck(rc, true);
    stats.resumedAfterDrop(kept);
    log.info("resumed {} on the new connection after {} ms, keeping {} bytes already copied", job,
        (System.nanoTime() - lostAtNanos) / 1_000_000, kept);
    return true;
  }

  /**
   * Goes on from what the disk holds: a finished temp file that changed is deleted and fetched again,
   * a partly copied file that changed is fetched again from byte 0, else continues from its offset
   * with the checksum state of its bytes on disk. With {@code newConnection}, every stream is opened
   * again on the connection the copy moved to. Returns the bytes kept.
   */
  private long applyRecheck(TempFileRecheck.Result rc, boolean newConnection) {
    recheck = null;
    recheckNeeded = false;
    long kept = 0;
    List<Map.Entry<String, FileMetaData>> again = new ArrayList<>();
    for (Map.Entry<String, String> e : rc.request().finished().entrySet()) {
      FileMetaData meta = files.get(e.getKey());
      if (!rc.changedFinished().contains(e.getKey())) {
        kept += meta.length();
        continue;
      }
      log.warn("temp file {} of {} changed on disk while the connection was down; fetching it again", e.getValue(), e.getKey());
      stats.checksumMismatch();
      stats.discarded(meta.length());
      job.forgetCopied(e.getKey(), meta.length());
      IOUtils.deleteFilesIgnoringExceptions(node.getDirectory(), e.getValue());
      again.add(Map.entry(e.getKey(), meta));
    }
    // With a new connection, the queued files' streams died with the old one.
    streams.requestAgain(again, newConnection);
    if (job.writingFile() != null) {
      kept += continueCurrent(rc.partial(), newConnection);
    }
    return kept;
  }

  /** The partly copied file after a reread of its bytes on disk ({@code disk}); returns the bytes kept. */
  private long continueCurrent(TempFileRecheck.Prefix disk, boolean newConnection) {
    TempFileCopy copy = job.writingFile();
    VerifyingFileInput before = streams.writing();
    long offset = before.position();
    if (disk == null || disk.crc().getValue() != before.crc().getValue() || disk.trailer() != before.trailer()) {
      log.warn("partly copied file {} ({}) changed on disk while the connection was down ({} bytes reread); fetching it "
          + "again from byte 0", copy.name, copy.tmpName, offset);
      stats.checksumMismatch();
      stats.discarded(offset);
      String name = copy.name;
      FileMetaData meta = copy.metaData;
      job.discardCurrent();
      streams.requestFirst(name, meta);
      return 0;
    }
    // The checksum state of the bytes on disk, not the one kept in memory, verifies the file from here on.
    job.writingFile(new TempFileCopy(copy, streams.continueWriting(copy.name, disk, newConnection)));
    return offset;
  }
}

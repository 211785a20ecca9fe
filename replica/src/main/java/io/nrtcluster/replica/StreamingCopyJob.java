package io.nrtcluster.replica;

import io.nrtcluster.common.ChecksumMismatchException;
import io.nrtcluster.common.ConnectionException;
import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.StorageException;
import io.nrtcluster.transport.Connection;
import io.nrtcluster.transport.FaultStats;
import io.nrtcluster.transport.Message;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.CRC32;
import org.apache.lucene.replicator.nrt.CopyJob;
import org.apache.lucene.replicator.nrt.CopyOneFile;
import org.apache.lucene.replicator.nrt.CopyState;
import org.apache.lucene.replicator.nrt.FileMetaData;
import org.apache.lucene.util.IOUtils;

/**
 * Lucene's {@link CopyJob} over the transport: the files one NRT point (or one merged segment) needs
 * are streamed from the primary, several in flight at once, each into a temp file.
 *
 * <p>Guarantees: every byte is checked against the primary's Lucene checksum while it arrives; a
 * file that fails is discarded and fetched again (up to {@code maxFileRetries} times), never
 * installed. Before the final rename each temp file's length, header and footer are compared with
 * the metadata once more. A job superseded by a newer NRT point hands its finished temp files and
 * its partly copied file (with the byte offset and running checksum) to the new job. The primary's
 * copy-state is released exactly once, whatever the outcome.
 *
 * <p>A copy of an NRT point whose connection drops waits up to {@code copyResumeWindow} for the
 * link to come back to the same primary, then goes on where it stopped: the partly copied file from
 * its byte offset, queued files requested again, finished temp files kept; the primary kept the
 * copy-state under a lease meanwhile. What was written before the drop is read back from disk
 * first ({@link TempFileRecheck}): the partly copied file's checksum state is recomputed from its
 * bytes on disk (a file changed meanwhile is fetched again from byte 0) and every finished temp file
 * is checked in full, so a resumed file is verified exactly as one copied in one go. When the link
 * stays down, comes back to another primary, or the primary no longer holds the copy-state
 * ({@code UNKNOWN_COPY_STATE}: its lease ended), the copy fails as any other and the next one
 * starts afresh.
 *
 * <p>Wire bit flips (the transport's fault point) read into a file are reported once the file's
 * fate is known ({@link FileFlips}): detected when it fails its checksum, discarded when its temp
 * file is deleted unfinished (cancelled, superseded without carrying it over, changed on disk),
 * undetected when it passes. A partly copied file kept across a drop or a takeover keeps its flips
 * pending until then.
 *
 * <p>When the primary named a parent replica ({@link PeerSource}) and it is connected, each file is
 * first fetched whole from the parent, which serves it only if it holds it with the checksum the
 * primary advertised. Whatever goes wrong with a file from the parent (not held, a checksum that
 * fails, the connection lost, nothing sent for {@code peerStallTimeout}) discards it and fetches it
 * from the primary instead, without counting against the file's retries or reporting the primary's
 * copy as corrupt: the bytes are verified exactly as the primary's would be.
 */
final class StreamingCopyJob extends CopyJob {
  private record Pending(String name, FileMetaData meta, VerifyingFileInput input) {}

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

  private final ReplicatingReplicaNode node;
  /** The connection to fetch on: the one the copy-state came on, or the one the copy resumed on. */
  private volatile Connection connection;
  private final CopyState copyState;
  private final Message.SourceKind sourceKind;
  private final long sourceId;
  private final NodeLog log;
  private final ReplicaStats stats;
  private final int maxFileRetries;
  private final BadFileTracker badFiles;
  private final int prefetch;
  private final long resumeWindowNanos;
  private final Duration peerStallTimeout;
  /** Set while the copy waits for the link to come back after {@code connection} dropped. */
  private volatile Connection lostConnection;
  private long lostAtNanos;
  /** The copy resumed at least once: a later "unknown copy-state" means the lease had ended. */
  private boolean resumed;
  /** What was written before a drop must be reread from disk before the copy goes on. */
  private volatile boolean recheckNeeded;
  /** That reread, done between slices outside the monitor ({@link #betweenSlices}); applied by {@link #visit}. */
  private volatile TempFileRecheck.Result recheck;
  private final ArrayDeque<Pending> queued = new ArrayDeque<>();
  private final Map<String, Integer> retries = new HashMap<>();
  private PeekingIterator<Map.Entry<String, FileMetaData>> remaining;
  private VerifyingFileInput currentInput;
  private StreamingCopyJob transferringFrom;
  private boolean released;
  /** Files whose stream open now (current or queued) comes from the parent replica, not the primary. */
  private final Set<String> fromPeer = new HashSet<>();
  /** Files the parent failed to serve in this copy: fetched from the primary only. */
  private final Set<String> primaryOnly = new HashSet<>();
  /** Set when a newer NRT point's job took this one over: it ends "failed" without anything wrong. */
  private volatile boolean superseded;

  private StreamingCopyJob(String reason, Map<String, FileMetaData> files, ReplicatingReplicaNode node,
      boolean highPriority, OnceDone onceDone, Connection connection, CopyState copyState,
      Message.SourceKind sourceKind, long sourceId, ReplicaContext ctx, BadFileTracker badFiles) throws IOException {
    super(reason, files, node, highPriority, onceDone);
    this.badFiles = badFiles;
    this.node = node;
    this.connection = connection;
    this.copyState = copyState;
    this.sourceKind = sourceKind;
    this.sourceId = sourceId;
    this.log = ctx.log();
    this.stats = ctx.stats();
    this.maxFileRetries = ctx.config().maxFileRetries();
    this.prefetch = ctx.config().prefetchFiles();
    this.resumeWindowNanos = ctx.config().copyResumeWindow().toNanos();
    this.peerStallTimeout = ctx.config().peerStallTimeout();
  }

  /** A job copying the files of a copy-state the primary holds for us under {@code copyStateId}. */
  static StreamingCopyJob forNrtPoint(String reason, ReplicatingReplicaNode node, boolean highPriority,
      OnceDone onceDone, Connection connection, CopyState copyState, long copyStateId, ReplicaContext ctx,
      BadFileTracker badFiles) throws IOException {
    return new StreamingCopyJob(reason, copyState.files(), node, highPriority, onceDone, connection, copyState,
        Message.SourceKind.COPY_STATE, copyStateId, ctx, badFiles);
  }

  /** A job pre-copying the files of merge pre-copy {@code preCopyId}. */
  static StreamingCopyJob forMerge(String reason, ReplicatingReplicaNode node, Map<String, FileMetaData> files,
      OnceDone onceDone, Connection connection, long preCopyId, ReplicaContext ctx, BadFileTracker badFiles)
      throws IOException {
    return new StreamingCopyJob(reason, files, node, false, onceDone, connection, null,
        Message.SourceKind.MERGE_PRECOPY, preCopyId, ctx, badFiles);
  }

  @Override
  public synchronized void start() throws IOException {
    if (remaining != null) {
      throw new IllegalStateException("already started");
    }
    remaining = new PeekingIterator<>(toCopy.iterator());
    for (Map.Entry<String, FileMetaData> e : toCopy) {
      totBytes += e.getValue().length();
    }
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
    Connection peer = offset == 0 && !primaryOnly.contains(name) ? node.link().peers().connection() : null;
    if (peer != null) {
      fromPeer.add(name);
      return new VerifyingFileInput(peer.fetchFile(Message.SourceKind.PEER, meta.checksum(), name, 0, peerStallTimeout),
          name, meta, 0, crc, new FileFlips(node.link().faults()), stats);
    }
    fromPeer.remove(name);
    return new VerifyingFileInput(connection.fetchFile(sourceKind, sourceId, name, offset), name, meta, offset, crc,
        new FileFlips(node.link().faults()), stats);
  }

  /**
   * The file being written came from the parent replica and failed there ({@code why}): it is
   * discarded and fetched from the primary, neither counted as a retry nor reported as corrupt.
   */
  private void fallBackToPrimary(NrtClusterException why) {
    String name = current.name;
    FileMetaData meta = current.metaData;
    if (why instanceof ChecksumMismatchException && currentInput != null) {
      currentInput.flips().resolve(FaultStats.FlipOutcome.DETECTED);
    }
    stats.discarded(current.getBytesCopied());
    stats.peerFallback();
    discardCurrent();
    fromPeer.remove(name);
    primaryOnly.add(name);
    log.info("file {} from copy source R{} failed ({}); fetching it from the primary", name,
        node.link().peers().parentId(), why.getMessage());
    queued.addFirst(new Pending(name, meta, open(name, meta, 0, new CRC32())));
  }

  /** Copies one slice; returns true when there is nothing left to do (done or cancelled). */
  synchronized boolean visit() throws IOException {
    if (exc != null) {
      return true;
    }
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
    if (current == null) {
      Pending next = queued.poll();
      fill();
      if (next == null) {
        return true;
      }
      currentInput = next.input();
      current = new TempFileCopy(currentInput, node, next.name(), next.meta());
    }
    noteFilesInFlight();
    try {
      if (current.visit()) {
        copiedFiles.put(current.name, current.tmpName);
        totBytesCopied += current.getBytesCopied();
        stats.fileCopied();
        if (fromPeer.remove(current.name)) {
          stats.fileFromPeer(current.getBytesCopied());
        }
        badFiles.fileCopied(connection, current.name, current.metaData);
        long escaped = currentInput.flips().resolve(FaultStats.FlipOutcome.UNDETECTED);
        if (escaped > 0) {
          log.error("file {} passed its checksum with {} flipped bits read into it: corrupt bytes were accepted",
              current.name, escaped);
        }
        currentInput.close();
        currentInput = null;
        current = null;
      }
    } catch (ChecksumMismatchException e) {
      if (current != null && fromPeer.contains(current.name)) {
        fallBackToPrimary(e);
      } else {
        refetchCurrent(e);
      }
    } catch (StorageException e) {
      // Local storage, not the primary, failed: fetching again cannot help until space returns.
      stats.storageFailed();
      throw e;
    } catch (NrtClusterException e) {
      if (current != null && fromPeer.contains(current.name)) {
        fallBackToPrimary(e);
        return false;
      }
      if (!linkLost(e)) {
        if (resumed && e.code() == ErrorCode.UNKNOWN_COPY_STATE) {
          stats.resumeRefused();
          log.info("the primary no longer holds copy-state {} (its lease ended): the copy starts over", sourceId);
        }
        throw e;
      }
    }
    return false;
  }

  /**
   * Counts the files of this copy the primary is sending now: the one being written and those
   * requested ahead whose answer arrived (bytes on the way or here, unread), for {@link
   * ReplicaStats#maxFilesInFlight}. A few volatile reads per slice.
   */
  private void noteFilesInFlight() {
    int n = currentInput != null && currentInput.answered() ? 1 : 0;
    for (Pending p : queued) {
      if (p.input().answered()) {
        n++;
      }
    }
    stats.filesInFlight(n);
  }

  /**
   * The connection dropped under a copy that can resume: its streams are closed (the inputs keep
   * their checksum state) and the copy waits for the link. False when it cannot resume.
   */
  private boolean linkLost(NrtClusterException e) {
    Connection c = connection;
    if (!(e instanceof ConnectionException) || sourceKind != Message.SourceKind.COPY_STATE || resumeWindowNanos == 0
        || c.isOpen()) {
      return false;
    }
    lostAtNanos = System.nanoTime();
    recheck = null;
    recheckNeeded = true;
    lostConnection = c;
    if (currentInput != null) {
      currentInput.close();
    }
    for (Pending p : queued) {
      p.input().close();
    }
    log.info("connection to the primary dropped at byte {} of {} ({}); resuming on the next connection within {} ms",
        current == null ? 0 : current.getBytesCopied(), current == null ? "-" : current.name, this,
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
    TempFileRecheck.Request request = recheckRequest();
    if (request != null) {
      recheck = TempFileRecheck.run(request, node.indexFolder(), node.getDirectory(), files);
    }
  }

  private synchronized TempFileRecheck.Request recheckRequest() {
    if (exc != null) {
      return null;
    }
    boolean partial = current != null && currentInput != null;
    return new TempFileRecheck.Request(partial ? current.tmpName : null, partial ? currentInput.position() : 0,
        partial ? currentInput.bodyEnd() : 0, Map.copyOf(copiedFiles));
  }

  /** The reread of the job's state as it is now, or null when there is none yet (or it is outdated). */
  private TempFileRecheck.Result readyRecheck() {
    TempFileRecheck.Result rc = recheck;
    if (rc == null) {
      return null;
    }
    TempFileRecheck.Request now = recheckRequest();
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
    connection = next;
    lostConnection = null;
    resumed = true;
    long kept = applyRecheck(rc, true);
    stats.resumedAfterDrop(kept);
    log.info("resumed {} on the new connection after {} ms, keeping {} bytes already copied", this,
        (System.nanoTime() - lostAtNanos) / 1_000_000, kept);
    return true;
  }

  /**
   * Goes on from what the disk holds: a finished temp file that changed is deleted and fetched again,
   * a partly copied file that changed is fetched again from byte 0, else continues from its offset
   * with the checksum state of its bytes on disk. With {@code newConnection}, every stream is opened
   * again on {@link #connection}. Returns the bytes kept.
   */
  private long applyRecheck(TempFileRecheck.Result rc, boolean newConnection) {
    recheck = null;
    recheckNeeded = false;
    long kept = 0;
    List<Pending> again = new ArrayList<>();
    for (Map.Entry<String, String> e : rc.request().finished().entrySet()) {
      FileMetaData meta = files.get(e.getKey());
      if (!rc.changedFinished().contains(e.getKey())) {
        kept += meta.length();
        continue;
      }
      log.warn("temp file {} of {} changed on disk while the connection was down; fetching it again", e.getValue(), e.getKey());
      stats.checksumMismatch();
      stats.discarded(meta.length());
      copiedFiles.remove(e.getKey());
      totBytesCopied -= meta.length();
      IOUtils.deleteFilesIgnoringExceptions(node.getDirectory(), e.getValue());
      again.add(new Pending(e.getKey(), meta, open(e.getKey(), meta, 0, new CRC32())));
    }
    if (newConnection) {
      // The queued files' streams died with the old connection.
      List<Pending> old = List.copyOf(queued);
      queued.clear();
      for (Pending p : old) {
        queued.add(new Pending(p.name(), p.meta(), open(p.name(), p.meta(), 0, new CRC32())));
      }
    }
    for (Pending p : again) {
      queued.addFirst(p);
    }
    if (current != null) {
      kept += continueCurrent(rc.partial(), newConnection);
    }
    return kept;
  }

  /** The partly copied file after a reread of its bytes on disk ({@code disk}); returns the bytes kept. */
  private long continueCurrent(TempFileRecheck.Prefix disk, boolean newConnection) {
    TempFileCopy copy = (TempFileCopy) current;
    VerifyingFileInput before = currentInput;
    long offset = before.position();
    if (disk == null || disk.crc().getValue() != before.crc().getValue() || disk.trailer() != before.trailer()) {
      log.warn("partly copied file {} ({}) changed on disk while the connection was down ({} bytes reread); fetching it "
          + "again from byte 0", copy.name, copy.tmpName, offset);
      stats.checksumMismatch();
      stats.discarded(offset);
      String name = copy.name;
      FileMetaData meta = copy.metaData;
      discardCurrent();
      queued.addFirst(new Pending(name, meta, open(name, meta, 0, new CRC32())));
      return 0;
    }
    // The checksum state of the bytes on disk, not the one kept in memory, verifies the file from here on.
    currentInput = newConnection
        ? before.continueOn(connection.fetchFile(sourceKind, sourceId, copy.name, offset), disk.crc(), disk.trailer())
        : before.withChecksumState(disk.crc(), disk.trailer());
    current = new TempFileCopy(copy, currentInput);
    return offset;
  }

  private void refetchCurrent(ChecksumMismatchException cause) throws IOException {
    String name = current.name;
    FileMetaData meta = current.metaData;
    int attempt = retries.merge(name, 1, Integer::sum);
    stats.checksumMismatch();
    if (currentInput != null) {
      currentInput.flips().resolve(FaultStats.FlipOutcome.DETECTED);
    }
    stats.discarded(current.getBytesCopied());
    discardCurrent();
    if (badFiles.checksumFailed(connection, name, meta)) {
      // Reported to the primary (or held off after a report): fetching it again now cannot help.
      log.warn("{}; giving up this copy after {} attempts, the file is reported to the primary", cause.getMessage(), attempt);
      throw cause;
    }
    if (attempt > maxFileRetries) {
      log.warn("{}; giving up after {} attempts", cause.getMessage(), attempt);
      throw cause;
    }
    log.warn("{}; fetching it again (attempt {} of {})", cause.getMessage(), attempt + 1, maxFileRetries + 1);
    queued.addFirst(new Pending(name, meta, open(name, meta, 0, new CRC32())));
  }

  private void discardCurrent() {
    if (currentInput != null) {
      currentInput.flips().resolve(FaultStats.FlipOutcome.DISCARDED);
      currentInput.close();
      currentInput = null;
    }
    if (current != null) {
      String tmp = current.tmpName;
      IOUtils.closeWhileHandlingException(current);
      IOUtils.deleteFilesIgnoringExceptions(node.getDirectory(), tmp);
      current = null;
    }
  }

  @Override
  protected CopyOneFile newCopyOneFile(CopyOneFile prev) {
    // Continue the file the superseded job was writing, from the byte it reached, with its checksum.
    StreamingCopyJob from = transferringFrom;
    currentInput = from.currentInput.continueOn(connection.fetchFile(sourceKind, sourceId, prev.name, prev.getBytesCopied()));
    from.currentInput.close();
    from.currentInput = null;
    return new TempFileCopy((TempFileCopy) prev, currentInput);
  }

  @Override
  public synchronized void transferAndCancel(CopyJob prevJob) throws IOException {
    StreamingCopyJob prev = (StreamingCopyJob) prevJob;
    synchronized (prev) {
      // Set before the transfer cancels it, so its completion never counts as a failure.
      prev.superseded = !prev.getFailed();
    }
    transferringFrom = prev;
    try {
      super.transferAndCancel(prevJob);
      if (prev.lostConnection != null && (current != null || !copiedFiles.isEmpty())) {
        // What it carried over was written before a drop: reread it (outside the monitors) before going on.
        recheckNeeded = true;
      }
      // Nothing is copied by this job yet: whatever it holds now was carried over.
      long carried = current == null ? 0 : current.getBytesCopied();
      for (String name : copiedFiles.keySet()) {
        carried += files.get(name).length();
      }
      stats.resumedFile(carried);
    } finally {
      transferringFrom = null;
      synchronized (prev) {
        prev.closeStreams();
        prev.releaseCopyState();
      }
    }
  }

  @Override
  public synchronized void cancel(String reason, Throwable exc) throws IOException {
    if (this.exc == null && !superseded) {
      long thrownAway = current == null ? 0 : current.getBytesCopied();
      for (String name : copiedFiles.keySet()) {
        thrownAway += files.get(name).length();
      }
      stats.discarded(thrownAway);
    }
    try {
      super.cancel(reason, exc);
    } finally {
      closeStreams();
      releaseCopyState();
    }
  }

  /** Closes every stream; the partly copied file (deleted by the caller unless carried over) takes its flips with it. */
  private void closeStreams() {
    if (currentInput != null) {
      currentInput.flips().resolve(FaultStats.FlipOutcome.DISCARDED);
      currentInput.close();
      currentInput = null;
    }
    for (Pending p : queued) {
      p.input().close();
    }
    queued.clear();
  }

  /** Tells the primary we no longer need its copy-state; once, and never blocking. */
  private void releaseCopyState() {
    if (released || sourceKind != Message.SourceKind.COPY_STATE) {
      return;
    }
    released = true;
    Connection c = connection;
    Connection now = node.link().current();
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

  /** Verifies every temp file once more, then renames them all to their real names. */
  @Override
  public synchronized void finish() throws IOException {
    try {
      for (Map.Entry<String, String> e : copiedFiles.entrySet()) {
        verifyTemp(e.getKey(), e.getValue());
      }
    } catch (IOException e) {
      cancel("verification before install failed", e);
      throw e;
    }
    Iterator<Map.Entry<String, String>> it = copiedFiles.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<String, String> e = it.next();
      try {
        node.getDirectory().rename(e.getValue(), e.getKey());
      } catch (IOException failure) {
        // Files renamed so far are complete and verified: a retry finds them and skips them.
        StorageException s = new StorageException("installing " + e.getKey() + " failed: " + failure, failure);
        stats.storageFailed();
        cancel("installing copied files failed", s);
        throw s;
      }
      it.remove();
    }
    releaseCopyState();
  }

  private void verifyTemp(String name, String tmpName) throws IOException {
    FileMetaData expected = files.get(name);
    FileMetaData actual = node.readLocalFileMetaData(tmpName);
    if (actual == null
        || actual.length() != expected.length()
        || actual.checksum() != expected.checksum()
        || !Arrays.equals(actual.header(), expected.header())
        || !Arrays.equals(actual.footer(), expected.footer())) {
      stats.checksumMismatch();
      throw new ChecksumMismatchException("file " + name + ": temp file " + tmpName + " does not match the primary's metadata");
    }
  }

  @Override
  public void runBlocking() throws IOException {
    while (!visit()) {
      // visit() does a bounded slice of work per call; between slices a dropped copy waits for its link.
      try {
        betweenSlices(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted waiting for the link to the primary");
      }
    }
    if (getFailed()) {
      throw new IOException("copy failed: " + cancelReason, exc);
    }
  }

  @Override
  public synchronized boolean conflicts(CopyJob other) {
    Set<String> mine = getFileNamesToCopy();
    for (String name : other.getFileNamesToCopy()) {
      if (mine.contains(name)) {
        return true;
      }
    }
    return false;
  }

  /** Why this job failed, or null. */
  Throwable failure() {
    return exc;
  }

  /** True when a newer NRT point's job took this one over (so its failure is no failure). */
  boolean superseded() {
    return superseded;
  }

  @Override
  public boolean getFailed() {
    return exc != null;
  }

  @Override
  public Set<String> getFileNamesToCopy() {
    Set<String> names = new HashSet<>();
    for (Map.Entry<String, FileMetaData> e : toCopy) {
      names.add(e.getKey());
    }
    return names;
  }

  @Override
  public Set<String> getFileNames() {
    return files.keySet();
  }

  @Override
  public CopyState getCopyState() {
    return copyState;
  }

  @Override
  public long getTotalBytesCopied() {
    return totBytesCopied;
  }

  /**
   * Pacing of a merge pre-copy, set by the runner when it first runs the job: bytes per second (0:
   * unpaced) and since when. Only the runner's thread running this job reads or writes them.
   */
  long pacedBytesPerSecond = -1;
  long pacedSinceNanos;

  /** Bytes of this copy written so far, the file being written included (for pacing). */
  synchronized long bytesWrittenSoFar() {
    CopyOneFile c = current;
    return totBytesCopied + (c == null ? 0 : c.getBytesCopied());
  }

  @Override
  public int compareTo(CopyJob other) {
    if (highPriority != other.highPriority) {
      return highPriority ? -1 : 1;
    }
    return Long.compare(ord, other.ord);
  }

  @Override
  public String toString() {
    return "StreamingCopyJob(ord=" + ord + " " + reason + " files=" + files.size() + " toCopy=" + toCopy.size()
        + " copied=" + totBytesCopied + "/" + totBytes + ")";
  }
}

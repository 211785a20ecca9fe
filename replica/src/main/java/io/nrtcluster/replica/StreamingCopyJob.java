package io.nrtcluster.replica;

import io.nrtcluster.common.ChecksumMismatchException;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.StorageException;
import io.nrtcluster.transport.Connection;
import io.nrtcluster.transport.Message;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
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
 * link to come back to the same primary, then goes on where it stopped, what it wrote before the
 * drop verified again first ({@link CopyResume}).
 *
 * <p>Wire bit flips (the transport's fault point) read into a file are reported once the file's
 * fate is known ({@link FileFlips}): detected when it fails its checksum, discarded when its temp
 * file is deleted unfinished (cancelled, superseded without carrying it over, changed on disk),
 * undetected when it passes. A partly copied file kept across a drop or a takeover keeps its flips
 * pending until then.
 *
 * <p>When the primary named a parent replica ({@link PeerSource}) and it is connected, each file is
 * first fetched whole from the parent ({@link CopyStreams}), which serves it only if it holds it
 * with the checksum the primary advertised. Whatever goes wrong with a file from the parent (not
 * held, a checksum that fails, the connection lost, nothing sent for {@code peerStallTimeout})
 * discards it and fetches it from the primary instead, without counting against the file's retries
 * or reporting the primary's copy as corrupt: the bytes are verified exactly as the primary's would
 * be.
 */
final class StreamingCopyJob extends CopyJob {
  private final ReplicatingReplicaNode node;
  private final CopyState copyState;
  /** The streams the files arrive on, and where they come from. */
  private final CopyStreams streams;
  private final NodeLog log;
  private final ReplicaStats stats;
  private final int maxFileRetries;
  private final BadFileTracker badFiles;
  /** How the copy outlives a dropped connection. */
  private final CopyResume resume;
  private final Map<String, Integer> retries = new HashMap<>();
  private StreamingCopyJob transferringFrom;
  /** Set when a newer NRT point's job took this one over: it ends "failed" without anything wrong. */
  private volatile boolean superseded;

  private StreamingCopyJob(String reason, Map<String, FileMetaData> files, ReplicatingReplicaNode node,
      boolean highPriority, OnceDone onceDone, Connection connection, CopyState copyState,
      Message.SourceKind sourceKind, long sourceId, ReplicaContext ctx, BadFileTracker badFiles) throws IOException {
    super(reason, files, node, highPriority, onceDone);
    this.badFiles = badFiles;
    this.node = node;
    this.copyState = copyState;
    this.streams = new CopyStreams(node.link(), ctx, connection, sourceKind, sourceId);
    this.log = ctx.log();
    this.stats = ctx.stats();
    this.maxFileRetries = ctx.config().maxFileRetries();
    this.resume = new CopyResume(this, node, streams, files, ctx);
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
    if (streams.started()) {
      throw new IllegalStateException("already started");
    }
    for (Map.Entry<String, FileMetaData> e : toCopy) {
      totBytes += e.getValue().length();
    }
    streams.start(toCopy);
  }

  /**
   * The file being written came from the parent replica and failed there ({@code why}): it is
   * discarded and fetched from the primary, neither counted as a retry nor reported as corrupt.
   */
  private void fallBackToPrimary(NrtClusterException why) {
    String name = current.name;
    FileMetaData meta = current.metaData;
    if (why instanceof ChecksumMismatchException) {
      streams.checksumFailed();
    }
    stats.discarded(current.getBytesCopied());
    stats.peerFallback();
    discardCurrent();
    log.info("file {} from copy source R{} failed ({}); fetching it from the primary", name,
        node.link().peers().parentId(), why.getMessage());
    streams.requestFromPrimary(name, meta);
  }

  /** Copies one slice; returns true when there is nothing left to do (done or cancelled). */
  synchronized boolean visit() throws IOException {
    if (exc != null) {
      return true;
    }
    if (!resume.goOn()) {
      return false;
    }
    if (current == null) {
      CopyStreams.Pending next = streams.next();
      if (next == null) {
        return true;
      }
      current = new TempFileCopy(next.input(), node, next.name(), next.meta());
    }
    stats.filesInFlight(streams.inFlight());
    try {
      if (current.visit()) {
        copiedFiles.put(current.name, current.tmpName);
        totBytesCopied += current.getBytesCopied();
        stats.fileCopied();
        if (streams.copiedFromPeer(current.name)) {
          stats.fileFromPeer(current.getBytesCopied());
        }
        badFiles.fileCopied(streams.connection(), current.name, current.metaData);
        long escaped = streams.writtenWhole();
        if (escaped > 0) {
          log.error("file {} passed its checksum with {} flipped bits read into it: corrupt bytes were accepted",
              current.name, escaped);
        }
        current = null;
      }
    } catch (ChecksumMismatchException e) {
      if (current != null && streams.fromPeer(current.name)) {
        fallBackToPrimary(e);
      } else {
        refetchCurrent(e);
      }
    } catch (StorageException e) {
      // Local storage, not the primary, failed: fetching again cannot help until space returns.
      stats.storageFailed();
      throw e;
    } catch (NrtClusterException e) {
      if (current != null && streams.fromPeer(current.name)) {
        fallBackToPrimary(e);
        return false;
      }
      if (!resume.lost(e)) {
        throw e;
      }
    }
    return false;
  }

  /**
   * True while the copy's connection is down and the link has no other one yet: nothing to do
   * until it has.
   */
  boolean awaitingLink() {
    return resume.awaitingLink();
  }

  /**
   * Runs between two slices, outside the monitor: a copy that lost its connection waits up to {@code
   * millis} for the link to come back, and rereads what it wrote before the drop.
   */
  void betweenSlices(long millis) throws InterruptedException {
    resume.betweenSlices(millis);
  }

  /** What a reread of the job's files on disk covers now, or null once the job failed. */
  synchronized TempFileRecheck.Request recheckRequest() {
    if (exc != null) {
      return null;
    }
    VerifyingFileInput writing = streams.writing();
    boolean partial = current != null && writing != null;
    return new TempFileRecheck.Request(partial ? current.tmpName : null, partial ? writing.position() : 0,
        partial ? writing.bodyEnd() : 0, Map.copyOf(copiedFiles));
  }

  /** The partly copied file, or null; under the monitor. */
  TempFileCopy writingFile() {
    return (TempFileCopy) current;
  }

  /** The partly copied file goes on as {@code copy} (after a drop); under the monitor. */
  void writingFile(TempFileCopy copy) {
    current = copy;
  }

  /** The finished temp file of {@code name} ({@code length} bytes) was thrown away; under the monitor. */
  void forgetCopied(String name, long length) {
    copiedFiles.remove(name);
    totBytesCopied -= length;
  }

  private void refetchCurrent(ChecksumMismatchException cause) throws IOException {
    String name = current.name;
    FileMetaData meta = current.metaData;
    int attempt = retries.merge(name, 1, Integer::sum);
    stats.checksumMismatch();
    streams.checksumFailed();
    stats.discarded(current.getBytesCopied());
    discardCurrent();
    if (badFiles.checksumFailed(streams.connection(), name, meta)) {
      // Reported to the primary (or held off after a report): fetching it again now cannot help.
      log.warn("{}; giving up this copy after {} attempts, the file is reported to the primary", cause.getMessage(), attempt);
      throw cause;
    }
    if (attempt > maxFileRetries) {
      log.warn("{}; giving up after {} attempts", cause.getMessage(), attempt);
      throw cause;
    }
    log.warn("{}; fetching it again (attempt {} of {})", cause.getMessage(), attempt + 1, maxFileRetries + 1);
    streams.requestFirst(name, meta);
  }

  /** Gives up the partly copied file: its stream is closed and its temp file deleted; under the monitor. */
  void discardCurrent() {
    streams.discardWriting();
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
    return new TempFileCopy((TempFileCopy) prev, streams.takeOver(from.streams, prev.name, prev.getBytesCopied()));
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
      if (prev.resume.waiting() && (current != null || !copiedFiles.isEmpty())) {
        // What it carried over was written before a drop: reread it (outside the monitors) before going on.
        resume.carriedOverFromDrop();
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
        prev.streams.close();
        prev.streams.releaseCopyState();
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
      streams.close();
      streams.releaseCopyState();
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
    streams.releaseCopyState();
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

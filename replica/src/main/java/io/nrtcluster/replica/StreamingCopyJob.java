package io.nrtcluster.replica;

import io.nrtcluster.common.ChecksumMismatchException;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.StorageException;
import io.nrtcluster.transport.Connection;
import io.nrtcluster.transport.Message;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
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
 */
final class StreamingCopyJob extends CopyJob {
  private record Pending(String name, FileMetaData meta, VerifyingFileInput input) {}

  private final ReplicatingReplicaNode node;
  private final Connection connection;
  private final CopyState copyState;
  private final Message.SourceKind sourceKind;
  private final long sourceId;
  private final NodeLog log;
  private final ReplicaStats stats;
  private final int maxFileRetries;
  private final BadFileTracker badFiles;
  private final int prefetch;
  private final ArrayDeque<Pending> queued = new ArrayDeque<>();
  private final Map<String, Integer> retries = new HashMap<>();
  private Iterator<Map.Entry<String, FileMetaData>> remaining;
  private VerifyingFileInput currentInput;
  private StreamingCopyJob transferringFrom;
  private boolean released;
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
    remaining = toCopy.iterator();
    for (Map.Entry<String, FileMetaData> e : toCopy) {
      totBytes += e.getValue().length();
    }
    fill();
  }

  /** Keeps up to {@code prefetch} files requested ahead of the one being written. */
  private void fill() {
    while (queued.size() < prefetch && remaining.hasNext()) {
      Map.Entry<String, FileMetaData> e = remaining.next();
      queued.add(new Pending(e.getKey(), e.getValue(), open(e.getKey(), e.getValue(), 0, new CRC32())));
    }
  }

  private VerifyingFileInput open(String name, FileMetaData meta, long offset, CRC32 crc) {
    return new VerifyingFileInput(connection.fetchFile(sourceKind, sourceId, name, offset), name, meta, offset, crc, stats);
  }

  /** Copies one slice; returns true when there is nothing left to do (done or cancelled). */
  synchronized boolean visit() throws IOException {
    if (exc != null) {
      return true;
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
    try {
      if (current.visit()) {
        copiedFiles.put(current.name, current.tmpName);
        totBytesCopied += current.getBytesCopied();
        stats.fileCopied();
        badFiles.fileCopied(connection, current.name, current.metaData);
        currentInput.close();
        currentInput = null;
        current = null;
      }
    } catch (ChecksumMismatchException e) {
      refetchCurrent(e);
    } catch (StorageException e) {
      // Local storage, not the primary, failed: fetching again cannot help until space returns.
      stats.storageFailed();
      throw e;
    }
    return false;
  }

  private void refetchCurrent(ChecksumMismatchException cause) throws IOException {
    String name = current.name;
    FileMetaData meta = current.metaData;
    int attempt = retries.merge(name, 1, Integer::sum);
    stats.checksumMismatch();
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
    currentInput = open(prev.name, prev.metaData, prev.getBytesCopied(), from.currentInput.crc());
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
    try {
      super.cancel(reason, exc);
    } finally {
      closeStreams();
      releaseCopyState();
    }
  }

  private void closeStreams() {
    if (currentInput != null) {
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
    if (connection.isOpen()) {
      connection.request(id -> new Message.ReleaseCopyState(id, sourceId))
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
      // visit() does a bounded slice of work per call.
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

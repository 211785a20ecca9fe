package io.nrtcluster.replica;

import io.nrtcluster.common.ConnectionException;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.ReplayPositions;
import io.nrtcluster.common.Slf4jPrintStream;
import io.nrtcluster.common.StalePrimaryGenerationException;
import io.nrtcluster.common.StorageException;
import io.nrtcluster.transport.Connection;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.StandardDirectoryReader;
import org.apache.lucene.replicator.nrt.CopyJob;
import org.apache.lucene.replicator.nrt.FileMetaData;
import org.apache.lucene.replicator.nrt.NodeCommunicationException;
import org.apache.lucene.replicator.nrt.ReplicaNode;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.SearcherFactory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.FilterDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.IndexOutput;

/**
 * Lucene's {@link ReplicaNode} with its hooks implemented over the transport ({@code newCopyJob},
 * {@code launch}, {@code sendNewReplica}) and one rule Lucene only asserts made a hard check: no NRT
 * point, copy-state or merge pre-copy from a primary generation older than the highest this node
 * has seen (persisted across restarts) is ever followed.
 */
final class ReplicatingReplicaNode extends ReplicaNode {
  /** Told when an NRT copy ended, successfully or not. */
  interface CopyListener {
    /**
     * Searches see the copied point-in-time from now on: told right after the searcher switch,
     * before the node records the version and reports the install (file writes and a message).
     */
    void onSearcherSwitched(CopyJob job);

    /** {@code installed} is true when the node searches the copied point-in-time now. */
    void onNrtCopyDone(CopyJob job, boolean installed);
  }

  private final ReplicaContext ctx;
  private final NodeLog log;
  private final PrimaryLink link;
  private final CopyJobRunner runner;
  private final CopyListener listener;
  private final BadFileTracker badFiles;
  private final Object commitOrder = new Object();
  /** The copy-states copies start from, and what each reported. */
  private final CopyStates copyStates;
  /** The NRT copy running now, and when the steps of recent ones happened. */
  private final NrtCopyTimeline timeline = new NrtCopyTimeline();
  private long nextPreCopyId = -1;
  /** The copy-state {@link #newNRTPoint} fetched for Lucene's {@code newCopyJob}; under the monitor. */
  private CopyStates.Fetched prefetched;
  /** Mirror of Lucene's {@code lastPrimaryGen} for readers that must not take the monitor. */
  private volatile long generation = -1;
  /**
   * The primary generation of the copy-state the searched point was installed from, or -1 while it
   * is a local commit opened without a copy. Unlike {@link #generation}, which moves to a new
   * primary's when a copy from it starts, this moves only once a copied point is searched.
   */
  private volatile long installedGeneration = -1;
  /** Whether the local commit opened at start (if no copy replaced it) holds writes no refresh published. */
  private volatile LocalCommitPublication localCommit = LocalCommitPublication.none();
  private final TempOutputs tempOutputs;
  /**
   * This opening of the index from disk ({@link io.nrtcluster.common.Incarnations}): a resync reopens
   * from the last commit with a new node and a new incarnation, so the primary never counts what this
   * one installed for the next one; only the first opening after a clean close goes on as the run
   * that closed.
   */
  private final long incarnation;

  ReplicatingReplicaNode(int id, Directory dir, SearcherFactory searcherFactory,
      ReplicaContext ctx, PrimaryLink link, CopyJobRunner runner, CopyListener listener, BadFileTracker badFiles,
      long incarnation) throws IOException {
    // The stream only carries the rare stack traces Lucene prints; messages go through message().
    super(id, dir, searcherFactory, Slf4jPrintStream.shared());
    this.ctx = ctx;
    this.log = ctx.log();
    this.link = link;
    this.runner = runner;
    this.listener = listener;
    this.badFiles = badFiles;
    this.incarnation = incarnation;
    this.copyStates = new CopyStates(this, id, ctx, timeline);
    this.tempOutputs = new TempOutputs(ctx.config().storageFaults());
    setVerboseFiles(false);
  }

  /** Opens the last commit, syncing first if it came from another primary generation. */
  void startAt(long primaryGen) throws IOException {
    start(primaryGen);
    generation = lastPrimaryGen;
    // Lucene sets the files' metadata at start only when it synced from the primary; otherwise the
    // searched point is the local commit, whatever generation Lucene now calls it.
    installedGeneration = lastFileMetaData != null ? lastPrimaryGen : -1;
    localCommit = installedGeneration < 0 ? LocalCommitPublication.of(dir) : LocalCommitPublication.none();
    if (localCommit.unpublished()) {
      log.warn("the local commit (version {}) holds writes no refresh published: nothing is searched until a point is copied"
          + " from the primary", localCommit.version());
    }
  }

  /**
   * The primary of generation {@code gen} announced {@code version}: may publish the local commit
   * ({@link LocalCommitPublication}). Without this, a replica whose commit's version equals the
   * primary's newest point (a bootstrap from a backup of the primary's last commit) counted itself
   * caught up and never served.
   */
  void announced(long gen, long version) {
    if (localCommit.announced(gen, version)) {
      log.info("generation {} published version {}: the local commit's point is published", gen, version);
    }
  }

  /**
   * While the local commit is not known to be published and the primary that made it is the one
   * connected: asks it for its current point, which says whether it published the commit's version
   * (an idle primary announces nothing, and a bootstrap from its last commit's backup would wait for
   * its next refresh). Raises {@link ResyncRequiredException} as a copy-state request does.
   */
  void confirmLocalCommit() throws IOException {
    if (!searchesUnpublishedCommit()) {
      return;
    }
    long gen = localCommit.generation();
    Connection c = link.current();
    if (c == null || c.peerPrimaryGen() != gen) {
      return;
    }
    long version = copyStates.currentVersion(c, gen);
    if (version >= 0) {
      announced(gen, version);
    }
  }

  /** True while the searched point is a local commit holding writes no refresh published ({@link LocalCommitPublication}). */
  boolean searchesUnpublishedCommit() {
    return localCommit.unpublished() && installedGeneration < 0;
  }

  /** See {@link #installedGeneration}: a volatile read, never the node's monitor. */
  long installedPrimaryGen() {
    return installedGeneration;
  }

  /**
   * The primary generation of the point-in-time searched (or being switched to): a volatile read,
   * never the node's monitor, so log lines, status and the member record never wait for a copy.
   */
  long lastPrimaryGen() {
    return generation;
  }

  /** The NRT copy running now and the times of recent copies' steps; never the node's monitor. */
  NrtCopyTimeline timeline() {
    return timeline;
  }

  /** This opening of the index ({@link io.nrtcluster.common.Incarnations}). */
  long incarnation() {
    return incarnation;
  }

  /** The link to the primary (a copy that lost its connection resumes on the link's next one). */
  PrimaryLink link() {
    return link;
  }

  /** The folder of the index on disk: a replica's directory is always a file-system one. */
  Path indexFolder() {
    return ((FSDirectory) FilterDirectory.unwrap(dir)).getDirectory();
  }

  boolean isStarted() {
    return mgr != null;
  }

  /**
   * Lucene's close, also for a node whose {@code start} failed: Lucene's close assumes a searcher
   * manager and would stop before it releases the index's write lock, so every later open of the
   * directory in this process failed with {@code LockObtainFailedException}.
   */
  @Override
  public void close() throws IOException {
    synchronized (this) {
      if (mgr == null) {
        mgr = new NeverStartedSearcherManager();
      }
    }
    super.close();
  }

  /** True while an NRT point is being copied; never waits for the node's monitor. */
  @Override
  public boolean isCopying() {
    return timeline.copying();
  }

  @Override
  protected synchronized void maybeNewPrimary(long newPrimaryGen) throws IOException {
    super.maybeNewPrimary(newPrimaryGen);
    generation = lastPrimaryGen;
  }

  /**
   * Lucene's {@code newNRTPoint}, with the copy-state asked for first, outside the node's monitor:
   * Lucene holds the monitor while it builds the copy job, and the request may wait for the
   * primary's answer up to the request timeout. Returns null when there is nothing to copy or the
   * primary could not be asked (the caller retries).
   */
  @Override
  public CopyJob newNRTPoint(long newPrimaryGen, long version) throws IOException {
    requireCurrentGeneration(ctx, newPrimaryGen, "NRT point version " + version);
    if (mgr != null && newPrimaryGen == generation && version <= getCurrentSearchingVersion()) {
      return null;
    }
    Connection c = link.current();
    if (c == null) {
      return null;
    }
    CopyStates.Fetched fetched;
    try {
      PushedCopyStates.Pushed pushed = link.pushed().take(c, newPrimaryGen, version);
      // The point brought its copy-state: no need to ask (a round trip over the link saved).
      fetched = pushed != null ? copyStates.accept(c, pushed.state(), newPrimaryGen) : copyStates.fetch(c, newPrimaryGen);
    } catch (NodeCommunicationException e) {
      log.debug("asking for the copy-state of version {} failed: {}", version, e.toString());
      return null;
    }
    CopyStates.Fetched unused;
    CopyJob job;
    synchronized (this) {
      prefetched = fetched;
      try {
        job = super.newNRTPoint(newPrimaryGen, version);
      } finally {
        unused = prefetched;
        prefetched = null;
      }
    }
    if (unused != null) {
      unused.release();
    }
    return job;
  }
  /** Starts pre-copying a merged segment for pre-copy {@code preCopyId} of primary generation {@code gen}. */
  synchronized CopyJob preCopyMerge(long preCopyId, long gen, Map<String, FileMetaData> files, AtomicBoolean finished)
      throws IOException {
    requireCurrentGeneration(ctx, gen, "merge pre-copy " + preCopyId);
    nextPreCopyId = preCopyId;
    try {
      return launchPreCopyMerge(finished, gen, files);
    } finally {
      nextPreCopyId = -1;
    }
  }

  /**
   * The rule this node makes a hard check: nothing from primary generation {@code gen} older than
   * the highest seen is followed (raises {@link StalePrimaryGenerationException}).
   */
  static void requireCurrentGeneration(ReplicaContext ctx, long gen, String what) throws IOException {
    if (!ctx.store().observeGeneration(gen)) {
      ctx.stats().staleGenerationRefused();
      throw new StalePrimaryGenerationException(what + " is from primary generation " + gen
          + " but generation " + ctx.store().highestPrimaryGen() + " was already seen");
    }
  }

  @Override
  protected CopyJob newCopyJob(String reason, Map<String, FileMetaData> files, Map<String, FileMetaData> prevFiles,
      boolean highPriority, CopyJob.OnceDone onceDone) throws IOException {
    Connection c = link.current();
    if (c == null) {
      throw new NodeCommunicationException("no connection to the primary",
          new ConnectionException("not connected"));
    }
    if (files != null) {
      return StreamingCopyJob.forMerge(reason, this, files, onceDone, c, nextPreCopyId, ctx, badFiles);
    }
    CopyStates.Fetched fetched = prefetched;
    prefetched = null;
    if (fetched == null) {
      // Lucene's start-up sync (no reader needs the monitor yet): ask now.
      fetched = copyStates.fetch(c, -1);
    }
    try {
      return StreamingCopyJob.forNrtPoint(reason, this, highPriority, onceDone, fetched.connection(), fetched.state(),
          fetched.copyStateId(), ctx, badFiles);
    } catch (IOException | RuntimeException e) {
      fetched.release();
      throw e;
    }
  }

  /**
   * Lucene's replica commit, which replaces the user data with generation and version; the
   * application's replay position of the committed point-in-time is read first and recorded with
   * the commit in the node state.
   *
   * <p>A commit that fails on local storage (disk full, failed fsync) raises {@link
   * StorageException} and leaves the previous commit the one a restart opens: Lucene removes the
   * partly written segments file. The searched files are fsynced before Lucene's commit takes its
   * references, so a failed fsync pins nothing; a commit that fails later keeps the files it covered
   * until the replica restarts (Lucene offers no way to drop those references).
   */
  @Override
  public void commit() throws IOException {
    if (searchesUnpublishedCommit()) {
      // Nothing was copied since it opened, so the last commit is this point already; committing it
      // again would record its own version as published, and a later restart would serve it.
      return;
    }
    synchronized (commitLock()) {
      long version = getCurrentSearchingVersion();
      String position = replayPosition(version);
      try {
        dir.sync(searchedFiles());
        super.commit();
      } catch (IOException e) {
        if (e instanceof NrtClusterException) {
          throw e;
        }
        ctx.stats().storageFailed();
        throw new StorageException("commit of version " + version
            + " failed on local storage; the previous commit stays the one a restart opens: " + e, e);
      }
      ctx.store().recordCommit(version, position);
    }
  }

  /** The files of the point-in-time searched now (never the node's monitor). */
  Collection<String> searchedFileNames() throws IOException {
    return searchedFiles();
  }

  private Collection<String> searchedFiles() throws IOException {
    IndexSearcher s = mgr.acquire();
    try {
      return ((StandardDirectoryReader) s.getIndexReader()).getSegmentInfos().files(false);
    } finally {
      mgr.release(s);
    }
  }

  /**
   * Temp files of copied files: written through a {@link ChannelFileOutput} in the index folder (a
   * replica's directory is always a file-system one: {@link Replica} opens it), so received bytes
   * reach the file without a heap copy; their I/O errors surface as {@link StorageException}.
   */
  @Override
  public IndexOutput createTempOutput(String prefix, String suffix, IOContext ioContext) throws IOException {
    return tempOutputs.create(indexFolder(), prefix, suffix);
  }

  /**
   * The output {@link #createTempOutput} made for {@code tmpName}, handed over once: Lucene's {@code
   * CopyOneFile} asks for it and keeps it private, and our copy writes to it directly.
   */
  LocalFileOutput takeTempOutput(String tmpName) {
    return tempOutputs.take(tmpName);
  }

  private Object commitLock() {
    // Not the node's monitor: a commit fsyncs, and copies must not wait for that.
    return commitOrder;
  }

  /**
   * The application's replay position of {@code version}: as the primary reported it with the
   * copy-state, else as recorded with this node's commit of that version, else from the commit's
   * user data (a primary's commit carries it). Null when unknown.
   */
  String replayPosition(long version) throws IOException {
    String p = copyStates.reportedPosition(version);
    if (p == null && version == ctx.store().committedVersion()) {
      p = ctx.store().committedPosition();
    }
    return p != null ? p : searchedReplayPosition();
  }

  /** Replay position in the user data of the point-in-time searched now, or null. */
  private String searchedReplayPosition() throws IOException {
    IndexSearcher s = mgr.acquire();
    try {
      return ((StandardDirectoryReader) s.getIndexReader()).getSegmentInfos().getUserData().get(ReplayPositions.KEY);
    } finally {
      mgr.release(s);
    }
  }

  @Override
  protected void launch(CopyJob job) {
    if (job == curNRTCopy) {
      // Lucene launches its current NRT copy under the monitor; merges are launched otherwise.
      timeline.launched(job);
    }
    runner.launch((StreamingCopyJob) job);
  }

  @Override
  protected void sendNewReplica() {
    link.announce();
  }

  /**
   * Installs a finished copy. Whatever fails here (installing the files, opening the new searcher)
   * leaves the previous searcher serving and is reported to the listener as a copy that did not
   * install, so the replica retries with backoff instead of at once.
   */
  @Override
  protected void finishNRTCopy(CopyJob job, long startNS) throws IOException {
    boolean installed = false;
    try {
      timeline.filesArrived(job);
      super.finishNRTCopy(job, startNS);
      timeline.switched();
      installed = !job.getFailed();
      if (installed) {
        installedGeneration = job.getCopyState().primaryGen();
        listener.onSearcherSwitched(job);
        ctx.stats().nrtCopyCompleted();
        log.debug("searching version {} after copying {} bytes in {} ms", job.getCopyState().version(),
            job.getTotalBytesCopied(), (System.nanoTime() - startNS) / 1_000_000);
        ctx.store().observeVersion(job.getCopyState().version());
        link.reportInstalled(job.getCopyState().primaryGen(), job.getCopyState().version(), incarnation);
      } else if (!(job instanceof StreamingCopyJob s && s.superseded())) {
        ctx.stats().nrtCopyFailed(CopyFailureReason.of(job instanceof StreamingCopyJob s ? s.failure() : null));
      }
    } catch (IOException | RuntimeException e) {
      if (!installed) {
        ctx.stats().nrtCopyFailed(CopyFailureReason.of(e));
      }
      throw e;
    } finally {
      listener.onNrtCopyDone(job, installed);
    }
  }

  /**
   * Lucene's identity of a local file (length, header, footer, checksum), as Lucene reads it, but
   * through a read-once input. Lucene opens it with the default context: on an mmap directory that
   * maps the file into its segment's shared arena, and closing a shared arena no reader holds (a
   * pre-copied merged segment, a temp file being verified) stops every thread of the JVM for a
   * handshake. A lagging replica looks up dozens of such files per NRT point; a read-once input
   * lives in a confined arena that closes without stopping anyone.
   */
  @Override
  public FileMetaData readLocalFileMetaData(String fileName) throws IOException {
    Map<String, FileMetaData> cache = lastFileMetaData;
    FileMetaData cached = cache == null ? null : cache.get(fileName);
    if (cached != null) {
      return cached;
    }
    try (IndexInput in = dir.openInput(fileName, IOContext.READONCE)) {
      long length = in.length();
      byte[] header = CodecUtil.readIndexHeader(in);
      byte[] footer = CodecUtil.readFooter(in);
      long checksum = CodecUtil.retrieveChecksum(in);
      return new FileMetaData(header, footer, length, checksum);
    } catch (EOFException | CorruptIndexException e) {
      // A truncated or corrupt leftover (a crash before fsync): it is copied again, as Lucene does.
      return null;
    } catch (FileNotFoundException | NoSuchFileException e) {
      return null;
    }
  }

  /**
   * Lucene's progress messages, as TRACE lines. Lucene's own {@code message} formats every line with
   * {@code printf} before any logger can drop it, which took 6 % of a replica's profile samples at
   * ten NRT points a second.
   */
  @Override
  public void message(String message) {
    if (log == null) {
      // Lucene's constructor reports before our fields are set: once per node, so its way is fine.
      super.message(message);
    } else {
      log.lucene(message);
    }
  }
}

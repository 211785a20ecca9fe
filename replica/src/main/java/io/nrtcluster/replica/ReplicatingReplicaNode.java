package io.nrtcluster.replica;

import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.ReplayPositions;
import io.nrtcluster.common.StalePrimaryGenerationException;
import io.nrtcluster.transport.Connection;
import io.nrtcluster.transport.Message;
import java.io.IOException;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.lucene.index.IndexNotFoundException;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.index.StandardDirectoryReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.replicator.nrt.CopyJob;
import org.apache.lucene.replicator.nrt.CopyState;
import org.apache.lucene.replicator.nrt.FileMetaData;
import org.apache.lucene.replicator.nrt.NodeCommunicationException;
import org.apache.lucene.replicator.nrt.ReplicaNode;
import org.apache.lucene.search.SearcherFactory;
import org.apache.lucene.store.Directory;

/**
 * Lucene's {@link ReplicaNode} with its hooks implemented over the transport ({@code newCopyJob},
 * {@code launch}, {@code sendNewReplica}) and one rule Lucene only asserts made a hard check: no NRT
 * point, copy-state or merge pre-copy from a primary generation older than the highest this node
 * has seen (persisted across restarts) is ever followed.
 */
final class ReplicatingReplicaNode extends ReplicaNode {
  /** Told when an NRT copy ended, successfully or not. */
  interface CopyListener {
    void onNrtCopyDone(CopyJob job);
  }

  private final ReplicaContext ctx;
  private final NodeLog log;
  private final PrimaryLink link;
  private final CopyJobRunner runner;
  private final CopyListener listener;
  private final Object commitOrder = new Object();
  /** Replay positions of recently copied versions, as the primary reported them. */
  private final ConcurrentSkipListMap<Long, String> positions = new ConcurrentSkipListMap<>();
  private long expectedGen = -1;
  private long nextPreCopyId = -1;

  ReplicatingReplicaNode(int id, Directory dir, SearcherFactory searcherFactory, PrintStream printStream,
      ReplicaContext ctx, PrimaryLink link, CopyJobRunner runner, CopyListener listener) throws IOException {
    super(id, dir, searcherFactory, printStream);
    this.ctx = ctx;
    this.log = ctx.log();
    this.link = link;
    this.runner = runner;
    this.listener = listener;
    setVerboseFiles(false);
  }

  /** Opens the last commit, syncing first if it came from another primary generation. */
  void startAt(long primaryGen) throws IOException {
    start(primaryGen);
  }

  synchronized long lastPrimaryGen() {
    return lastPrimaryGen;
  }

  boolean isStarted() {
    return mgr != null;
  }

  /** Version of the NRT copy running now, or -1. */
  synchronized long copyingVersion() {
    return curNRTCopy == null ? -1 : curNRTCopy.getCopyState().version();
  }

  @Override
  public synchronized CopyJob newNRTPoint(long newPrimaryGen, long version) throws IOException {
    requireCurrentGeneration(newPrimaryGen, "NRT point version " + version);
    expectedGen = newPrimaryGen;
    try {
      return super.newNRTPoint(newPrimaryGen, version);
    } finally {
      expectedGen = -1;
    }
  }

  /** Starts pre-copying a merged segment for pre-copy {@code preCopyId} of primary generation {@code gen}. */
  synchronized CopyJob preCopyMerge(long preCopyId, long gen, Map<String, FileMetaData> files, AtomicBoolean finished)
      throws IOException {
    requireCurrentGeneration(gen, "merge pre-copy " + preCopyId);
    nextPreCopyId = preCopyId;
    try {
      return launchPreCopyMerge(finished, gen, files);
    } finally {
      nextPreCopyId = -1;
    }
  }

  private void requireCurrentGeneration(long gen, String what) throws IOException {
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
          new io.nrtcluster.common.ConnectionException("not connected"));
    }
    if (files != null) {
      return StreamingCopyJob.forMerge(reason, this, files, onceDone, c, nextPreCopyId, ctx);
    }
    Message.CopyStateReply reply;
    try {
      reply = (Message.CopyStateReply) c.request(id -> new Message.GetCopyState(id, id()))
          .get(ctx.config().transport().requestTimeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new NodeCommunicationException("interrupted asking for the copy-state", e);
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new NodeCommunicationException("asking the primary for its copy-state failed", e.getCause() == null ? e : e.getCause());
    }
    try {
      CopyState state = new CopyState(WireFiles.fromWire(reply.files()), reply.version(), reply.gen(),
          reply.infosBytes(), reply.completedMergeFiles(), reply.primaryGen(), null);
      if (reply.replayPosition() != null) {
        positions.put(reply.version(), reply.replayPosition());
        while (positions.size() > 128) {
          positions.pollFirstEntry();
        }
      }
      requireCurrentGeneration(state.primaryGen(), "copy-state version " + state.version());
      if (expectedGen >= 0 && state.primaryGen() != expectedGen) {
        throw new NodeCommunicationException("the primary changed while asking for its copy-state",
            new StalePrimaryGenerationException("expected generation " + expectedGen + ", got " + state.primaryGen()));
      }
      if (mgr != null) {
        checkNoConflictWithLastCommit(state);
      }
      return StreamingCopyJob.forNrtPoint(reason, this, highPriority, onceDone, c, state, reply.copyStateId(), ctx);
    } catch (IOException | RuntimeException e) {
      c.request(id -> new Message.ReleaseCopyState(id, reply.copyStateId())).exceptionally(t -> null);
      throw e;
    }
  }

  /**
   * A new primary must not make us overwrite a file of our last commit with different contents:
   * that commit would then point at the wrong bytes. Lucene avoids it on start-up by syncing before
   * opening; a running replica detects it here and resynchronizes.
   */
  private void checkNoConflictWithLastCommit(CopyState state) throws IOException {
    // Only a file we have under the same name with other contents can hurt; usually there is none.
    Set<String> differing = new HashSet<>();
    for (Map.Entry<String, FileMetaData> e : state.files().entrySet()) {
      FileMetaData local = readLocalFileMetaData(e.getKey());
      FileMetaData remote = e.getValue();
      if (local != null && (!Arrays.equals(local.header(), remote.header()) || !Arrays.equals(local.footer(), remote.footer()))) {
        differing.add(e.getKey());
      }
    }
    if (differing.isEmpty()) {
      return;
    }
    Collection<String> commitFiles;
    try {
      commitFiles = SegmentInfos.readLatestCommit(dir).files(true);
    } catch (IndexNotFoundException e) {
      return;
    }
    differing.retainAll(commitFiles);
    if (!differing.isEmpty()) {
      throw new ResyncRequiredException(state.primaryGen(), "primary generation " + state.primaryGen()
          + " has different contents for files of our last commit: " + differing);
    }
  }


  /**
   * Lucene's replica commit, which replaces the user data with generation and version; the
   * application's replay position of the committed point-in-time is read first and recorded with
   * the commit in the node state.
   */
  @Override
  public void commit() throws IOException {
    synchronized (commitLock()) {
      long version = getCurrentSearchingVersion();
      String position = replayPosition(version);
      super.commit();
      ctx.store().recordCommit(version, position);
    }
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
    String p = positions.get(version);
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
    runner.launch((StreamingCopyJob) job);
  }

  @Override
  protected void sendNewReplica() {
    link.announce();
  }

  @Override
  protected void finishNRTCopy(CopyJob job, long startNS) throws IOException {
    try {
      super.finishNRTCopy(job, startNS);
      if (!job.getFailed()) {
        ctx.stats().nrtCopyCompleted();
        ctx.store().observeVersion(job.getCopyState().version());
        log.debug("searching version {} after copying {} bytes in {} ms", job.getCopyState().version(),
            job.getTotalBytesCopied(), (System.nanoTime() - startNS) / 1_000_000);
      } else if (!(job instanceof StreamingCopyJob s && s.superseded())) {
        ctx.stats().nrtCopyFailed();
      }
    } finally {
      listener.onNrtCopyDone(job);
    }
  }

  private int id() {
    return id;
  }
}

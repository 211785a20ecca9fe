package io.nrtcluster.primary;

import io.nrtcluster.common.ExecutorSource;
import io.nrtcluster.common.GenerationStore;
import io.nrtcluster.common.Incarnations;
import io.nrtcluster.common.NodeClosedException;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.NotPrimaryException;
import io.nrtcluster.common.NotPublishedException;
import io.nrtcluster.common.ReplayPositions;
import io.nrtcluster.common.Stable;
import io.nrtcluster.transport.NodeAddress;
import io.nrtcluster.transport.Transport;
import io.nrtcluster.transport.TransportServer;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.replicator.nrt.Node;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.SearcherFactory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.IOUtils;
import org.slf4j.LoggerFactory;

/**
 * The primary of one index: owns the {@link IndexWriter}, publishes each refresh as an NRT point to
 * every connected replica, serves them the files of that point, and pre-copies merged segments
 * before installing them.
 *
 * <p>Guarantees: a replica can only ever fetch files of a point-in-time this primary handed out and
 * still holds; every copy-state handed out is released (by the replica, on disconnect, or on close);
 * versions published by this data directory never repeat, even across restarts; {@link #close()}
 * waits at most {@code closeTimeout} for copies in progress (none of a replica silent for {@code
 * peerSilence}: a cut-off replica does not hold a step-down up) and then rolls back uncommitted changes,
 * exactly like closing a Lucene {@code PrimaryNode} (call {@link #commit()} first to keep them).
 *
 * <pre>{@code
 * try (Primary primary = Primary.open(config, new IndexWriterConfig(analyzer))) {
 *   primary.writer().addDocument(doc);
 *   long version = primary.refresh();   // replicas copy and open this exact version
 * }
 * }</pre>
 */
@Stable
public final class Primary implements Closeable {
  private final PrimaryConfig config;
  private final NodeLog log;
  private final ReplicatingPrimaryNode node;
  private final PrimaryEndpoint endpoint;
  private final CopyStateRegistry copyStates;
  private final MergePreCopier preCopier;
  private final FileVerifier verifier;
  private final Transport transport;
  private final boolean ownsTransport;
  private final TransportServer server;
  private final AtomicBoolean closed = new AtomicBoolean();
  /**
   * The run of the index this primary continues ({@link Incarnations}): the in-sync set names the
   * primary by it. A new one, unless the replica it was promoted from closed cleanly (its commit holds
   * all it searched), whose run it goes on.
   */
  private final long incarnation;
  /** Announces points held back for a slow parent's children (only with a copy tree). */
  private volatile ScheduledExecutorService relayTimer;
  /** What searches see: the last version that passed the publish gate. */
  private final PublishedSearcher searcher;
  /** Puts each refresh's point through the gate to searches and replicas; commits take its order. */
  private final PrimaryPublications publications;
  private final PrimaryCommits commits;

  /**
   * Runs before a new NRT point is announced to replicas, and before a commit whose version no
   * refresh published becomes durable; throwing stops the announcement or the commit. A cluster
   * uses it to record the version in ZooKeeper while it provably still holds its epoch, so the next
   * primary starts above every version this one announced or left on disk.
   */
  @FunctionalInterface
  public interface PublishGate {
    /**
     * Records {@code version} before any replica or search sees it; throwing keeps the version
     * unpublished.
     */
    void beforePublish(long version) throws IOException;
  }

  private Primary(PrimaryConfig config, NodeLog log, GenerationStore store, ReplicatingPrimaryNode node,
      PrimaryEndpoint endpoint, CopyStateRegistry copyStates, MergePreCopier preCopier, FileVerifier verifier,
      Transport transport, boolean ownsTransport, TransportServer server, long incarnation) {
    this.incarnation = incarnation;
    this.config = config;
    this.log = log;
    this.node = node;
    this.endpoint = endpoint;
    this.copyStates = copyStates;
    this.preCopier = preCopier;
    this.verifier = verifier;
    this.transport = transport;
    this.ownsTransport = ownsTransport;
    this.server = server;
    this.searcher = new PublishedSearcher(node.getSearcherManager(), log, closed::get);
    this.publications = new PrimaryPublications(node, store, endpoint, searcher, log, closed::get);
    this.commits = new PrimaryCommits(node, store, publications, log);
  }

  /** Opens a primary with its own transport, listening on the configured address. */
  public static Primary open(PrimaryConfig config, IndexWriterConfig writerConfig) throws IOException {
    Transport transport = Transport.create("P" + config.nodeId(), config.transport());
    try {
      return open(config, writerConfig, transport, true, ExecutorSource.ownThreads());
    } catch (IOException | RuntimeException e) {
      transport.close();
      throw e;
    }
  }

  /**
   * Opens a primary on a shared transport (several indexes per process). The transport is bound on
   * the configured address if it is not bound yet.
   */
  public static Primary open(PrimaryConfig config, IndexWriterConfig writerConfig, Transport transport) throws IOException {
    return open(config, writerConfig, transport, false, ExecutorSource.ownThreads());
  }

  /**
   * Opens a primary on a shared transport whose background work (checking files replicas report,
   * ending copy-state leases) runs on executors from {@code executors}, for example a host's shared
   * pools ({@link ExecutorSource.Pool#WORK}) instead of threads of its own.
   */
  public static Primary open(PrimaryConfig config, IndexWriterConfig writerConfig, Transport transport,
      ExecutorSource executors) throws IOException {
    return open(config, writerConfig, transport, false, Objects.requireNonNull(executors, "executors"));
  }

  private static Primary open(PrimaryConfig config, IndexWriterConfig writerConfig, Transport transport, boolean ownsTransport,
      ExecutorSource executors) throws IOException {
    Files.createDirectories(config.indexPath());
    GenerationStore store = GenerationStore.open(config.statePath());
    // A run that closed cleanly here (a replica that committed all it searched, being promoted) goes on.
    long resumed = store.takeCleanClose();
    Directory dir = FSDirectory.open(config.indexPath());
    IndexWriter writer = null;
    try {
      writerConfig.setCommitOnClose(false);
      writerConfig.setMaxFullFlushMergeWaitMillis(config.maxFullFlushMergeWait().toMillis());
      writer = new IndexWriter(dir, writerConfig);
      String position = initialReplayPosition(writer, store);
      if (position != null) {
        Map<String, String> data = ReplicatingPrimaryNode.userData(writer);
        data.put(ReplayPositions.KEY, position);
        writer.setLiveCommitData(data.entrySet(), false);
      }
      long gen = config.primaryGen() >= 0 ? config.primaryGen() : nextGeneration(store, writer);
      store.observeGeneration(gen);
      writer.advanceSegmentInfosCounter(SegmentNames.firstCounter(gen));
      long forceVersion = config.forcePrimaryVersion() >= 0 ? config.forcePrimaryVersion()
          : store.highestVersion() >= 0 ? store.highestVersion() + 1 : -1;
      NodeLog log = new NodeLog(LoggerFactory.getLogger(Primary.class), "P" + config.nodeId(), () -> gen);
      PrimaryEndpoint endpoint = new PrimaryEndpoint(config.nodeId(), gen, config.indexPath(), log, config.copyTree());
      MergePreCopier preCopier = new MergePreCopier(log, endpoint::replicas, () -> gen, config.preCopyTimeout(), config.preCopyKeepAlive());
      preCopier.tree(endpoint::copyTree);
      ReplicatingPrimaryNode node = new ReplicatingPrimaryNode(writer, config.nodeId(), gen, forceVersion,
          new SearcherFactory(), log, preCopier);
      node.setRemoteCloseTimeoutMs(0);
      CopyStateRegistry copyStates = new CopyStateRegistry(node, log, CopyStateLeases.Policy.of(config), executors);
      FileVerifier verifier = new FileVerifier(node, dir, log, e -> corruptFileFound(node.writer(), log, e), executors);
      endpoint.bind(node, copyStates, preCopier, verifier);
      store.observeVersion(node.getCopyStateVersion());
      TransportServer server = transport.server();
      if (server == null) {
        server = transport.bind(config.bindHost(), config.port(), config.cluster());
      }
      server.register(config.index(), endpoint);
      log.info("primary of {}/{} listening on {} at version {} (data {})", config.cluster(), config.index(),
          server.localAddress(), node.getCopyStateVersion(), config.dataDir());
      Primary primary = new Primary(config, log, store, node, endpoint, copyStates, preCopier, verifier, transport,
          ownsTransport, server, resumed != 0 ? resumed : Incarnations.next());
      if (config.copyTree().enabled()) {
        // Often enough to replan soon after an address or the in-sync set changed.
        long every = Math.min(500, Math.max(50, config.copyTree().parentWait().toMillis() / 4));
        primary.relayTimer = executors.serial(ExecutorSource.Pool.TICK, "nrt-relay-" + log.name() + "/" + config.index());
        primary.relayTimer.scheduleWithFixedDelay(endpoint::expireHeldPoints, every, every, TimeUnit.MILLISECONDS);
      }
      primary.publications.opened(position);
      endpoint.positions(primary.publications::positionOf);
      endpoint.publishedVersion(primary::version);
      primary.searcher.publish();
      return primary;
    } catch (IOException | RuntimeException e) {
      if (writer != null) {
        IOUtils.closeWhileHandlingException(writer::rollback);
      }
      IOUtils.closeWhileHandlingException(dir);
      throw e;
    }
  }

  /**
   * The one place where a file this primary serves, found corrupt on its own disk after a replica's
   * report, becomes a tragic event of the writer, exactly as when Lucene itself hits the corruption:
   * Lucene records it ({@link IndexWriter#getTragicException()}), refuses commits and merges from now
   * on and closes the writer at its next operation; whatever turns a tragic event into a step-down
   * handles both alike.
   */
  private static void corruptFileFound(IndexWriter writer, NodeLog log, CorruptIndexException corrupt) {
    log.error("recording a tragic event on the writer: {}", corrupt.getMessage());
    writer.onTragicEvent(corrupt, "replica report");
  }

  /**
   * The replay position of the commit the writer opened: from its user data, or (when a replica's
   * commit dropped it, as Lucene's replica commit does) from the node state recorded with that commit.
   */
  private static String initialReplayPosition(IndexWriter writer, GenerationStore store) {
    Map<String, String> data = ReplicatingPrimaryNode.userData(writer);
    String position = data.get(ReplayPositions.KEY);
    if (position == null && data.containsKey(Node.VERSION_KEY)
        && Long.parseLong(data.get(Node.VERSION_KEY)) == store.committedVersion()) {
      position = store.committedPosition();
    }
    return position;
  }

  private static long nextGeneration(GenerationStore store, IndexWriter writer) {
    long fromCommit = -1;
    Iterable<Map.Entry<String, String>> data = writer.getLiveCommitData();
    if (data != null) {
      for (Map.Entry<String, String> e : data) {
        if (e.getKey().equals(Node.PRIMARY_GEN_KEY)) {
          fromCommit = Long.parseLong(e.getValue());
        }
      }
    }
    return Math.max(store.highestPrimaryGen(), fromCommit) + 1;
  }

  /** The writer: add, update and delete documents here; they become visible with {@link #refresh()}. */
  public IndexWriter writer() {
    return node.writer();
  }

  /**
   * Opens a new NRT point and tells every replica; returns the version now searchable here (the
   * same as before when nothing changed). When the publish gate refuses the new point (for a cluster:
   * {@link NotPrimaryException} once the epoch is lost, {@link NotPublishedException} when ZooKeeper
   * could not record it), nothing is published and the exception is thrown; the next refresh tries to
   * publish that point again, even without new writes.
   */
  public long refresh() throws IOException {
    return refresh(null);
  }

  /**
   * Like {@link #refresh()}, recording the application's source position (for example a queue
   * offset) with the new point-in-time. It travels to the replicas and into commits; after a
   * failover, {@link #replayPosition()} on the new primary says where to replay from.
   *
   * <p>The publish gate (a ZooKeeper write for a cluster, which may retry for many seconds) runs
   * outside the monitor that searches, close and the replication handlers take: they never wait for
   * it. Refreshes publish one at a time, in order, and a commit takes the same order (it records
   * the version it reserves), so a commit does wait behind a refresh whose gate is retrying.
   */
  public long refresh(String sourcePosition) throws IOException {
    return publications.refresh(sourcePosition);
  }

  /** Installs the check that runs before each new NRT point is announced. */
  public void setPublishGate(PublishGate gate) {
    publications.gate(gate);
  }

  /**
   * Where each node's replication endpoint listens ({@code host:port}, null when unknown), so that
   * the copy tree ({@link CopyTreeConfig}) can name a replica as another's copy source; without it
   * (the default) every replica copies from the primary.
   */
  public void setPeerAddresses(IntFunction<String> addressOf) {
    endpoint.relay().addresses(Objects.requireNonNull(addressOf, "addressOf"));
  }

  /**
   * Which replicas must copy from the primary whatever the copy tree says: a cluster passes its
   * in-sync set's members, whose lag is the latency of a replicated acknowledgement.
   */
  public void setDirectReplicas(IntPredicate mustCopyFromPrimary) {
    endpoint.relay().mustBeDirect(Objects.requireNonNull(mustCopyFromPrimary, "mustCopyFromPrimary"));
  }

  /** Where replica {@code nodeId} copies from now: another replica's id, or -1 for this primary (also for one not connected). */
  public int copySourceOf(int nodeId) {
    return endpoint.copyTree().parentOf(nodeId);
  }

  /**
   * True when replica {@code nodeId} is connected and copies from this primary in a copy tree whose
   * every replica's address is known: the replicas a cluster may add to its in-sync set.
   */
  public boolean copiesFromPrimary(int nodeId) {
    CopyTree t = endpoint.copyTree();
    Integer parent = t.parents().get(nodeId);
    return parent != null && parent == CopyTree.PRIMARY && endpoint.relay().settled();
  }

  /** Each connected replica's copy source (-1: this primary), a snapshot. */
  public Map<Integer, Integer> copySources() {
    return endpoint.copyTree().parents();
  }

  /**
   * Passes every replica's report that it installed a published version to {@code listener} from
   * now on ({@link InstallListener}); replicas of protocol version 3 report each install, and once
   * right after they connect.
   */
  public void setInstallListener(InstallListener listener) {
    endpoint.installs(Objects.requireNonNull(listener, "listener"));
  }

  /**
   * Reports this primary's events (publications, merge pre-copies) to {@code observer} from now on;
   * it first hears of the version published now, so it knows every version from this one on.
   */
  public void setObserver(PrimaryObserver observer) {
    publications.observer(Objects.requireNonNull(observer, "observer"));
    preCopier.observer(observer);
    copyStates.observer(observer);
    observer.versionPublished(version());
  }

  /** The application's source position of the newest point-in-time here, or null if never given. */
  public String replayPosition() {
    return publications.replayPosition();
  }

  /**
   * Durably commits everything written so far, with the replay position of the last refresh.
   *
   * <p>Lucene's commit flushes the writer, so the commit can hold writes no refresh published,
   * under a version number nobody published. That version passes the publish gate before the commit
   * becomes durable: in a cluster, the next primary starts above it, so a node that reopens this
   * commit (a primary stepping down, a restart) never holds a version another primary publishes
   * with other contents. When the gate refuses, nothing new is durable and the exception is thrown;
   * the prepared commit waits for the next attempt (which then commits again, to include what was
   * written meanwhile) or is rolled back by {@link #close()}.
   */
  public void commit() throws IOException {
    commits.commit();
  }

  /**
   * Hands every commit (and, if {@code listener} asks, every published NRT point) from now on to
   * {@code listener}, its files held for it; null stops. See {@link PointListener}.
   */
  public void setPointListener(PointListener listener) {
    publications.listener(listener);
  }

  /**
   * A searcher of the last published version (never of a refresh whose publication failed);
   * release it with {@link #releaseSearcher}.
   */
  public IndexSearcher acquireSearcher() throws IOException {
    ensureOpen();
    return searcher.acquire();
  }

  /**
   * Gives back a searcher from {@link #acquireSearcher()}; each acquired searcher is released exactly
   * once.
   */
  public void releaseSearcher(IndexSearcher searcher) throws IOException {
    this.searcher.release(searcher);
  }

  /** Version of the last published NRT point: the version searches see. */
  public long version() {
    return searcher.version();
  }

  /**
   * Version of the last commit: the committed index's own version, which is above the last NRT
   * point's when the commit flushed writes made since.
   */
  public long lastCommitVersion() {
    return commits.lastCommitVersion();
  }

  /** The primary generation (epoch) this primary writes under. */
  public long primaryGen() {
    return node.getPrimaryGen();
  }

  /** This opening of the index ({@link Incarnations}): a new value for every open, never 0. */
  public long incarnation() {
    return incarnation;
  }

  /** This node's id. */
  public int nodeId() {
    return config.nodeId();
  }

  /** Where replicas connect. */
  public NodeAddress address() {
    return server.localAddress();
  }

  /**
   * Copy-states handed out and not yet released, those kept under a lease for a replica that
   * dropped mid-copy included; 0 when no replica is copying and no lease is held.
   */
  public int copyStatesHeld() {
    return copyStates.size();
  }

  /** What the leases on copy-states of replicas that dropped mid-copy did so far. */
  public CopyStateLeaseCounts copyStateLeases() {
    return copyStates.leaseCounts();
  }

  /** Replicas connected and subscribed to NRT points. */
  public int replicaCount() {
    return endpoint.replicas().size();
  }

  /** The last merge pre-copy that ended, or null if none has. */
  public PreCopyResult lastPreCopy() {
    return preCopier.last();
  }

  /** Merge pre-copies running right now. */
  public int preCopiesRunning() {
    return preCopier.running();
  }

  /** The transport this primary uses (for its fault-injection statistics). */
  public Transport transport() {
    return transport;
  }

  private void ensureOpen() throws NodeClosedException {
    if (closed.get()) {
      throw new NodeClosedException("primary " + log.name() + " is closed");
    }
  }

  /**
   * Stops serving: waits up to {@code closeTimeout} for replicas to finish their copies (not for
   * those silent for {@code peerSilence}: cut off, they copy nothing), then drops their connections,
   * releases what they still hold and closes the writer without committing.
   */
  @Override
  public void close() throws IOException {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    endpoint.beginClose();
    // A replica that dropped will not be served again: its leased copy-state is not worth waiting for.
    copyStates.endLeases();
    CopyStateRegistry.Awaited left = copyStates.awaitCopies(System.nanoTime() + config.closeTimeout().toNanos(),
        config.peerSilence());
    if (left.inProgress() > 0) {
      log.warn("closing with {} copies still in progress after {}", left.inProgress(), config.closeTimeout());
    }
    if (left.silent() > 0) {
      log.warn("closing without waiting for {} copies of replicas silent for {} or more (cut off?)", left.silent(),
          config.peerSilence());
    }
    preCopier.close();
    verifier.close();
    if (relayTimer != null) {
      relayTimer.shutdownNow();
    }
    server.unregister(config.index(), endpoint);
    commits.recordCleanCloseIfCommitted(incarnation);
    copyStates.releaseAll();
    try {
      searcher.close();
      node.close();
    } finally {
      if (ownsTransport) {
        transport.close();
      }
      log.info("primary closed");
    }
  }

}

package io.nrtcluster.replica;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.ExecutorSource;
import io.nrtcluster.common.GenerationStore;
import io.nrtcluster.common.Incarnations;
import io.nrtcluster.common.IndexUnavailableException;
import io.nrtcluster.common.NodeClosedException;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.Stable;
import io.nrtcluster.common.TransitionTable;
import io.nrtcluster.transport.NodeAddress;
import io.nrtcluster.transport.Transport;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.AlreadyClosedException;
import org.slf4j.LoggerFactory;

/**
 * A replica of one index: searches exactly the point-in-time versions its primary publishes, by
 * copying only the files it lacks.
 *
 * <p>Guarantees: it starts and serves its last commit at once even when the primary is down, then
 * catches up and reconnects with backoff for as long as it runs; it never installs a file whose
 * length or checksum is wrong; a failed copy leaves the last good searcher serving; it never
 * follows a primary generation older than one it has seen (remembered across restarts); {@link
 * #commit()} makes what it searches durable, independently of the primary.
 *
 * <p>A full disk or an I/O error while writing a copied file abandons that copy: its temp files
 * are deleted, the last good searcher keeps serving, the failure counts in {@link
 * ReplicaStats#storageFailures()}, and the copy is retried with a growing (bounded) backoff until it
 * succeeds once space returns. A commit that fails on storage raises {@code StorageException} and
 * leaves the previous commit in place.
 *
 * <pre>{@code
 * try (Replica replica = Replica.open(config)) {
 *   IndexSearcher s = replica.acquireSearcher();
 *   try { s.search(query, 10); } finally { replica.releaseSearcher(s); }
 * }
 * }</pre>
 */
@Stable
public final class Replica implements Closeable {
  /**
   * Lifecycle of a replica: {@link #TRANSITIONS} lists every allowed move (forward only, except
   * RESYNCING back to RUNNING once the local index is reopened); an illegal one is a bug, refused
   * and logged, never applied.
   */
  public enum State {
    /** Opening the local index and syncing with the primary. */
    STARTING,
    /** Searching and following its primary. */
    RUNNING,
    /** Dropped its local index for the primary's; the last searcher serves until it is reopened. */
    RESYNCING,
    /** Closed for good. */
    CLOSED;

    static final TransitionTable<State> TRANSITIONS = TransitionTable.builder("replica state", State.class)
        .from(STARTING, RUNNING, CLOSED)
        .from(RUNNING, RESYNCING, CLOSED)
        .from(RESYNCING, RUNNING, CLOSED)
        .from(CLOSED)
        .build();
  }

  private final ReplicaConfig config;
  private final ReplicaContext ctx;
  private final NodeLog log;
  private final Transport transport;
  private final boolean ownsTransport;
  private final LinkEvents linkEvents;
  private final PrimaryLink link;
  private final CopyJobRunner runner;
  private final CatchUpLoop catchUp;
  private final FileIntegrity integrity;
  private final Scrubber scrubber;
  private final ReadRepairs readRepairs;
  private final SearchedVersions versions;
  private final ReplicaLifecycle lifecycle;
  private final Searchers searchers;
  private final NodeOpener opener;
  /** Serves while a resync's reopened index has no copied point yet (the one of {@link #searchers}). */
  private final FallbackSearcher fallback;
  /** Serves this replica's installed files to peers that copy from it (registered while it runs). */
  private final PeerFileServer peerServer;

  private Replica(ReplicaConfig config, Transport transport, boolean ownsTransport, ReplicaObserver observer,
      ExecutorSource executors) throws IOException {
    this.config = config;
    this.transport = transport;
    this.ownsTransport = ownsTransport;
    Files.createDirectories(config.indexPath());
    GenerationStore store = GenerationStore.open(config.statePath());
    this.lifecycle = new ReplicaLifecycle(LoggerFactory.getLogger(Replica.class), "R" + config.nodeId(), store);
    this.log = lifecycle.log();
    this.ctx = new ReplicaContext(config, log, new ReplicaStats(observer), store);
    this.versions = new SearchedVersions(log, ctx.stats(), lifecycle);
    String name = log.name() + "/" + config.index();
    this.integrity = new FileIntegrity(config, log, ctx.stats());
    this.searchers = new Searchers(log, lifecycle, integrity);
    this.fallback = searchers.fallback();
    this.linkEvents = new LinkEvents(ctx, lifecycle, integrity, searchers, versions);
    this.link = new PrimaryLink(transport, ctx, linkEvents, executors.serial(ExecutorSource.Pool.TICK, "nrt-link-" + name));
    this.runner = new CopyJobRunner(log, executors.parallel(ExecutorSource.Pool.COPY, "nrt-copy-" + name), link.scheduler());
    runner.preCopyBytesPerSecond(config.preCopyBytesPerSecond());
    CopyOutcomes copyOutcomes = new CopyOutcomes(integrity, versions, fallback, link.pushed());
    BadFileTracker badFiles = new BadFileTracker(ctx, this::onHoldChanged);
    this.peerServer = new PeerFileServer(config.nodeId(), lifecycle::node);
    this.opener = new NodeOpener(ctx, lifecycle, integrity, fallback, link, runner, copyOutcomes, badFiles);
    CatchUpStep step = new CatchUpStep(ctx, lifecycle, opener, link, badFiles);
    this.catchUp = new CatchUpLoop(log, step, config.reconnectMin(), config.reconnectMax(), step::holdOff,
        executors.serial(ExecutorSource.Pool.WORK, "nrt-catchup-" + name));
    linkEvents.attach(link, catchUp);
    copyOutcomes.attach(catchUp);
    RepairTarget repairs = new RepairTarget(lifecycle, opener, catchUp);
    this.scrubber = new Scrubber(config.scrub(), config.indexPath(), log, ctx.stats(), repairs,
        executors.serial(ExecutorSource.Pool.WORK, "nrt-scrub-" + name));
    this.readRepairs = new ReadRepairs(executors.serial(ExecutorSource.Pool.WORK, "nrt-readrepair-" + name),
        f -> repairs.repair(f, false));
  }

  /** Opens a replica with its own transport. */
  public static Replica open(ReplicaConfig config) throws IOException {
    return open(config, ReplicaObserver.NONE);
  }

  /**
   * Opens a replica with its own transport that reports its copy events to {@code observer} from
   * the very first copy on.
   */
  public static Replica open(ReplicaConfig config, ReplicaObserver observer) throws IOException {
    Objects.requireNonNull(observer, "observer");
    Transport transport = Transport.create("R" + config.nodeId(), config.transport());
    try {
      return open(config, transport, true, observer, ExecutorSource.ownThreads());
    } catch (IOException | RuntimeException e) {
      transport.close();
      throw e;
    }
  }

  /** Opens a replica on a shared transport (several indexes per process). */
  public static Replica open(ReplicaConfig config, Transport transport) throws IOException {
    return open(config, transport, false, ReplicaObserver.NONE, ExecutorSource.ownThreads());
  }

  /**
   * Opens a replica on a shared transport that reports its copy events to {@code observer} from the
   * very first copy on (the start-up catch-up included).
   */
  public static Replica open(ReplicaConfig config, Transport transport, ReplicaObserver observer) throws IOException {
    return open(config, transport, false, Objects.requireNonNull(observer, "observer"), ExecutorSource.ownThreads());
  }

  /**
   * Opens a replica on a shared transport whose background work (its link's timers, catch-up, copy
   * jobs and scrub) runs on executors from {@code executors}, for example a host's shared pools
   * instead of threads of its own (see {@link ExecutorSource.Pool} for what each kind may wait for).
   */
  public static Replica open(ReplicaConfig config, Transport transport, ReplicaObserver observer, ExecutorSource executors)
      throws IOException {
    return open(config, transport, false, Objects.requireNonNull(observer, "observer"),
        Objects.requireNonNull(executors, "executors"));
  }

  private static Replica open(ReplicaConfig config, Transport transport, boolean owns, ReplicaObserver observer,
      ExecutorSource executors) throws IOException {
    Replica r = new Replica(config, transport, owns, observer, executors);
    try {
      r.start();
    } catch (IOException | RuntimeException e) {
      r.closeQuietly();
      throw e;
    }
    return r;
  }

  private void start() throws IOException {
    opener.bootstrap();
    peerServer.register(transport, config.index(), log);
    catchUp.start();
    scrubber.start();
    link.maintain();
    link.announce();
    catchUp.wakeUp();
    log.info("replica of {}/{} started at version {}", config.cluster(), config.index(), searchingVersion());
  }

  /** Id of the replica this one copies file bytes from (the copy tree's parent), or -1 for the primary. */
  public int copySource() {
    return link.peers().parentId();
  }

  /**
   * Paces merge pre-copies that start from now on at {@code bytesPerSecond} on average (0: unpaced),
   * replacing {@link ReplicaConfig#preCopyBytesPerSecond()} for this replica's life; a pre-copy
   * under way keeps its pace.
   */
  public void preCopyBytesPerSecond(long bytesPerSecond) {
    Checks.inRange("preCopyBytesPerSecond", bytesPerSecond, 0, ReplicaConfig.MAX_PRE_COPY_BYTES_PER_SECOND);
    runner.preCopyBytesPerSecond(bytesPerSecond);
  }

  /** Files this replica streamed to peers that copy from it. */
  public long filesServedToPeers() {
    return peerServer.filesServed();
  }

  /** A reported file's hold-off changed (a verdict came): the catch-up loop looks at it again. */
  private void onHoldChanged() {
    catchUp.wakeUp();
  }

  /**
   * Searcher of the current version. Release it with {@link #releaseSearcher}. While a resync
   * reopens the index with no earlier searcher to serve, waits for it (boundedly) and then raises
   * {@link IndexUnavailableException}; a closed replica raises {@link NodeClosedException}.
   */
  public IndexSearcher acquireSearcher() throws IOException {
    return searchers.acquire();
  }

  /**
   * Gives back a searcher from {@link #acquireSearcher()}; each acquired searcher is released exactly
   * once.
   */
  public void releaseSearcher(IndexSearcher searcher) {
    searchers.release(searcher);
  }

  /**
   * The run of the index this replica has open ({@link Incarnations}): a new value whenever it
   * opens its index from disk (start, resync), 0 while none is open. Its install reports to the
   * primary carry it.
   */
  public long incarnation() {
    ReplicatingReplicaNode n = lifecycle.node();
    return n == null ? 0 : n.incarnation();
  }

  /** The version searched now (the primary's version of the same point-in-time). */
  public long searchingVersion() {
    return searchers.searchingVersion();
  }

  /**
   * The application's source position recorded with the point-in-time searched now, or null when
   * none was ever recorded. After this replica is promoted, the application replays its source from
   * here.
   *
   * @throws IOException when it cannot be read now (closed, reopening after a resync, or the
   *     searched point-in-time cannot be read): never confused with "none recorded"
   */
  public String replayPosition() throws IOException {
    ReplicatingReplicaNode n = lifecycle.node();
    if (n == null || !n.isStarted()) {
      throw lifecycle.state() == State.CLOSED ? new NodeClosedException("replica " + log.name() + " is closed")
          : new IndexUnavailableException("replica " + log.name() + " is " + lifecycle.state() + "; retry");
    }
    try {
      return n.replayPosition(n.getCurrentSearchingVersion());
    } catch (AlreadyClosedException e) {
      throw new IndexUnavailableException("replica " + log.name() + " switched its index; retry: " + e.getMessage());
    }
  }

  /** Version of the last commit this node made (here or as primary on the same directory), or -1. */
  public long lastCommitVersion() {
    return ctx.store().committedVersion();
  }

  /** The newest version a primary announced to this replica, or -1 if none did yet. */
  public long newestAnnouncedVersion() {
    return versions.newestAnnounced();
  }

  /**
   * How many versions this replica searches behind the newest one its primary announced: 0 when
   * caught up. A replica cut off from its primary hears of nothing newer and shows 0; compare its
   * {@link #primaryGen()} and the members' reports for that case.
   */
  public long versionsBehind() {
    return versions.versionsBehind(searchingVersion());
  }

  /**
   * How long ago, in nanoseconds on this machine's clock, this replica heard of the oldest announced
   * version it does not search yet: 0 when caught up. This is how stale its searches are, from the
   * primary's announcement on.
   */
  public long nanosBehind() {
    return versions.nanosBehind(searchingVersion());
  }

  /** Primary generation of the point-in-time searched now. */
  public long primaryGen() {
    ReplicatingReplicaNode n = lifecycle.node();
    return n == null ? -1 : n.lastPrimaryGen();
  }

  /**
   * Primary generation of the copy-state the point searched now was installed from, or -1 while it
   * is a local commit this replica opened without copying it (after a restart or a step-down). A
   * copy from a new primary moves {@link #primaryGen()} when it starts, this only once it is searched.
   */
  public long installedPrimaryGen() {
    ReplicatingReplicaNode n = lifecycle.node();
    return n == null ? -1 : n.installedPrimaryGen();
  }

  /** Highest primary generation ever seen (durable). */
  public long highestPrimaryGenSeen() {
    return ctx.store().highestPrimaryGen();
  }

  /** Whether this replica holds a connection to a primary right now. */
  public boolean isConnected() {
    return link.current() != null;
  }

  /**
   * Pings the primary every {@code interval} while connected, so that {@link #lastPrimaryContact()}
   * stays fresh while it answers (a failure detector's input); call once, after opening. A
   * connection handshake counts as contact without it.
   */
  public void startHeartbeat(Duration interval) {
    link.startHeartbeat(interval);
  }

  /** The last time this replica heard from a primary (handshake or heartbeat answer), or null. */
  public PrimaryContact lastPrimaryContact() {
    return link.lastContact();
  }

  /**
   * When a connection attempt to the followed primary was last refused ({@link System#nanoTime()}),
   * or {@link Long#MIN_VALUE} if none was: a refusal means no process listens at the primary's
   * address.
   */
  public long lastPrimaryRefusalNanos() {
    return link.lastRefusedNanos();
  }

  /** True while an NRT point is being copied. */
  public boolean isCopying() {
    ReplicatingReplicaNode n = lifecycle.node();
    return n != null && n.isCopying();
  }

  /** Where this replica is in its lifecycle (a snapshot). */
  public State state() {
    return lifecycle.state();
  }

  /**
   * Local files found corrupt (at start or by the scrub) and not yet replaced by a copy from a
   * primary, sorted; empty when none. Durable across restarts. While it is not empty this node must
   * not lead: it holds no complete, verified index.
   */
  public List<String> corruptFiles() {
    return integrity.corruptFiles();
  }

  /** A read failed, then {@code fileName} its checksum: repaired as after the scrub, on the replica's own executor. */
  public void corruptFileRead(String fileName) {
    readRepairs.submit(fileName);
  }

  /** This node's id. */
  public int nodeId() {
    return config.nodeId();
  }

  /** This replica's copy counters since it opened (bytes, files, checksum mismatches, peers). */
  public ReplicaStats stats() {
    return ctx.stats();
  }

  /** The transport this replica uses (for its fault-injection statistics). */
  public Transport transport() {
    return transport;
  }

  /** Follow the primary at {@code address} from now on. */
  public void setPrimary(NodeAddress address) {
    link.retarget(address);
  }

  /** Called with each new version this replica starts searching (on a copy thread: be quick). */
  public void addVersionListener(LongConsumer listener) {
    versions.addVersionListener(listener);
  }

  /**
   * Called with the timeline of each NRT copy installed ({@link CopyPhases}), on a copy thread: be
   * quick. For benchmarks that break the replica's lag into its steps.
   */
  public void addCopyPhasesListener(Consumer<CopyPhases> listener) {
    versions.addCopyPhasesListener(listener);
  }

  /**
   * Checks a primary's NRT point announcement the way the wire path does: refuses a stale
   * generation, otherwise starts catching up to it. For tools and tests that drive a replica.
   */
  public void onNrtPoint(long primaryGen, long version) throws IOException {
    try {
      linkEvents.onNrtPoint(primaryGen, version);
    } catch (IOException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException(e);
    }
  }

  /** Durably commits the point-in-time searched now, independently of the primary. */
  public void commit() throws IOException {
    ReplicatingReplicaNode n = lifecycle.node();
    if (lifecycle.state() != State.RUNNING || n == null) {
      throw new NodeClosedException("replica " + log.name() + " is " + lifecycle.state());
    }
    n.commit();
  }

  /**
   * Stops copying, closes the link and the index. Commits what it searches first when {@code
   * commitOnClose} is set (the default), so a restart only copies what changed meanwhile.
   */
  @Override
  public void close() throws IOException {
    close(config.commitOnClose(), true);
  }

  /**
   * Stops like {@link #close()} but never commits: what is on disk is what a crash would leave. A
   * restart copies whatever the last explicit commit lacks.
   */
  public void closeWithoutCommit() throws IOException {
    close(false, false);
  }

  /** {@code clean}: the next process may trust the record of verified files (a halt must look like a crash). */
  private void close(boolean commitFirst, boolean clean) throws IOException {
    if (lifecycle.state() == State.CLOSED) {
      return;
    }
    if (commitFirst && lifecycle.state() == State.RUNNING) {
      try {
        commit();
      } catch (IOException | RuntimeException e) {
        log.warn("commit on close failed; a restart copies more", e);
      }
    }
    ReplicaLifecycle.Taken taken = lifecycle.close();
    if (taken == null) {
      return;
    }
    // The catch-up thread and the scrub reopen the index: once they are gone, no node can be
    // opened behind our back.
    peerServer.unregister(config.index());
    scrubber.close(config.closeTimeout().toMillis());
    readRepairs.close(config.closeTimeout().toMillis());
    catchUp.close(config.closeTimeout().toMillis());
    link.close();
    runner.close(config.closeTimeout().toMillis());
    try {
      opener.closeLast(taken.node(), clean);
    } finally {
      fallback.release();
      if (ownsTransport) {
        transport.close();
      }
      log.info("replica closed");
    }
  }

  private void closeQuietly() {
    try {
      close(false, false);
    } catch (IOException | RuntimeException e) {
      log.warn("close after failed start", e);
    }
  }
}

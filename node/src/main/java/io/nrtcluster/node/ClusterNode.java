package io.nrtcluster.node;

import io.nrtcluster.common.CorruptIndexReadException;
import io.nrtcluster.common.ExecutorSource;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.NotPrimaryException;
import io.nrtcluster.common.Stable;
import io.nrtcluster.election.ElectionConfig;
import io.nrtcluster.election.InSyncRecord;
import io.nrtcluster.election.IndexElection;
import io.nrtcluster.election.MemberInfo;
import io.nrtcluster.election.MemberIntegrity;
import io.nrtcluster.election.Role;
import io.nrtcluster.primary.Primary;
import io.nrtcluster.replica.Replica;
import io.nrtcluster.transport.Traffic;
import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.slf4j.LoggerFactory;

/**
 * One index on one node of a cluster: the embeddable entry point. The election decides whether it
 * is the primary or a replica; this class switches between a {@link Primary} and a {@link Replica}
 * on the same data directory accordingly.
 *
 * <p>Guarantees: searching works in every role (briefly waiting while a role switch is under way);
 * writes, refreshes and commits as primary are accepted only while this node holds the current
 * epoch and ZooKeeper contact, otherwise they fail at once with {@link NotPrimaryException} naming
 * the primary's address when known; a primary whose Lucene writer is lost (a tragic event:
 * corruption, a full disk, a fatal I/O error) refuses writes with {@code WriterLostException} and
 * gives its epoch up, and one whose data directory is below its free-space floor ({@link
 * HostConfig#minFreeDiskBytes}) refuses writes with {@code InsufficientStorageException} until
 * space returns; {@link #isWritablePrimary()}, {@link #status()} and the member record say false
 * whenever a write would be refused, and why; a node that loses its epoch drops what it never replicated and
 * rejoins as a replica; a read of a document that fails on possibly corrupt bytes ({@link
 * #storedFields}, {@link #reportUnreadable}) gets the retryable {@link CorruptIndexReadException}
 * and has its segment's checksums checked at once; the application's replay position travels with each refresh so that after a
 * failover {@link #replayPosition()} on the new primary says where to replay from.
 */
@Stable
public final class ClusterNode implements Closeable {
  private final NrtHost host;
  private final IndexSettings settings;
  private final NodeLog log;
  private final RoleChanges roleChanges;
  private final RoleSwitch roles;
  private final RoleOperations operations;
  private final ProgressReporter progress;
  private final IndexMetrics metrics;
  private final Writability writability;
  private final HealthWatches health;
  private final InSyncSet inSync;
  private OperatorChannel operators;

  private ClusterNode(NrtHost host, IndexSettings settings) {
    this.host = host;
    this.settings = settings;
    this.log = new NodeLog(LoggerFactory.getLogger(ClusterNode.class), "N" + host.nodeId() + "/" + settings.name(), this::primaryGen);
    this.roles = new RoleSwitch(host, settings, log, this::metrics, this::afterSwitch);
    DiskFloor floor = DiskFloor.of(host.config().dataDir().resolve(settings.name()), host.config(), log);
    this.health = new HealthWatches(host, settings, roles, floor, log, this::metrics);
    this.inSync = new InSyncSet(log, host.executors().serial(ExecutorSource.Pool.ELECTION,
        "nrt-insync-" + host.nodeId() + "-" + settings.name()), host.config().inSyncTimeout(), settings.minInSyncReplicas(),
        System::nanoTime);
    this.operations = new RoleOperations(roles, host.nodeId(), settings.name(), this::metrics,
        host.config().connectionTimeout().toMillis(), health.lostWriter(), floor, inSync);
    this.writability = new Writability(roles, floor);
    this.progress = new ProgressReporter(host, settings.name(), roles, log, this::periodic, floor, writability);
    this.roleChanges = new RoleChanges(this, host, roles, inSync, progress, this::metrics, log);
    // Last: the gauges may read this node as soon as they are registered.
    this.metrics = host.metricsFor(this);
  }

  static ClusterNode open(NrtHost host, IndexSettings settings, RoleListener... listeners) throws IOException {
    ClusterNode node = new ClusterNode(host, settings);
    for (RoleListener l : listeners) {
      node.roleChanges.addListener(l);
    }
    try {
      node.start();
    } catch (IOException | RuntimeException e) {
      node.close();
      throw e;
    }
    return node;
  }

  private void start() throws IOException {
    roles.openFirstReplica();
    ElectionConfig ec = host.electionConfig(settings.name());
    IndexElection election = new IndexElection(host.zooKeeper(), ec, progress.memberInfo(), roles, host.executors());
    election.usePlacement(host.placement());
    election.standingFrom(() -> roles.snapshot().standing());
    roles.attach(election);
    election.start();
    operators = new OperatorChannel(host.zooKeeper(), ec.layout(), this, host.nodeId(), log, host.executors());
    operators.start();
    progress.start();
  }

  /** A role switch happened (outside the switch lock): see {@link RoleChanges}. */
  private void afterSwitch(Role role, long gen) {
    roleChanges.switched(role, gen);
  }

  private IndexMetrics metrics() {
    return metrics;
  }

  /**
   * Every progress report (about every 100 ms): the followed primary's silence is judged here, a
   * lost writer is noticed here when nothing writes, and the primary's scrub follows the role.
   */
  private void periodic() {
    health.tick();
    inSync.tick();
    roles.dropBridgeOnceFollowing();
    metrics.sample(this);
  }

  /**
   * Stops acknowledging writes for a hand-off to {@code target} and returns the primary, once no
   * admitted write is in flight; null when this node is not a leading primary.
   */
  Primary beginHandoff(int target) throws IOException {
    return roles.beginHandoff(target);
  }

  /** A hand-off did not happen: writes resume if this node still holds its epoch. */
  void abortHandoff(String why) throws IOException {
    roles.abortHandoff(why);
  }

  IndexElection election() {
    return roles.election();
  }

  NodeLog log() {
    return log;
  }

  /** The index's name. */
  public String index() {
    return settings.name();
  }

  /**
   * The bytes this node's transport exchanged with each peer for this index since its host started,
   * counted by the transport at the socket (over every connection, closed ones included): on a
   * primary, what it sent each replica; on a replica, what it received from each primary it followed.
   */
  public Map<Integer, Traffic> trafficByPeer() {
    return host.transport().trafficByPeer(index());
  }

  /** The role operators see (derived from {@link #state()}). */
  public Role role() {
    return roles.role();
  }

  IndexSnapshot snapshotForTests() {
    return roles.snapshot();
  }

  /** The index's state on this node now (one snapshot; never blocks). */
  public IndexState state() {
    return roles.snapshot().state();
  }

  /**
   * True when this node accepts writes right now; when not, {@link #status()} says why ({@link
   * NodeStatus#notWritable()}).
   */
  public boolean isWritablePrimary() {
    return writability.reason() == null;
  }

  /**
   * True while this node leads its epoch with a writer that is not lost, whether or not a write
   * would pass its disk floor: a hand-off away from it may start.
   */
  boolean leads() {
    return roles.isWritablePrimary();
  }

  /**
   * Tells {@code listener} of every later change of this node's role for the index, on the election
   * thread (be quick).
   */
  public void addRoleListener(RoleListener listener) {
    roleChanges.addListener(listener);
  }

  /** Adds a document (primary only). */
  public void addDocument(Iterable<? extends IndexableField> doc) throws IOException {
    operations.write("add a document", w -> w.addDocument(doc));
  }

  /** Replaces the documents matching {@code term} with {@code doc} (primary only). */
  public void updateDocument(Term term, Iterable<? extends IndexableField> doc) throws IOException {
    operations.write("update a document", w -> w.updateDocument(term, doc));
  }

  /** Deletes the documents matching any of {@code terms} (primary only). */
  public void deleteDocuments(Term... terms) throws IOException {
    operations.write("delete documents", w -> w.deleteDocuments(terms));
  }

  /** Deletes the documents matching any of {@code queries} (primary only). */
  public void deleteDocuments(Query... queries) throws IOException {
    operations.write("delete documents", w -> w.deleteDocuments(queries));
  }

  /**
   * Makes everything written so far searchable on every node; returns the new version. The
   * acknowledgement is {@link Durability#LOCAL}: see {@link #refresh(Durability)}.
   */
  public long refresh() throws IOException {
    return refresh((String) null);
  }

  /**
   * Like {@link #refresh()}, recording the application's source position (for example a queue
   * offset) with the new version; it travels to replicas and into commits.
   */
  public long refresh(String sourcePosition) throws IOException {
    return operations.refresh(sourcePosition, Durability.LOCAL).version();
  }

  /**
   * Makes everything written so far searchable (primary only) and returns once it is acknowledged
   * with {@code durability}:
   *
   * <ul>
   *   <li>{@link Durability#LOCAL}: returns once the version is published (ZooKeeper recorded it
   *       while this node held its epoch). Kept through any replica's loss, and through a partition
   *       of this primary as long as it keeps leading; lost if this primary dies or is deposed before
   *       a replica that then wins the election installed it (the application replays it from its
   *       own source, {@link #replayPosition()}).
   *   <li>{@link Durability#REPLICATED}: returns once every replica of the index's in-sync set, and
   *       at least {@link IndexSettings#minInSyncReplicas()} replicas, installed the version. Only
   *       in-sync replicas are elected (or promoted without {@code --force}), and a replica leaves
   *       the set (in ZooKeeper, checked against this node's epoch) before this node acknowledges
   *       anything it lacks, so the version survives the crash or partition of any one node, this
   *       primary included, and of more as long as one node that held it keeps running. It is lost
   *       only when every node that held it loses its memory at once (each restarts from its last
   *       commit: use {@link #commit(Durability)} for that), or when an operator forces a promotion.
   *       A replica that lacks the version for {@link HostConfig#inSyncTimeout()} after its
   *       publication leaves the set, so the call waits at most that long (plus a ZooKeeper write).
   * </ul>
   *
   * @throws io.nrtcluster.common.NotEnoughReplicasException fewer in-sync replicas than {@code
   *     minInSyncReplicas} hold the version: it is published and searchable but not acknowledged
   * @throws io.nrtcluster.common.NotPrimaryException this node is not (or no longer) the primary:
   *     nothing acknowledged
   * @throws io.nrtcluster.common.NotPublishedException ZooKeeper could not record the version or the
   *     in-sync set: not acknowledged, retry
   */
  public Acknowledgement refresh(Durability durability) throws IOException {
    return refresh(null, durability);
  }

  /** {@link #refresh(Durability)}, recording {@code sourcePosition} as {@link #refresh(String)} does. */
  public Acknowledgement refresh(String sourcePosition, Durability durability) throws IOException {
    return operations.refresh(sourcePosition, Objects.requireNonNull(durability, "durability"));
  }

  /** Durably commits what this node searches (any role). */
  public void commit() throws IOException {
    operations.commit();
  }

  /**
   * On the primary: with {@link Durability#REPLICATED} first {@link #refresh(Durability) refreshes}
   * with that guarantee (everything written before the call is then held by every in-sync replica),
   * then commits on this node, so the writes also survive this node's restart; with {@link
   * Durability#LOCAL} commits only ({@link #commit()}). Returns the refresh's acknowledgement (for
   * LOCAL: the version searched, no replicas named). Writes made while it runs may be in the commit
   * without being covered by the acknowledgement.
   */
  public Acknowledgement commit(Durability durability) throws IOException {
    if (Objects.requireNonNull(durability, "durability") == Durability.REPLICATED) {
      Acknowledgement a = refresh(durability);
      commit();
      return a;
    }
    commit();
    return new Acknowledgement(searchingVersion(), Durability.LOCAL, List.of());
  }

  /** The index's in-sync set as this node, leading, last stored it; null when it does not lead (or has not yet). */
  public InSyncRecord inSyncSet() {
    return inSync.current();
  }

  /**
   * The index's in-sync set as this node's ZooKeeper cache last saw it, in any role (null: none
   * recorded, or the election has not started): no round trip, for status pages.
   */
  public InSyncRecord cachedInSyncSet() {
    IndexElection e = roles.election();
    return e == null ? null : e.cachedView().inSync();
  }

  /** A searcher of the current version, in any role; release it with {@link #releaseSearcher}. */
  public IndexSearcher acquireSearcher() throws IOException {
    return operations.acquireSearcher();
  }

  /**
   * Gives back a searcher from {@link #acquireSearcher()}; each acquired searcher is released exactly
   * once.
   */
  public void releaseSearcher(IndexSearcher searcher) throws IOException {
    searcher.getIndexReader().decRef();
  }

  /**
   * The stored fields of {@code searcher} (one of this node's), for reading the documents of hits:
   * a read that fails on possibly corrupt bytes (any I/O or runtime error of the codec: Lucene's
   * {@code CorruptIndexException}, LZ4's {@code IOException} for an invalid offset, the {@code
   * ArrayIndexOutOfBoundsException} that rot in compressed stored fields often gives) raises {@link
   * CorruptIndexReadException} instead, after {@link #reportUnreadable} queued the check of the
   * document's segment. A closed reader's error passes through unchanged.
   */
  public StoredFields storedFields(IndexSearcher searcher) throws IOException {
    return new CheckedStoredFields(searcher.storedFields(), searcher, health.reads());
  }

  /**
   * Reports that document {@code docId} of {@code searcher} (a searcher of this node, not released
   * yet) cannot be read or decoded because of {@code cause}, for example a stored value that is not
   * what the application wrote (rot in compressed stored fields usually yields such bytes rather
   * than an exception); {@code docId} -1 when the failing document is not known (then every segment
   * of the searcher is checked). Returns at once with the error to throw; meanwhile the whole
   * checksum of every file of the document's segment is checked (at most once a minute per segment)
   * and a corrupt file is quarantined and copied again (replica) or steps this primary down (a
   * tragic event of its writer); either way this node ranks in no election while it holds the file.
   */
  public CorruptIndexReadException reportUnreadable(IndexSearcher searcher, int docId, Throwable cause) {
    return health.reads().report(searcher, docId, cause);
  }

  /** Version searched now. */
  public long searchingVersion() {
    return roles.searchingVersion();
  }

  /** Generation led (primary) or followed (replica). */
  public long primaryGen() {
    return roles.primaryGen();
  }

  /**
   * The application source position of the newest point-in-time this node holds: after a failover,
   * the new primary's answer is where the application replays its own source from. Null if the
   * application never gave one.
   *
   * @throws IOException when it cannot be read (the index is closed, switching, or unreadable):
   *     never confused with "none recorded"
   */
  public String replayPosition() throws IOException {
    return roles.replayPosition();
  }

  /** The primary's address as this node knows it (itself when primary), or null. */
  public String primaryAddress() {
    return roles.primaryAddress();
  }

  /** The replica of this node while it is one (for its statistics), else null. */
  public Replica replica() {
    return roles.replica();
  }

  /**
   * The primary of this node while it is one, else null. Not public: its writer, refresh and commit
   * skip the admission check, the disk floor and the lost-writer check that this class's own
   * methods make ({@link ClusterNodeInternals#primaryOf} for nrtcluster's own modules and tests).
   */
  Primary primary() {
    return roles.primary();
  }

  /** Every live member of this index as ZooKeeper has them now. */
  public List<MemberInfo> members() throws IOException {
    return roles.election().members();
  }

  /**
   * Every live member of this index as this node's ZooKeeper cache last saw them: no round trip, so
   * it answers at once even while ZooKeeper is unreachable (possibly a moment behind it); empty
   * before the election started and after close. For status pages and routing.
   */
  public List<MemberInfo> cachedMembers() {
    IndexElection e = roles.election();
    return e == null ? List.of() : e.cachedMembers();
  }

  /**
   * The primary generation this node's suspicion in ZooKeeper names (it cannot reach the primary
   * it follows; see {@link HostConfig#suspicionDelay}), or -1 when it holds none.
   */
  public long suspectedEpoch() {
    IndexElection e = roles.election();
    return e == null ? -1 : e.suspectedEpoch();
  }

  /** This node's role, generation, versions and copy state for the index: one snapshot, never blocks. */
  public NodeStatus status() {
    return progress.status();
  }

  /**
   * What this node knows of its local files now, as its member record says it (one snapshot, never
   * blocks): whether it may lead, and the corrupt files it has not replaced yet.
   */
  public MemberIntegrity integrity() {
    return progress.memberInfo().integrity();
  }

  /**
   * Leaves gracefully: commits what it holds, resigns the primary role (so the others elect at once)
   * and closes the index.
   */
  @Override
  public void close() throws IOException {
    if (roles.isClosed()) {
      return;
    }
    try {
      commit();
    } catch (IOException | RuntimeException e) {
      log.warn("commit on close failed: {}", e.toString());
    }
    stop(true);
  }

  /** Stops taking part in the election at once, without resigning (the host is halting). */
  void leaveElectionAbruptly() {
    leaveElection(false, false);
  }

  /**
   * Stops this node's own work on the index and leaves its election: resigning when {@code resign},
   * else abandoning it; {@code closeAll} closes the in-sync set and the read checks too (a stop), where
   * a host that halts only stops the in-sync set leading.
   */
  private void leaveElection(boolean resign, boolean closeAll) {
    roles.beginClose();
    progress.stop();
    if (closeAll) {
      inSync.close();
    } else {
      inSync.stop();
    }
    health.stop(closeAll);
    if (operators != null) {
      operators.close();
    }
    IndexElection election = roles.election();
    if (election != null) {
      if (resign) {
        election.close();
      } else {
        election.abandon();
      }
    }
  }

  /** Stops without committing or resigning (the host is halting as if it crashed). */
  void halt() {
    try {
      stop(false);
    } catch (IOException | RuntimeException e) {
      log.debug("halt: {}", e.toString());
    }
  }

  /** Leaves the election (resigning when graceful) and closes whichever role is open. */
  private void stop(boolean graceful) throws IOException {
    leaveElection(graceful, true);
    try {
      roles.closeRoles(graceful);
    } finally {
      metrics.close();
      host.forget(this);
    }
  }
}

package io.nrtcluster.node;

import io.nrtcluster.common.NamedThreadFactory;
import io.nrtcluster.common.NodeClosedException;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.NotPrimaryException;
import io.nrtcluster.election.ElectionConfig;
import io.nrtcluster.election.ElectionListener;
import io.nrtcluster.election.IndexElection;
import io.nrtcluster.election.MemberInfo;
import io.nrtcluster.election.PrimaryInfo;
import io.nrtcluster.election.Role;
import io.nrtcluster.election.ZkLayout;
import io.nrtcluster.primary.Primary;
import io.nrtcluster.primary.PrimaryConfig;
import io.nrtcluster.replica.Replica;
import io.nrtcluster.replica.ReplicaConfig;
import io.nrtcluster.transport.NodeAddress;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexableField;
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
 * the primary's address when known; a node that loses its epoch drops what it never replicated and
 * rejoins as a replica; the application's replay position travels with each refresh so that after a
 * failover {@link #replayPosition()} on the new primary says where to replay from.
 */
public final class ClusterNode implements Closeable {
  private final NrtHost host;
  private final IndexSettings settings;
  private final Path dataDir;
  private final NodeLog log;
  private final ReentrantReadWriteLock switchLock = new ReentrantReadWriteLock();
  private final List<RoleListener> roleListeners = new CopyOnWriteArrayList<>();
  private final ScheduledExecutorService reporter;
  private final IndexMetrics metrics;
  private IndexElection election;
  private OperatorChannel operators;
  private volatile Primary primary;
  private volatile Replica replica;
  private volatile boolean writable;
  private volatile PrimaryInfo followed;
  private volatile MemberInfo lastReported;
  private volatile boolean closed;

  private ClusterNode(NrtHost host, IndexSettings settings) {
    this.host = host;
    this.settings = settings;
    this.dataDir = host.config().dataDir().resolve(settings.name());
    this.log = new NodeLog(LoggerFactory.getLogger(ClusterNode.class), "N" + host.nodeId() + "/" + settings.name(), this::primaryGen);
    this.reporter = Executors.newSingleThreadScheduledExecutor(new NamedThreadFactory("nrt-report-" + host.nodeId() + "-" + settings.name()));
    // Last: the gauges may read this node as soon as they are registered.
    this.metrics = host.metricsFor(this);
  }

  static ClusterNode open(NrtHost host, IndexSettings settings, RoleListener... listeners) throws IOException {
    ClusterNode node = new ClusterNode(host, settings);
    node.roleListeners.addAll(java.util.List.of(listeners));
    try {
      node.start();
    } catch (IOException | RuntimeException e) {
      node.close();
      throw e;
    }
    return node;
  }

  private void start() throws IOException {
    replica = openReplica(null);
    ElectionConfig ec = ElectionConfig.builder()
        .layout(ZkLayout.of(host.config().cluster(), settings.name()))
        .nodeId(host.nodeId())
        .address(host.address().toString())
        .settleTime(host.config().electionSettle())
        .retryInterval(host.config().electionSettle())
        .zkTimeout(host.config().connectionTimeout())
        .automatic(host.config().automaticFailover())
        .build();
    election = new IndexElection(host.curator(), ec, memberInfo(), new Listener());
    election.start();
    operators = new OperatorChannel(host.curator(), ec.layout(), this, host.nodeId(), log);
    try {
      operators.start();
    } catch (Exception e) {
      throw new io.nrtcluster.common.ConnectionException("watching operator requests failed: " + e, e);
    }
    reporter.scheduleWithFixedDelay(this::report, 100, 100, TimeUnit.MILLISECONDS);
  }

  private Replica openReplica(NodeAddress primaryAddress) throws IOException {
    return Replica.open(replicaConfig(primaryAddress), host.transport(), metrics.replicaObserver());
  }

  private ReplicaConfig replicaConfig(NodeAddress primaryAddress) {
    return ReplicaConfig.builder()
        .nodeId(host.nodeId())
        .cluster(host.config().cluster())
        .index(settings.name())
        .dataDir(dataDir)
        .primary(primaryAddress)
        .reconnectMin(Duration.ofMillis(50))
        .reconnectMax(Duration.ofSeconds(2))
        .transport(host.config().transport())
        .build();
  }

  private final class Listener implements ElectionListener {
    @Override
    public void becomePrimary(long primaryGen, long forceVersion) throws IOException {
      switchLock.writeLock().lock();
      try {
        ensureOpen();
        Replica r = replica;
        if (r != null) {
          // The writer opens this node's last commit: make it the point-in-time it searches now.
          r.commit();
          r.close();
          replica = null;
        }
        PrimaryConfig pc = PrimaryConfig.builder()
            .nodeId(host.nodeId())
            .cluster(host.config().cluster())
            .index(settings.name())
            .dataDir(dataDir)
            .bindHost(host.config().bindHost())
            .primaryGen(primaryGen)
            .forcePrimaryVersion(forceVersion)
            .transport(host.config().transport())
            .build();
        Primary p = Primary.open(pc, settings.writerConfig().get(), host.transport());
        p.setObserver(metrics.primaryObserver());
        p.setPublishGate(version -> election.publishVersion(version));
        primary = p;
        election.publishVersion(p.version());
        followed = null;
        writable = true;
        log.info("primary of epoch {} at version {} (replay from {})", primaryGen, p.version(), p.replayPosition());
      } finally {
        switchLock.writeLock().unlock();
      }
      report();
      fireRoleChange(Role.PRIMARY, primaryGen);
    }

    @Override
    public void followPrimary(PrimaryInfo info) throws IOException {
      followed = info;
      NodeAddress address = NodeAddress.parse(info.address());
      switchLock.writeLock().lock();
      try {
        ensureOpen();
        Replica r = replica;
        if (r == null) {
          replica = openReplica(address);
        } else {
          r.setPrimary(address);
        }
      } finally {
        switchLock.writeLock().unlock();
      }
      fireRoleChange(Role.REPLICA, info.primaryGen());
    }

    @Override
    public void fenced() {
      writable = false;
    }

    @Override
    public void unfenced() {
      writable = primary != null;
    }

    @Override
    public void stepDown() throws IOException {
      writable = false;
      switchLock.writeLock().lock();
      try {
        Primary p = primary;
        primary = null;
        if (p != null) {
          // Rolls back to the last commit: whatever was never replicated is dropped here; the new
          // primary's point-in-time replaces it.
          p.close();
        }
        if (!closed && replica == null) {
          PrimaryInfo f = followed;
          replica = openReplica(f == null ? null : NodeAddress.parse(f.address()));
        }
      } finally {
        switchLock.writeLock().unlock();
      }
      log.warn("stepped down; rejoined as a replica");
      fireRoleChange(Role.REPLICA, -1);
    }
  }

  private void fireRoleChange(Role role, long gen) {
    if (gen >= 0) {
      metrics.generationSeen(gen);
    }
    for (RoleListener l : roleListeners) {
      try {
        l.onRoleChange(this, role, gen);
      } catch (RuntimeException e) {
        log.warn("role listener failed", e);
      }
    }
  }

  /** Publishes this node's progress to its member znode when it changed. */
  private void report() {
    if (closed || election == null) {
      return;
    }
    try {
      MemberInfo info = memberInfo();
      if (!info.equals(lastReported)) {
        lastReported = info;
        election.update(info);
      }
      metrics.sample(this);
    } catch (RuntimeException e) {
      log.debug("progress report failed: {}", e.toString());
    }
  }

  private MemberInfo memberInfo() {
    switchLock.readLock().lock();
    try {
      Primary p = primary;
      Replica r = replica;
      Role role = election == null ? Role.JOINING : election.role();
      if (p != null) {
        return new MemberInfo(host.nodeId(), host.address().toString(), role, p.primaryGen(), p.version(), p.lastCommitVersion(), false, 0);
      }
      if (r != null) {
        return new MemberInfo(host.nodeId(), host.address().toString(), role, r.primaryGen(), r.searchingVersion(),
            r.lastCommitVersion(), r.isCopying(), r.stats().lastCopyCompletedMillis());
      }
      return new MemberInfo(host.nodeId(), host.address().toString(), role, -1, -1, -1, false, 0);
    } finally {
      switchLock.readLock().unlock();
    }
  }

  /**
   * Stops acknowledging writes for a hand-off and returns the primary, once no write is in flight
   * (taken under the write side of the switch lock); null when this node is not a writable primary.
   */
  Primary stopWritesForHandoff() {
    switchLock.writeLock().lock();
    try {
      Primary p = primary;
      if (p == null || !writable) {
        return null;
      }
      writable = false;
      return p;
    } finally {
      switchLock.writeLock().unlock();
    }
  }

  /** A hand-off did not happen: accept writes again if this node still holds its epoch. */
  void resumeWritesAfterHandoff() {
    writable = primary != null && election.role() == Role.PRIMARY;
  }

  IndexElection election() {
    return election;
  }

  NodeLog log() {
    return log;
  }

  /** The index's name. */
  public String index() {
    return settings.name();
  }

  public Role role() {
    return election == null ? Role.JOINING : election.role();
  }

  /** True when this node accepts writes right now. */
  public boolean isWritablePrimary() {
    return writable && primary != null;
  }

  public void addRoleListener(RoleListener listener) {
    roleListeners.add(listener);
  }

  private Primary requirePrimary(String what) throws NotPrimaryException {
    Primary p = primary;
    if (!writable || p == null) {
      PrimaryInfo f = followed;
      throw new NotPrimaryException("node " + host.nodeId() + " cannot " + what + " on " + settings.name(),
          f == null ? null : f.address());
    }
    return p;
  }

  /** Adds a document (primary only). */
  public void addDocument(Iterable<? extends IndexableField> doc) throws IOException {
    write("add a document", w -> w.addDocument(doc));
  }

  /** Replaces the documents matching {@code term} with {@code doc} (primary only). */
  public void updateDocument(Term term, Iterable<? extends IndexableField> doc) throws IOException {
    write("update a document", w -> w.updateDocument(term, doc));
  }

  /** Deletes the documents matching any of {@code terms} (primary only). */
  public void deleteDocuments(Term... terms) throws IOException {
    write("delete documents", w -> w.deleteDocuments(terms));
  }

  /** Deletes the documents matching any of {@code queries} (primary only). */
  public void deleteDocuments(Query... queries) throws IOException {
    write("delete documents", w -> w.deleteDocuments(queries));
  }

  @FunctionalInterface
  private interface WriteOp {
    void apply(IndexWriter writer) throws IOException;
  }

  /**
   * Runs a write under the switch lock's read side, so a hand-off (which takes the write side to
   * stop writes) knows every acknowledged write is in its final version.
   */
  private void write(String what, WriteOp op) throws IOException {
    switchLock.readLock().lock();
    try {
      op.apply(requirePrimary(what).writer());
    } finally {
      switchLock.readLock().unlock();
    }
  }

  /** Makes everything written so far searchable on every node; returns the new version. */
  public long refresh() throws IOException {
    return refresh(null);
  }

  /**
   * Like {@link #refresh()}, recording the application's source position (for example a queue
   * offset) with the new version; it travels to replicas and into commits.
   */
  public long refresh(String sourcePosition) throws IOException {
    switchLock.readLock().lock();
    try {
      Primary p = requirePrimary("refresh");
      long started = System.nanoTime();
      long version = sourcePosition == null ? p.refresh() : p.refresh(sourcePosition);
      metrics.refreshed(System.nanoTime() - started);
      return version;
    } finally {
      switchLock.readLock().unlock();
    }
  }

  /** Durably commits what this node searches (any role). */
  public void commit() throws IOException {
    switchLock.readLock().lock();
    try {
      Primary p = primary;
      if (p != null) {
        requirePrimary("commit");
        p.commit();
      } else {
        Replica r = replica;
        if (r == null) {
          throw new NodeClosedException("node " + host.nodeId() + " has no open index " + settings.name());
        }
        r.commit();
      }
    } finally {
      switchLock.readLock().unlock();
    }
  }

  /** A searcher of the current version, in any role; release it with {@link #releaseSearcher}. */
  public IndexSearcher acquireSearcher() throws IOException {
    switchLock.readLock().lock();
    try {
      ensureOpen();
      Primary p = primary;
      if (p != null) {
        return p.acquireSearcher();
      }
      Replica r = replica;
      if (r == null) {
        throw new NodeClosedException("node " + host.nodeId() + " has no open index " + settings.name());
      }
      return r.acquireSearcher();
    } finally {
      switchLock.readLock().unlock();
    }
  }

  public void releaseSearcher(IndexSearcher searcher) throws IOException {
    searcher.getIndexReader().decRef();
  }

  /** Version searched now. */
  public long searchingVersion() {
    Primary p = primary;
    if (p != null) {
      return p.version();
    }
    Replica r = replica;
    return r == null ? -1 : r.searchingVersion();
  }

  /** Generation led (primary) or followed (replica). */
  public long primaryGen() {
    Primary p = primary;
    if (p != null) {
      return p.primaryGen();
    }
    Replica r = replica;
    return r == null ? -1 : r.primaryGen();
  }

  /**
   * The application source position of the newest point-in-time this node holds: after a failover,
   * the new primary's answer is where the application replays its own source from. Null if the
   * application never gave one.
   */
  public String replayPosition() {
    Primary p = primary;
    if (p != null) {
      return p.replayPosition();
    }
    Replica r = replica;
    return r == null ? null : r.replayPosition();
  }

  /** The primary's address as this node knows it (itself when primary), or null. */
  public String primaryAddress() {
    if (primary != null) {
      return host.address().toString();
    }
    PrimaryInfo f = followed;
    return f == null ? null : f.address();
  }

  /** The replica of this node while it is one (for its statistics), else null. */
  public Replica replica() {
    return replica;
  }

  /** The primary of this node while it is one, else null. */
  public Primary primary() {
    return primary;
  }

  /** Every live member of this index as ZooKeeper has them now. */
  public List<MemberInfo> members() throws IOException {
    return election.members();
  }

  public NodeStatus status() {
    MemberInfo m = memberInfo();
    return new NodeStatus(host.nodeId(), settings.name(), host.address().toString(), role(), m.primaryGen(),
        m.searchingVersion(), m.commitVersion(), primaryAddress(), m.copying(), m.lastCopyMillis(), replayPosition());
  }

  private void ensureOpen() throws NodeClosedException {
    if (closed) {
      throw new NodeClosedException("node " + host.nodeId() + " closed index " + settings.name());
    }
  }

  /**
   * Leaves gracefully: commits what it holds, resigns the primary role (so the others elect at once)
   * and closes the index.
   */
  @Override
  public void close() throws IOException {
    if (closed) {
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
    writable = false;
    reporter.shutdownNow();
    if (operators != null) {
      operators.close();
    }
    if (election != null) {
      election.abandon();
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
    closed = true;
    writable = false;
    reporter.shutdownNow();
    if (operators != null) {
      operators.close();
    }
    if (election != null) {
      if (graceful) {
        election.close();
      } else {
        election.abandon();
      }
    }
    switchLock.writeLock().lock();
    try {
      Primary p = primary;
      Replica r = replica;
      primary = null;
      replica = null;
      if (p != null) {
        p.close();
      }
      if (r != null) {
        if (graceful) {
          r.close();
        } else {
          r.closeWithoutCommit();
        }
      }
    } finally {
      switchLock.writeLock().unlock();
      metrics.close();
      host.forget(this);
    }
  }
}

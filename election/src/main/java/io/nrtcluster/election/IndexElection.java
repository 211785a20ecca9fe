package io.nrtcluster.election;

import io.nrtcluster.common.ConnectionException;
import io.nrtcluster.common.Durations;
import io.nrtcluster.common.NamedThreadFactory;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.NotPrimaryException;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.ProtocolException;
import java.io.Closeable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.LoggerFactory;

/**
 * Membership, election and fencing of one index on one node, over a shared Curator client.
 *
 * <p>Membership: an ephemeral member znode (Curator {@code PersistentNode}, recreated after a
 * session loss) carries this node's {@link MemberInfo}. Election: when no primary znode exists, after
 * {@code settleTime} the best-ranked live member ({@link MemberInfo#rank}) increments the epoch with
 * a versioned write and creates the ephemeral primary znode in the same transaction, so at most one
 * node wins each epoch. Fencing: a primary treats SUSPENDED as loss and stops at once ({@link
 * ElectionListener#fenced()}); every version it publishes is written in a transaction that checks its
 * primary znode still exists, so a primary whose session ended cannot publish; on reconnect it
 * resumes only if the primary znode is still owned by its own session, else it steps down.
 *
 * <p>Connection-state handling per recipe: the member node re-registers by itself after a new
 * session; the cache re-syncs after reconnect and triggers a re-evaluation; the primary znode is
 * deliberately not a recipe node, so it is never recreated behind the election's back.
 */
public final class IndexElection implements Closeable {
  private final CuratorFramework client;
  private final ElectionConfig config;
  private final ZkLayout layout;
  private final ElectionListener listener;
  private final NodeLog log;
  private final ScheduledExecutorService executor;
  private final ConnectionStateListener connectionListener = this::onConnectionState;
  private final Object roleLock = new Object();
  private final FencedVersionWriter publisher;
  private PersistentNode member;
  private volatile CuratorCache cache;
  private volatile Role role = Role.JOINING;
  private volatile MemberInfo self;
  private volatile PrimaryInfo followed;
  private volatile long myEpoch = -1;
  private long noPrimarySince = -1;
  private ScheduledFuture<?> scheduled;
  private volatile boolean closed;

  public IndexElection(CuratorFramework client, ElectionConfig config, MemberInfo initial, ElectionListener listener) {
    this.client = client;
    this.config = config;
    this.layout = config.layout();
    this.listener = listener;
    this.self = initial.withRole(Role.JOINING);
    this.log = new NodeLog(LoggerFactory.getLogger(IndexElection.class), "N" + config.nodeId() + "/" + layout.index(), () -> myEpoch);
    this.publisher = new FencedVersionWriter(client, layout);
    this.executor = Executors.newSingleThreadScheduledExecutor(new NamedThreadFactory("nrt-elect-" + config.nodeId() + "-" + layout.index()));
  }

  /**
   * Registers this node and starts electing/following. Fails with {@link ConnectionException} when
   * ZooKeeper cannot be reached within the configured timeout.
   */
  public void start() throws NrtClusterException {
    long timeout = config.zkTimeout().toMillis();
    try {
      if (!client.blockUntilConnected((int) timeout, TimeUnit.MILLISECONDS)) {
        throw new ConnectionException("ZooKeeper at " + client.getZookeeperClient().getCurrentConnectionString()
            + " unreachable within " + Durations.format(config.zkTimeout()));
      }
      ensurePath(layout.members(), null);
      ensurePath(layout.epoch(), "0".getBytes(StandardCharsets.UTF_8));
      member = new PersistentNode(client, CreateMode.EPHEMERAL, false, layout.member(config.nodeId()), self.encode());
      member.start();
      if (!member.waitForInitialCreate(timeout, TimeUnit.MILLISECONDS)) {
        throw new ConnectionException("could not register member " + layout.member(config.nodeId()) + " within " + Durations.format(config.zkTimeout()));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConnectionException("interrupted while joining the cluster", e);
    } catch (NrtClusterException e) {
      closeQuietly();
      throw e;
    } catch (Exception e) {
      closeQuietly();
      throw new ConnectionException("joining the cluster in ZooKeeper failed: " + e, e);
    }
    cache = CuratorCache.build(client, layout.indexPath());
    cache.listenable().addListener(CuratorCacheListener.builder().forAll((type, before, after) -> scheduleEvaluate(0)).build());
    cache.start();
    client.getConnectionStateListenable().addListener(connectionListener);
    log.info("joined {} as member {} at {}", layout.indexPath(), config.nodeId(), config.address());
    scheduleEvaluate(0);
  }

  private void ensurePath(String path, byte[] data) throws Exception {
    try {
      if (data == null) {
        client.create().creatingParentContainersIfNeeded().forPath(path);
      } else {
        client.create().creatingParentContainersIfNeeded().forPath(path, data);
      }
    } catch (KeeperException.NodeExistsException e) {
      // Already there: another node created it first.
    }
  }

  public Role role() {
    return role;
  }

  /** The primary this node follows, or (when primary) itself; empty when none is known. */
  public Optional<PrimaryInfo> primary() {
    if (role == Role.PRIMARY) {
      return Optional.of(new PrimaryInfo(config.nodeId(), config.address(), myEpoch));
    }
    return Optional.ofNullable(followed);
  }

  /** The epoch this node holds as primary, or -1. */
  public long epoch() {
    return myEpoch;
  }

  /** Publishes this node's latest progress in its member znode (role is filled in here). */
  public void update(MemberInfo info) {
    MemberInfo withRole = info.withRole(role);
    self = withRole;
    PersistentNode m = member;
    if (m != null && !closed) {
      try {
        m.setData(withRole.encode());
      } catch (Exception e) {
        log.debug("member update not written now (it is re-sent with the next one): {}", e.toString());
      }
    }
  }

  /** Every live member as ZooKeeper has them now. */
  public List<MemberInfo> members() throws NrtClusterException {
    try {
      return readMembers();
    } catch (Exception e) {
      throw new ConnectionException("reading members from ZooKeeper failed: " + e, e);
    }
  }

  /**
   * Every live member as this node's ZooKeeper cache last saw them, sorted by node id: no round trip
   * to ZooKeeper (cheap enough for metrics), but possibly a moment behind it; empty before {@link
   * #start} and after close. Malformed entries are skipped.
   */
  public List<MemberInfo> cachedMembers() {
    CuratorCache c = cache;
    if (c == null) {
      return List.of();
    }
    String prefix = layout.members() + "/";
    List<MemberInfo> out = new ArrayList<>();
    c.stream()
        .filter(d -> d.getPath().startsWith(prefix) && d.getPath().indexOf('/', prefix.length()) < 0 && d.getData() != null)
        .forEach(d -> {
          try {
            out.add(MemberInfo.decode(d.getData()));
          } catch (ProtocolException e) {
            // Reported by the election's own reads; metrics just skip it.
          }
        });
    out.sort(Comparator.comparingInt(MemberInfo::nodeId));
    return out;
  }

  /**
   * Records {@code version} as published, only while this node still holds its epoch in ZooKeeper
   * (checked in the same transaction). Call before telling replicas about the version; a {@link
   * NotPrimaryException} means it must not be published.
   */
  public void publishVersion(long version) throws NrtClusterException {
    if (role != Role.PRIMARY) {
      throw notPrimary("publishing version " + version);
    }
    publisher.publish(version, () -> notPrimary("publishing version " + version + ": the epoch is no longer ours"));
  }

  private NotPrimaryException notPrimary(String what) {
    PrimaryInfo p = followed;
    return new NotPrimaryException("node " + config.nodeId() + " is not the primary of " + layout.index() + ": " + what,
        p == null ? null : p.address());
  }

  /**
   * Gives up the primary role on purpose (graceful shutdown or hand-off): deletes the primary znode if
   * this session owns it, so the others elect at once instead of after a session timeout.
   */
  public void resign() {
    executor.execute(this::resignNow);
    try {
      executor.submit(() -> {}).get(config.zkTimeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      log.warn("resigning did not finish in time: {}", e.toString());
    }
  }

  private void resignNow() {
    try {
      Stat st = client.checkExists().forPath(layout.primary());
      if (st != null && st.getEphemeralOwner() == sessionId()) {
        client.delete().withVersion(st.getVersion()).forPath(layout.primary());
        log.info("resigned as primary of epoch {}", myEpoch);
      }
    } catch (Exception e) {
      log.warn("resigning failed: {}", e.toString());
    }
  }

  private void onConnectionState(CuratorFramework c, ConnectionState state) {
    switch (state) {
      case SUSPENDED, LOST -> {
        synchronized (roleLock) {
          if (role == Role.PRIMARY) {
            role = role.moveTo(Role.FENCED);
            log.warn("ZooKeeper connection {}: fenced, no more writes until the epoch is confirmed", state);
            listener.fenced();
          }
        }
      }
      case CONNECTED, RECONNECTED -> scheduleEvaluate(0);
      default -> {}
    }
  }

  private void scheduleEvaluate(long delayMillis) {
    if (closed) {
      return;
    }
    synchronized (this) {
      if (scheduled != null && !scheduled.isDone() && scheduled.getDelay(TimeUnit.MILLISECONDS) <= delayMillis) {
        return;
      }
      if (scheduled != null) {
        scheduled.cancel(false);
      }
      scheduled = executor.schedule(this::evaluateSafely, delayMillis, TimeUnit.MILLISECONDS);
    }
  }

  private void evaluateSafely() {
    synchronized (this) {
      // This run is under way: later requests must schedule a new one.
      scheduled = null;
    }
    try {
      evaluate();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      if (!closed) {
        log.warn("election step failed; retrying: {}", e.toString());
        scheduleEvaluate(config.retryInterval().toMillis());
      }
    }
  }

  private void evaluate() throws Exception {
    if (closed || client.getState() != CuratorFrameworkState.STARTED || !client.getZookeeperClient().isConnected()) {
      return;
    }
    Stat stat = new Stat();
    PrimaryInfo current;
    try {
      current = PrimaryInfo.decode(client.getData().storingStatIn(stat).forPath(layout.primary()));
    } catch (KeeperException.NoNodeException e) {
      current = null;
    }
    if (current != null) {
      noPrimarySince = -1;
      if (current.nodeId() == config.nodeId()) {
        if (stat.getEphemeralOwner() == sessionId()) {
          if (role == Role.FENCED) {
            synchronized (roleLock) {
              role = role.moveTo(Role.PRIMARY);
            }
            log.info("ZooKeeper contact back and epoch {} still ours: writes resume", myEpoch);
            listener.unfenced();
          }
          return;
        }
        // A primary znode with our id from another session is our own earlier incarnation: dead.
        log.info("removing the primary znode of an earlier session of this node (epoch {})", current.primaryGen());
        try {
          client.delete().withVersion(stat.getVersion()).forPath(layout.primary());
        } catch (KeeperException.NoNodeException | KeeperException.BadVersionException e) {
          // Gone already.
        }
        scheduleEvaluate(0);
        return;
      }
      if (role == Role.PRIMARY || role == Role.FENCED) {
        stepDown("node " + current.nodeId() + " holds epoch " + current.primaryGen());
      }
      if (!current.equals(followed)) {
        followed = current;
        synchronized (roleLock) {
          role = role.moveTo(Role.REPLICA);
        }
        log.info("following primary {} at {} (epoch {})", current.nodeId(), current.address(), current.primaryGen());
        listener.followPrimary(current);
      }
      return;
    }
    if (role == Role.PRIMARY || role == Role.FENCED) {
      stepDown("the primary znode of epoch " + myEpoch + " is gone");
    }
    followed = null;
    long now = System.nanoTime();
    if (noPrimarySince < 0) {
      noPrimarySince = now;
      log.info("no primary; electing in {}", config.settleTime());
    }
    List<MemberInfo> members;
    Integer successor = designatedSuccessor();
    if (successor != null) {
      members = readMembers();
      boolean alive = members.stream().anyMatch(m -> m.nodeId() == successor);
      if (alive) {
        // An operator chose the next primary: only it claims, at once.
        if (successor == config.nodeId()) {
          claim(members);
        } else {
          scheduleEvaluate(config.retryInterval().toMillis());
        }
        return;
      }
      log.warn("designated successor {} is not a live member; electing normally", successor);
    }
    if (!config.automatic()) {
      // Manual failover: wait for an operator to designate the next primary.
      scheduleEvaluate(config.retryInterval().toMillis());
      return;
    }
    long waited = (now - noPrimarySince) / 1_000_000;
    if (waited < config.settleTime().toMillis()) {
      scheduleEvaluate(config.settleTime().toMillis() - waited);
      return;
    }
    members = readMembers();
    Optional<MemberInfo> best = members.stream().filter(m -> m.role() != Role.CLOSED).max(MemberInfo::rank);
    if (best.isPresent() && best.get().nodeId() == config.nodeId()) {
      claim(members);
    } else {
      scheduleEvaluate(config.retryInterval().toMillis());
    }
  }

  private void claim(List<MemberInfo> members) throws Exception {
    Stat epochStat = new Stat();
    long epoch = FencedVersionWriter.parse(client.getData().storingStatIn(epochStat).forPath(layout.epoch()));
    long highest = Math.max(epoch, members.stream().mapToLong(MemberInfo::primaryGen).max().orElse(-1));
    long gen = highest + 1;
    PrimaryInfo me = new PrimaryInfo(config.nodeId(), config.address(), gen);
    try {
      client.transaction().forOperations(
          client.transactionOp().setData().withVersion(epochStat.getVersion()).forPath(layout.epoch(), FencedVersionWriter.bytes(gen)),
          client.transactionOp().create().withMode(CreateMode.EPHEMERAL).forPath(layout.primary(), me.encode()));
    } catch (KeeperException.BadVersionException | KeeperException.NodeExistsException e) {
      log.info("another node claimed the epoch first");
      scheduleEvaluate(0);
      return;
    }
    try {
      client.delete().forPath(layout.successor());
    } catch (KeeperException.NoNodeException e) {
      // No operator designation: a normal election.
    }
    long maxVersion;
    try {
      maxVersion = FencedVersionWriter.parse(client.getData().forPath(layout.maxVersion()));
    } catch (KeeperException.NoNodeException e) {
      maxVersion = -1;
    }
    long seen = members.stream().mapToLong(m -> Math.max(m.searchingVersion(), m.commitVersion())).max().orElse(-1);
    long forceVersion = Math.max(maxVersion, seen) + 1;
    myEpoch = gen;
    followed = null;
    synchronized (roleLock) {
      role = role.moveTo(Role.PRIMARY);
    }
    log.info("won epoch {}; becoming primary above version {}", gen, forceVersion - 1);
    try {
      listener.becomePrimary(gen, forceVersion);
    } catch (Exception e) {
      log.error("could not become primary; giving epoch {} up", gen, e);
      resignNow();
      synchronized (roleLock) {
        role = role.moveTo(Role.REPLICA);
      }
      myEpoch = -1;
      scheduleEvaluate(config.retryInterval().toMillis());
    }
  }

  private Integer designatedSuccessor() throws Exception {
    try {
      return Integer.valueOf(new String(client.getData().forPath(layout.successor()), StandardCharsets.UTF_8).trim());
    } catch (KeeperException.NoNodeException e) {
      return null;
    } catch (NumberFormatException e) {
      log.warn("ignoring malformed successor designation");
      return null;
    }
  }

  /**
   * Hands the primary role to {@code successor} (an operator's promotion): designates it as the only
   * node allowed to claim the next epoch, resigns, and steps down to a replica. The caller has made
   * sure the successor searches this primary's final version.
   */
  public void handOff(int successor) throws NrtClusterException {
    try {
      executor.submit(() -> {
        designate(successor);
        resignNow();
        if (role == Role.PRIMARY || role == Role.FENCED) {
          stepDown("handed off to node " + successor);
        }
        scheduleEvaluate(0);
        return null;
      }).get(config.zkTimeout().toMillis() * 2, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConnectionException("interrupted handing off", e);
    } catch (Exception e) {
      throw new ConnectionException("handing off to node " + successor + " failed: " + e, e);
    }
  }

  /** Makes {@code nodeId} the only node that may claim the next epoch (until it does). */
  public void designate(int nodeId) throws Exception {
    byte[] data = Integer.toString(nodeId).getBytes(StandardCharsets.UTF_8);
    try {
      client.create().forPath(layout.successor(), data);
    } catch (KeeperException.NodeExistsException e) {
      client.setData().forPath(layout.successor(), data);
    }
  }

  private void stepDown(String why) throws Exception {
    log.warn("stepping down as primary: {}", why);
    synchronized (roleLock) {
      role = role.moveTo(Role.REPLICA);
    }
    myEpoch = -1;
    listener.stepDown();
  }

  private List<MemberInfo> readMembers() throws Exception {
    return ClusterView.members(client, layout);
  }

  private long sessionId() throws Exception {
    return client.getZookeeperClient().getZooKeeper().getSessionId();
  }

  /** Leaves the cluster: resigns if primary, removes the member znode, stops watching. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    boolean wasPrimary = role == Role.PRIMARY;
    // Closed first: the resignation's own znode event must not start an election step here.
    closed = true;
    if (wasPrimary) {
      resign();
    }
    synchronized (roleLock) {
      role = Role.CLOSED;
    }
    closeQuietly();
  }

  /** Stops participating without resigning or deleting anything (the node is crashing). */
  public void abandon() {
    closed = true;
    synchronized (roleLock) {
      role = Role.CLOSED;
    }
    closeQuietly();
  }

  private void closeQuietly() {
    closed = true;
    client.getConnectionStateListenable().removeListener(connectionListener);
    if (cache != null) {
      cache.close();
    }
    if (member != null) {
      try {
        member.close();
      } catch (Exception e) {
        log.debug("closing member node: {}", e.toString());
      }
    }
    executor.shutdownNow();
  }
}

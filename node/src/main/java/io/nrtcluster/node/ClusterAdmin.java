package io.nrtcluster.node;

import io.nrtcluster.common.AdminException;
import io.nrtcluster.common.Checks;
import io.nrtcluster.common.ClusterMismatchException;
import io.nrtcluster.common.ConnectionException;
import io.nrtcluster.common.CorruptLocalFileException;
import io.nrtcluster.common.Durations;
import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.Stable;
import io.nrtcluster.common.ZooKeeperAccessException;
import io.nrtcluster.election.ClusterView;
import io.nrtcluster.election.CommandAck;
import io.nrtcluster.election.Handoff;
import io.nrtcluster.election.InSyncRecord;
import io.nrtcluster.election.MemberInfo;
import io.nrtcluster.election.OperatorCommand;
import io.nrtcluster.election.OperatorRequests;
import io.nrtcluster.election.Placement;
import io.nrtcluster.election.PrimaryInfo;
import io.nrtcluster.election.RebalancePlan;
import io.nrtcluster.election.ZkLayout;
import io.nrtcluster.election.ZooKeeperAccess;
import io.nrtcluster.election.ZooKeeperAuth;
import io.nrtcluster.election.ZooKeeperSession;
import java.io.Closeable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;

/**
 * An operator's view and levers of a cluster, over ZooKeeper only: status of every node, graceful
 * promotion of a chosen replica, forced promotion when the primary is dead, commit requests, and the
 * rebalancing of primaries across hosts (its plan, and running it). The same operations as {@code
 * bin/nrt status|promote|commit|rebalance}, for services that embed the library.
 *
 * <p>Every failure is an {@link NrtClusterException}: unknown cluster or index ({@link
 * ClusterMismatchException}), unknown node or refused request ({@link AdminException}), unreachable
 * ZooKeeper ({@link ConnectionException}), missing or wrong credentials for a cluster protected by
 * ZooKeeper ACLs ({@link ZooKeeperAccessException}), a target holding corrupt local files it has not
 * replaced ({@link CorruptLocalFileException}, naming them; only a forced promotion, or {@link
 * #promote(String, String, int, Duration, boolean)} with the override, goes ahead). A failed promotion leaves the old primary in charge.
 * Waiting for the outcome of a request (a promotion, a commit, a new primary) is a ZooKeeper watch on
 * the znodes concerned, bounded by the request's timeout, never a poll.
 */
@Stable
public final class ClusterAdmin implements Closeable {
  private final ZooKeeperSession zk;
  private final String connectString;
  private final Duration timeout;
  private final ZooKeeperAuth auth;

  private ClusterAdmin(ZooKeeperSession zk, String connectString, Duration timeout, ZooKeeperAuth auth) {
    this.zk = zk;
    this.connectString = connectString;
    this.timeout = timeout;
    this.auth = auth;
  }

  /** Connects to ZooKeeper at {@code connectString} without credentials, waiting at most {@code timeout}. */
  public static ClusterAdmin connect(String connectString, Duration timeout) throws ConnectionException {
    return connect(connectString, timeout, null);
  }

  /**
   * Connects to ZooKeeper at {@code connectString} as {@code auth} (null: without credentials),
   * waiting at most {@code timeout}. Wrong credentials are found out by the first operation, which
   * fails with {@link ZooKeeperAccessException}; znodes this creates (promotion and commit requests)
   * get the same ACL as the nodes'.
   */
  public static ClusterAdmin connect(String connectString, Duration timeout, ZooKeeperAuth auth) throws ConnectionException {
    return new ClusterAdmin(open(connectString, timeout, auth, null), connectString, timeout, auth);
  }

  /**
   * A connected session authenticated as {@code auth} and, when not null, also as {@code previous}.
   * Few quick retries: an operator's tool fails fast instead of waiting out a long outage.
   */
  private static ZooKeeperSession open(String connectString, Duration timeout, ZooKeeperAuth auth, ZooKeeperAuth previous)
      throws ConnectionException {
    return ZooKeeperSession.builder().connectString(connectString).auth(auth).alsoAuthenticatedAs(previous)
        .sessionTimeout(Duration.ofMillis(Math.max(timeout.toMillis(), 4000))).connectionTimeout(timeout)
        .maxRetries(3).maxRetrySleep(Duration.ofSeconds(1)).connect();
  }

  /**
   * Checks that this tool's credentials can use every znode of {@code cluster} and, with
   * credentials, that none is open to anyone: the same check a node makes at start ({@link
   * ZooKeeperAccess#verify}).
   */
  public void verifyAccess(String cluster) throws NrtClusterException {
    ZooKeeperAccess.verify(zk, cluster);
  }

  /**
   * Migrates {@code cluster} to authentication: gives every znode of it the ACL of this tool's
   * credentials (that identity only, every permission); returns how many znodes changed. Stop every
   * node of the cluster first: a node still running without credentials loses ZooKeeper access.
   * Refused without credentials.
   */
  public int secure(String cluster) throws NrtClusterException {
    requireAuth(cluster);
    return ZooKeeperAccess.secure(zk, cluster);
  }

  /**
   * Changes the credentials of {@code cluster} from {@code previous} to this tool's: every znode
   * readable with {@code previous} gets the ACL of the new ones only; returns how many changed. Stop
   * every node first and start them with the new credentials: a node still running with the
   * previous ones loses ZooKeeper access.
   */
  public int secure(String cluster, ZooKeeperAuth previous) throws NrtClusterException {
    requireAuth(cluster);
    Checks.notNull("previous", previous);
    try (ZooKeeperSession both = open(connectString, timeout, auth, previous)) {
      return ZooKeeperAccess.secure(both, cluster);
    }
  }

  private void requireAuth(String cluster) throws AdminException {
    if (auth == null) {
      throw new AdminException(ErrorCode.REFUSED, "securing cluster '" + cluster + "' needs ZooKeeper credentials");
    }
  }

  /** The indexes of {@code cluster}. */
  public List<String> indexes(String cluster) throws NrtClusterException {
    return ClusterView.indexes(zk, cluster).orElseThrow(() -> new ClusterMismatchException(
        ErrorCode.WRONG_CLUSTER, "no cluster named '" + cluster + "' in ZooKeeper at " + connectString));
  }

  /** Status of every live member of {@code index}, and its in-sync set as ZooKeeper records it. */
  public IndexStatus status(String cluster, String index) throws NrtClusterException {
    ZkLayout layout = layout(cluster, index);
    Optional<PrimaryInfo> primary = ClusterView.primary(zk, layout);
    List<MemberInfo> members = ClusterView.members(zk, layout);
    InSyncRecord inSync = ClusterView.inSync(zk, layout).orElse(null);
    long primaryVersion = primary.flatMap(p -> members.stream().filter(m -> m.nodeId() == p.nodeId()).findFirst())
        .map(MemberInfo::searchingVersion).orElse(-1L);
    long now = System.currentTimeMillis();
    List<MemberStatus> rows = new ArrayList<>();
    for (MemberInfo m : members) {
      long behind = primaryVersion < 0 ? -1 : Math.max(0, primaryVersion - m.searchingVersion());
      rows.add(new MemberStatus(m.nodeId(), m.address(), m.role(), m.primaryGen(), m.searchingVersion(),
          m.commitVersion(), behind, m.lastCopyMillis() == 0 ? -1 : Math.max(0, now - m.lastCopyMillis()), m.copying(),
          m.consecutiveCopyFailures(), m.integrity(), m.candidate(), m.lastStepDown(), m.writable(), m.notWritable(),
          inSync == null || inSync.holds(m)));
    }
    return new IndexStatus(cluster, index, primary.map(PrimaryInfo::nodeId).orElse(-1),
        primary.map(PrimaryInfo::primaryGen).orElse(-1L), rows, inSync);
  }

  /**
   * Gracefully moves the primary role of {@code index} to {@code nodeId}: the primary stops writes,
   * publishes a final version, waits until the node searches it, commits, and resigns in its favour.
   * Returns the new primary's status. A node the index's in-sync set does not name (in its current
   * incarnation; no record: every member may) is waited for, at most {@code timeout} (a replica joins
   * once it installed the newest version, so a fresh or returning one joins within moments), and
   * refused with {@link ErrorCode#REFUSED} before anything changes if it does not join: it may lack
   * acknowledged writes, which only a {@link #forcePromote forced promotion} accepts losing. If the node cannot catch up within {@code timeout}, the old
   * primary resumes writes and this fails with {@link ErrorCode#PROMOTION_FAILED}. A node holding
   * corrupt local files it has not replaced yet is refused with {@link CorruptLocalFileException}
   * naming them (checked first, so also when the primary is dead).
   */
  public IndexStatus promote(String cluster, String index, int nodeId, Duration timeout) throws NrtClusterException {
    return promote(cluster, index, nodeId, timeout, false);
  }

  /**
   * {@link #promote(String, String, int, Duration)}; with {@code allowCorruptTarget} a target
   * holding corrupt local files is not refused for them (the primary still waits until it searches
   * the final version, which only a copy of every file it lacks can give it).
   */
  public IndexStatus promote(String cluster, String index, int nodeId, Duration timeout, boolean allowCorruptTarget)
      throws NrtClusterException {
    ZkLayout layout = layout(cluster, index);
    IndexStatus before = status(cluster, index);
    MemberStatus target = requireMember(before, nodeId);
    if (!allowCorruptTarget) {
      requireIntact(before, target);
    }
    if (before.primaryNodeId() < 0) {
      throw new AdminException(ErrorCode.REFUSED, "index " + index + " has no live primary; use a forced promotion");
    }
    if (before.primaryNodeId() == nodeId) {
      throw new AdminException(ErrorCode.REFUSED, "node " + nodeId + " already is the primary of " + index);
    }
    if (!target.inSync()) {
      // A replica joins once it installed the newest version (a fresh or returning one within moments):
      // wait for it, bounded by the promotion's own timeout, and refuse only if it does not join.
      if (!ClusterView.awaitInSync(zk, layout, nodeId, timeout)) {
        IndexStatus now = status(cluster, index);
        requireInSync(now, requireMember(now, nodeId));
      }
    }
    OperatorRequests requests = new OperatorRequests(zk, layout);
    Handoff request = new Handoff(UUID.randomUUID().toString(), nodeId, timeout.toMillis(), Handoff.Status.REQUESTED, -1, "");
    requests.requestHandoff(request);
    try {
      Duration bound = timeout.plusSeconds(30);
      Handoff state = requests.awaitHandoff(request.requestId(), bound);
      switch (state.status()) {
        case HANDED_OFF -> {
          return awaitPrimary(cluster, index, nodeId, before.primaryGen(), Duration.ofSeconds(30));
        }
        case FAILED -> throw new AdminException(ErrorCode.PROMOTION_FAILED, state.message());
        default -> throw new AdminException(ErrorCode.PROMOTION_FAILED, "the primary did not act on the promotion within "
            + Durations.format(bound));
      }
    } finally {
      requests.withdrawHandoff();
    }
  }

  /**
   * The plan that would bring every live host of {@code cluster} within one primary of the others
   * ({@link RebalancePlan}), read from ZooKeeper now: the hosts' records and every index's primary,
   * members, suspicions and hand-offs. Changes nothing (what {@code bin/nrt rebalance --dry-run}
   * prints). The same plan the hosts' own rebalancing follows ({@link HostConfig#rebalance}).
   */
  public RebalancePlan rebalancePlan(String cluster) throws NrtClusterException {
    List<String> names = indexes(cluster);
    Placement placement = ClusterView.placement(zk, cluster);
    List<RebalancePlan.IndexView> views = new ArrayList<>();
    for (String index : names) {
      views.add(ClusterView.indexView(zk, ZkLayout.of(cluster, index)));
    }
    return RebalancePlan.compute(placement, views);
  }

  /**
   * Runs {@link #rebalancePlan}: each move is a graceful {@link #promote} of its target (nothing
   * acknowledged is lost; a target that does not catch up within {@code timeout} leaves the primary
   * where it was), {@value AdminRebalance#PARALLEL} at a time; a move whose index's primary is no
   * longer its source when its turn comes is skipped. Returns how each move ended; a failed move
   * does not stop the others.
   */
  public RebalanceResult rebalance(String cluster, Duration timeout) throws NrtClusterException {
    return rebalance(cluster, rebalancePlan(cluster), timeout);
  }

  /**
   * Runs {@code plan} (one {@link #rebalancePlan} returned, for example after showing it) as {@link
   * #rebalance(String, Duration)} runs its own.
   */
  public RebalanceResult rebalance(String cluster, RebalancePlan plan, Duration timeout) throws NrtClusterException {
    indexes(cluster);
    return new AdminRebalance(this, cluster, timeout).run(plan);
  }

  /**
   * How many primaries each live host of {@code cluster} holds, by node id: every host with a record
   * (0 included), counted from the indexes' primary znodes.
   */
  public SortedMap<Integer, Integer> primariesPerNode(String cluster) throws NrtClusterException {
    List<String> names = indexes(cluster);
    SortedMap<Integer, Integer> out = new TreeMap<>();
    ClusterView.placement(zk, cluster).hosts().forEach(h -> out.put(h, 0));
    for (String index : names) {
      ClusterView.primary(zk, ZkLayout.of(cluster, index)).ifPresent(p -> out.merge(p.nodeId(), 1, Integer::sum));
    }
    return out;
  }

  /**
   * What a forced promotion of {@code nodeId} would lose: how many versions the most up-to-date live
   * member is ahead of it (0 when it is the best), the corrupt local files it holds and has not
   * replaced (which the forced promotion accepts), and whether the in-sync set names it (when not,
   * writes acknowledged as replicated may be lost). Refused while a primary is alive.
   */
  public ForcePlan planForcedPromotion(String cluster, String index, int nodeId) throws NrtClusterException {
    IndexStatus status = status(cluster, index);
    MemberStatus target = requireMember(status, nodeId);
    if (status.primaryNodeId() >= 0) {
      throw new AdminException(ErrorCode.REFUSED, "node " + status.primaryNodeId() + " is the live primary of " + index
          + "; use a graceful promotion");
    }
    MemberStatus best = status.members().stream()
        .max((a, b) -> a.primaryGen() != b.primaryGen() ? Long.compare(a.primaryGen(), b.primaryGen())
            : Long.compare(a.searchingVersion(), b.searchingVersion()))
        .orElse(target);
    long ahead = best.primaryGen() > target.primaryGen() ? Math.max(1, best.searchingVersion() - target.searchingVersion())
        : Math.max(0, best.searchingVersion() - target.searchingVersion());
    List<Integer> inSyncNodes = status.inSync() == null ? List.of() : List.copyOf(status.inSync().named().keySet());
    return new ForcePlan(nodeId, best.nodeId(), ahead, target.integrity().corruptFiles(), target.inSync(), inSyncNodes);
  }

  /**
   * Makes {@code nodeId} primary of an index whose primary is dead, even if it is not the most up-to-date
   * live member (documents only the better candidates had are lost: see {@link #planForcedPromotion}),
   * and even if it holds corrupt local files it has not replaced ({@link ForcePlan#corruptFiles()}),
   * and even if the in-sync set does not name it ({@link ForcePlan#inSync()}: writes acknowledged as
   * replicated may then be lost): the operator's force overrides the election's gate; the node is
   * designated and claims.
   */
  public IndexStatus forcePromote(String cluster, String index, int nodeId, Duration timeout) throws NrtClusterException {
    ZkLayout layout = layout(cluster, index);
    planForcedPromotion(cluster, index, nodeId);
    new OperatorRequests(zk, layout).designateSuccessor(nodeId);
    return awaitPrimary(cluster, index, nodeId, -1, timeout);
  }

  /**
   * Asks {@code nodeId} (or every live member when null) to commit; returns each node's answer by
   * node id, waiting at most {@code timeout} (a node that did not answer in time counts as
   * {@link CommandAck.Status#FAILED}).
   */
  public Map<Integer, CommandAck> commit(String cluster, String index, Integer nodeId, Duration timeout) throws NrtClusterException {
    ZkLayout layout = layout(cluster, index);
    IndexStatus status = status(cluster, index);
    List<Integer> targets = new ArrayList<>();
    if (nodeId != null) {
      requireMember(status, nodeId);
      targets.add(nodeId);
    } else {
      status.members().forEach(m -> targets.add(m.nodeId()));
    }
    OperatorRequests requests = new OperatorRequests(zk, layout);
    String command = requests.send(nodeId == null ? OperatorCommand.commitAll() : OperatorCommand.commit(nodeId));
    Map<Integer, CommandAck> received;
    try {
      received = requests.awaitAcks(command, targets, timeout);
    } finally {
      requests.withdraw(command);
    }
    Map<Integer, CommandAck> answers = new LinkedHashMap<>();
    for (int id : targets) {
      answers.put(id, received.getOrDefault(id, CommandAck.failed("no answer within " + Durations.format(timeout))));
    }
    return answers;
  }

  /** Waits (a watch, not a poll) until {@code nodeId} leads {@code index} in a generation above {@code oldGen}. */
  private IndexStatus awaitPrimary(String cluster, String index, int nodeId, long oldGen, Duration timeout) throws NrtClusterException {
    ZkLayout layout = layout(cluster, index);
    if (ClusterView.awaitPrimary(zk, layout, p -> p.nodeId() == nodeId && p.primaryGen() > oldGen, timeout).isEmpty()) {
      throw new AdminException(ErrorCode.PROMOTION_FAILED, "node " + nodeId + " did not become primary of " + index + " within " + Durations.format(timeout));
    }
    return status(cluster, index);
  }

  private MemberStatus requireMember(IndexStatus status, int nodeId) throws AdminException {
    return status.members().stream().filter(m -> m.nodeId() == nodeId).findFirst()
        .orElseThrow(() -> new AdminException(ErrorCode.UNKNOWN_NODE, "node " + nodeId + " is not a live member of "
            + status.cluster() + "/" + status.index()));
  }

  /**
   * Refuses a target the in-sync set does not name in its current incarnation: it may lack versions
   * the primary acknowledged as replicated, which only a forced promotion may accept losing.
   */
  private static void requireInSync(IndexStatus status, MemberStatus target) throws AdminException {
    if (target.inSync()) {
      return;
    }
    throw new AdminException(ErrorCode.REFUSED, "node " + target.nodeId() + " is not in the in-sync set of "
        + status.cluster() + "/" + status.index() + " (" + status.inSync().describe(System.currentTimeMillis())
        + "): it may lack writes the primary acknowledged; wait until it is back in the set (it rejoins once it"
        + " installs the newest version), or, once the primary is dead, force the promotion (bin/nrt promote --force)"
        + " accepting that acknowledged writes, replicated ones included, may be lost");
  }

  /** Refuses a target that holds corrupt local files it has not replaced. */
  private static void requireIntact(IndexStatus status, MemberStatus target) throws NrtClusterException {
    List<String> corrupt = target.integrity().corruptFiles();
    if (!corrupt.isEmpty()) {
      throw new CorruptLocalFileException("node " + target.nodeId() + " of " + status.cluster() + "/" + status.index()
          + " holds corrupt local files it has not copied again from a primary: " + corrupt
          + "; wait until a primary's copy replaces them, or force the promotion accepting them (bin/nrt promote --force)", corrupt);
    }
  }

  private ZkLayout layout(String cluster, String index) throws NrtClusterException {
    List<String> indexes = indexes(cluster);
    if (!indexes.contains(index)) {
      throw new ClusterMismatchException(ErrorCode.UNKNOWN_INDEX, "cluster '" + cluster + "' has no index '" + index
          + "' (it has " + indexes + ")");
    }
    return ZkLayout.of(cluster, index);
  }

  @Override
  public void close() {
    zk.close();
  }

  /**
   * Outcome preview of a forced promotion.
   *
   * @param corruptFiles corrupt local files the node holds and has not replaced (empty when none):
   *     a forced promotion makes it primary anyway
   * @param inSync whether the in-sync set names the node in its current incarnation (true when there
   *     is no record): when false, versions the dead primary acknowledged as replicated may be lost
   * @param inSyncNodes the nodes the in-sync set names (its primary and in-sync replicas), by id;
   *     empty when there is no record
   */
  public record ForcePlan(int nodeId, int bestCandidate, long versionsAhead, List<String> corruptFiles, boolean inSync,
      List<Integer> inSyncNodes) {
    /** Copies the lists; null stands for none. */
    public ForcePlan {
      corruptFiles = corruptFiles == null ? List.of() : List.copyOf(corruptFiles);
      inSyncNodes = inSyncNodes == null ? List.of() : List.copyOf(inSyncNodes);
    }

    /** A plan for a node counted as in sync (no in-sync record). */
    public ForcePlan(int nodeId, int bestCandidate, long versionsAhead, List<String> corruptFiles) {
      this(nodeId, bestCandidate, versionsAhead, corruptFiles, true, List.of());
    }

    /** A plan for a node counted as in sync that holds no corrupt files. */
    public ForcePlan(int nodeId, int bestCandidate, long versionsAhead) {
      this(nodeId, bestCandidate, versionsAhead, List.of());
    }
  }

}

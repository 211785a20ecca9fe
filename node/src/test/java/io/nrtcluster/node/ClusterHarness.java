package io.nrtcluster.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.nrtcluster.election.InSyncRecord;
import io.nrtcluster.election.ZooKeeperAuth;
import io.nrtcluster.transport.TransportConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.apache.curator.test.TestingServer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;
import org.awaitility.core.ConditionTimeoutException;

/**
 * The in-JVM test cluster: real cluster nodes in one JVM against a real ZooKeeper (curator-test's
 * {@link TestingServer}, or a connect string the test brings). Each "host" is an {@link NrtHost} with
 * its own data directory ({@code root/n<id>}), replication server and ZooKeeper session; node
 * {@code i} (0-based) has node id {@code i + 1}. Scenario tests read like the scenario: start,
 * {@link #awaitPrimary()}, index, refresh, kill the primary, restart a node, compare hits.
 *
 * <p>This is the one harness for in-JVM cluster scenarios: node's tests use it directly, other
 * modules' tests through node's test-jar ({@code <type>test-jar</type>}, test scope). Waiting for a
 * primary goes through {@link WritablePrimary}, the definition {@code nrt demo} uses too. Below the
 * election, replica's tests drive a {@code Primary} and its {@code Replica}s without ZooKeeper with
 * {@code io.nrtcluster.replica.MiniCluster}, which uses the same names for the same things
 * ({@code start}, {@code primary}, {@code replicas}, {@code addDocs}, {@code refresh},
 * {@code awaitAllAt}, {@code view}); it cannot be this class because replica is below node.
 *
 * <p>Every wait is bounded; a failed wait names what each node was doing.
 */
public final class ClusterHarness implements AutoCloseable {
  public static final String CLUSTER = "it";
  public static final String INDEX = "docs";
  public static final String[] WORDS = {"alpha", "beta", "gamma", "delta", "epsilon"};
  /** The queries {@link #view} counts hits of: all documents, and two words of {@link #WORDS}. */
  public static final List<Query> QUERIES = List.of(
      MatchAllDocsQuery.INSTANCE, new TermQuery(new Term("body", "alpha")), new TermQuery(new Term("body", "epsilon")));
  /** How long {@link #awaitPrimary()} and {@link #awaitAllAt(long)} wait by default. */
  public static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final Duration POLL = Duration.ofMillis(20);

  final Path root;
  final String zk;
  private final TestingServer server;
  private final List<NrtHost> hosts = new ArrayList<>();
  private final List<TransportConfig> transports = new ArrayList<>();
  private final List<MeterRegistry> registries = new ArrayList<>();
  /** Hosts crashed with {@link #crashKeepingSession}: their ZooKeeper sessions live until the harness closes. */
  private final List<NrtHost> crashedWithSession = new ArrayList<>();
  private final long seed;
  private final Random random;
  private final List<String> indexes;
  private int nextId;
  private boolean automaticFailover = true;
  private Duration sessionTimeout = Duration.ofSeconds(4);
  private ZooKeeperAuth zooKeeperAuth;
  private final Map<Integer, java.util.function.UnaryOperator<HostConfig.Builder>> configs = new java.util.HashMap<>();
  private IndexOpener opener = (node, host, names) -> {
    for (String index : names) {
      host.openIndex(IndexSettings.standard(index));
    }
  };

  /** {@code nodes} nodes (none started yet) of the one index {@link #INDEX}, with their own ZooKeeper. */
  public ClusterHarness(Path root, long seed, int nodes) throws Exception {
    this(root, seed, nodes, List.of(INDEX));
  }

  /** {@code nodes} nodes (none started yet), each opening every one of {@code indexes}, with their own ZooKeeper. */
  public ClusterHarness(Path root, long seed, int nodes, List<String> indexes) throws Exception {
    this(root, seed, nodes, indexes, null);
  }

  /** As above, against the ZooKeeper at {@code connectString} (null: start one, closed with the harness). */
  public ClusterHarness(Path root, long seed, int nodes, List<String> indexes, String connectString) throws Exception {
    this.root = root;
    this.seed = seed;
    this.random = new Random(seed);
    this.indexes = indexes;
    if (connectString == null) {
      server = new TestingServer(true);
      zk = server.getConnectString();
    } else {
      server = null;
      zk = connectString;
    }
    for (int i = 0; i < nodes; i++) {
      transports.add(transport());
      registries.add(null);
      hosts.add(null);
    }
  }

  /** The transport settings every node starts with unless {@link #transport(int, TransportConfig)} says otherwise. */
  public static TransportConfig transport() {
    return TransportConfig.builder().ioThreads(2).requestThreads(8)
        .readTimeout(Duration.ofSeconds(10)).requestTimeout(Duration.ofSeconds(10)).build();
  }

  public ClusterHarness sessionTimeout(Duration timeout) {
    sessionTimeout = timeout;
    return this;
  }

  /** Every node started from now on authenticates with {@code auth} (null: none). */
  public ClusterHarness zooKeeperAuth(ZooKeeperAuth auth) {
    zooKeeperAuth = auth;
    return this;
  }

  public ClusterHarness manualFailover() {
    automaticFailover = false;
    return this;
  }

  public ClusterHarness transport(int node, TransportConfig config) {
    transports.set(node, config);
    return this;
  }

  /** Node {@code node} starts (and restarts) with {@code registry} for its meters. */
  public ClusterHarness meters(int node, MeterRegistry registry) {
    registries.set(node, registry);
    return this;
  }

  /** Node {@code i} starts (and restarts) with its host settings changed by {@code change} (for example its disk floor). */
  public ClusterHarness configure(int i, java.util.function.UnaryOperator<HostConfig.Builder> change) {
    configs.put(i, change);
    return this;
  }

  /** Every node starts (and restarts) with its host settings changed by {@code change}, after any per-node change. */
  public ClusterHarness configureAll(java.util.function.UnaryOperator<HostConfig.Builder> change) {
    for (int i = 0; i < hosts.size(); i++) {
      java.util.function.UnaryOperator<HostConfig.Builder> own = configs.getOrDefault(i, b -> b);
      configs.put(i, b -> change.apply(own.apply(b)));
    }
    return this;
  }

  /** The indexes every node opens. */
  public List<String> indexes() {
    return indexes;
  }

  public HostConfig hostConfig(int i) {
    return configs.getOrDefault(i, b -> b).apply(HostConfig.builder().nodeId(i + 1).cluster(CLUSTER).dataDir(root.resolve("n" + (i + 1))).zooKeeper(zk)
        .sessionTimeout(sessionTimeout).connectionTimeout(Duration.ofSeconds(10))
        .electionSettle(Duration.ofMillis(300)).automaticFailover(automaticFailover).transport(transports.get(i))
        .zooKeeperAuth(zooKeeperAuth)).build();
  }

  /** The seed of this harness's documents (name it in assertion messages). */
  public long seed() {
    return seed;
  }

  /** The directory under which node {@code i} keeps {@code n<i + 1>}. */
  public Path root() {
    return root;
  }

  /** The ZooKeeper connect string every node uses. */
  public String zooKeeper() {
    return zk;
  }

  /** How many nodes the harness has, up or down. */
  /**
   * Stops the in-process ZooKeeper server and starts it again on the same port and data: every
   * session sees SUSPENDED then RECONNECTED (sessions survive a restart shorter than their timeout).
   */
  public void restartZooKeeper() throws Exception {
    if (server == null) {
      throw new IllegalStateException("ZooKeeper is external: " + zk);
    }
    server.restart();
  }

  public int size() {
    return hosts.size();
  }

  /** Starts every node at once: which one becomes primary is the election's choice. */
  public ClusterHarness startAll() throws IOException {
    for (int i = 0; i < hosts.size(); i++) {
      start(i);
    }
    return this;
  }

  /** Starts node 1 alone so it becomes primary, then the others as its replicas. */
  public ClusterHarness startWithFirstAsPrimary() throws IOException {
    start(0);
    if (awaitPrimary() != 0) {
      throw new IllegalStateException("node 1 did not become primary");
    }
    for (int i = 1; i < hosts.size(); i++) {
      start(i);
    }
    return this;
  }

  /** Starts node 1 alone so it becomes primary of every index, then the others as their replicas. */
  public ClusterHarness startWithFirstLeadingEveryIndex() throws IOException {
    start(0);
    for (String index : indexes) {
      if (awaitPrimary(index, TIMEOUT) != 0) {
        throw new IllegalStateException("node 1 did not become primary of " + index);
      }
    }
    for (int i = 1; i < hosts.size(); i++) {
      start(i);
    }
    return this;
  }

  /**
   * How many of the harness's indexes each node (by position) is the writable primary of now; 0 for
   * a node that is down.
   */
  public List<Integer> writablePrimariesPerNode() {
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < hosts.size(); i++) {
      int n = 0;
      for (String index : indexes) {
        ClusterNode node = node(i, index);
        if (node != null && node.isWritablePrimary()) {
          n++;
        }
      }
      out.add(n);
    }
    return out;
  }

  /**
   * Waits at most {@code timeout} until every index has exactly one writable primary and the
   * primaries per node (by position, 0 for a node that is down) are {@code expected}; fails naming
   * what each node leads.
   */
  public void awaitPrimariesPerNode(List<Integer> expected, Duration timeout) {
    await("primaries per node " + expected + " (seed " + seed + ")").atMost(timeout).pollInterval(Duration.ofMillis(100))
        .until(this::writablePrimariesPerNode, counts -> counts.equals(expected) && indexes.stream().allMatch(this::hasOneWritablePrimary));
  }

  private boolean hasOneWritablePrimary(String index) {
    return nodes(index).stream().filter(n -> n != null && n.isWritablePrimary()).count() == 1;
  }

  /** Starts node {@code i} on its directory (again, after a kill or a stop) and opens every index. */
  public NrtHost start(int i) throws IOException {
    MeterRegistry registry = registries.get(i);
    NrtHost h = registry == null ? NrtHost.start(hostConfig(i)) : NrtHost.start(hostConfig(i), registry);
    try {
      opener.open(i, h, indexes);
    } catch (IOException | RuntimeException e) {
      h.halt();
      throw e;
    }
    hosts.set(i, h);
    return h;
  }

  /** How a started host opens its indexes (node number from 0, the host, the harness's index names). */
  @FunctionalInterface
  public interface IndexOpener {
    void open(int node, NrtHost host, List<String> indexes) throws IOException;
  }

  /**
   * Hosts started from now on open their indexes with {@code opener} instead of {@link
   * NrtHost#openIndex} with {@link IndexSettings#standard}: for layers over the host (an object
   * store's bootstrap and backups) that open indexes themselves.
   */
  public ClusterHarness indexOpener(IndexOpener opener) {
    this.opener = opener;
    return this;
  }

  /** Node {@code i}'s host, or null while it is down. */
  public NrtHost host(int i) {
    return hosts.get(i);
  }

  /** Node {@code i}'s {@link #INDEX}, or null while it is down. */
  public ClusterNode node(int i) {
    return node(i, INDEX);
  }

  /** Node {@code i}'s {@code index}, or null while it is down. */
  public ClusterNode node(int i, String index) {
    NrtHost h = hosts.get(i);
    return h == null ? null : h.index(index);
  }

  /** Every node's {@code index} by position, null for a node that is down (a snapshot). */
  public List<ClusterNode> nodes(String index) {
    List<ClusterNode> out = new ArrayList<>(hosts.size());
    for (int i = 0; i < hosts.size(); i++) {
      out.add(node(i, index));
    }
    return out;
  }

  public boolean isUp(int i) {
    return hosts.get(i) != null;
  }

  /** Abrupt stop: ZooKeeper session and connections end, nothing committed or resigned. */
  public void kill(int i) {
    NrtHost h = hosts.set(i, null);
    if (h != null) {
      h.halt();
    }
  }

  /**
   * What {@code kill -9} of node {@code i}'s process looks like to the others until ZooKeeper
   * expires its session: every replication connection and the port close at once, the node stops
   * taking part in elections (it never reacts again, never resigns), but its ZooKeeper session
   * lives on (its client keeps it alive until the harness closes, so it never expires: a dead
   * process whose session outlives it). Returns the crashed host, whose {@code zooKeeper()} session
   * tests may use to show it is still alive. The node counts as down from now on.
   */
  public NrtHost crashKeepingSession(int i) {
    NrtHost h = hosts.set(i, null);
    if (h == null) {
      throw new IllegalStateException("N" + (i + 1) + " is down");
    }
    crashedWithSession.add(h);
    h.transport().close();
    for (String index : indexes) {
      ClusterNode n = h.index(index);
      if (n != null) {
        n.leaveElectionAbruptly();
      }
    }
    return h;
  }

  /** The same as {@link #kill}, under the library's name ({@link NrtHost#halt()}). */
  public void halt(int i) {
    kill(i);
  }

  /** Graceful stop: commit and resign. */
  public void stop(int i) throws IOException {
    NrtHost h = hosts.set(i, null);
    if (h != null) {
      h.close();
    }
  }

  /** Graceful stop, then a start on the same directory. */
  public NrtHost restart(int i) throws IOException {
    stop(i);
    return start(i);
  }

  /**
   * Waits until exactly one live node is writable primary of {@code index} ({@link WritablePrimary});
   * returns its number. Fails (Awaitility's {@link ConditionTimeoutException}) naming every node's role.
   */
  public int awaitPrimary(String index, Duration timeout) {
    int p;
    try {
      p = WritablePrimary.await(() -> nodes(index), timeout, POLL);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for a primary of " + index, e);
    }
    if (p < 0) {
      throw new ConditionTimeoutException("no single writable primary of " + index + " within " + timeout + " (seed "
          + seed + "): " + WritablePrimary.describe(nodes(index)));
    }
    return p;
  }

  public int awaitPrimary() {
    return awaitPrimary(INDEX, TIMEOUT);
  }

  /** The primary of {@link #INDEX}, waiting (bounded) until there is exactly one. */
  public ClusterNode primary() {
    return node(awaitPrimary());
  }

  /** The live nodes of {@link #INDEX} other than its primary (waited for, bounded), by position. */
  public List<ClusterNode> replicas() {
    int p = awaitPrimary();
    List<ClusterNode> out = new ArrayList<>();
    for (int i = 0; i < hosts.size(); i++) {
      ClusterNode n = node(i);
      if (i != p && n != null) {
        out.add(n);
      }
    }
    return out;
  }

  /** Waits until every live node of {@code index} searches at least {@code version}. */
  public void awaitAllAt(String index, long version, Duration timeout) {
    for (int i = 0; i < hosts.size(); i++) {
      ClusterNode n = node(i, index);
      if (n != null) {
        await("N" + (i + 1) + " at " + version + " (seed " + seed + ")").atMost(timeout).pollInterval(POLL)
            .until(() -> n.searchingVersion() >= version);
      }
    }
  }

  public void awaitAllAt(long version) {
    awaitAllAt(INDEX, version, TIMEOUT);
  }

  /**
   * Waits until the primary of {@link #INDEX} has recorded every other live node of it in its in-sync
   * set. Only those are electable, and the primary records a replica's join a moment after the
   * replica searches its version, so a test that kills the primary to see a failover waits for this
   * first: {@link #awaitAllAt} alone leaves a window in which nobody may be elected, as promised.
   */
  public void awaitInSync() {
    int p = awaitPrimary();
    ClusterNode primary = node(p);
    Set<Integer> others = new TreeSet<>();
    for (int i = 0; i < hosts.size(); i++) {
      if (i != p && node(i) != null) {
        others.add(i + 1);
      }
    }
    await("the in-sync set of N" + (p + 1) + " holds " + others + " (seed " + seed + ")").atMost(TIMEOUT)
        .pollInterval(POLL).until(() -> {
          InSyncRecord r = primary.inSyncSet();
          return r != null && r.members().keySet().containsAll(others);
        });
  }

  /** Adds {@code n} new documents on {@code primary}. */
  public void addDocs(ClusterNode primary, int n) throws IOException {
    for (int i = 0; i < n; i++) {
      primary.addDocument(doc(nextId++));
    }
  }

  /** Adds {@code n} new documents on the primary of {@link #INDEX} (waited for, bounded). */
  public void addDocs(int n) throws IOException {
    addDocs(primary(), n);
  }

  /** Refreshes the primary of {@link #INDEX} (waited for, bounded); returns the new version. */
  public long refresh() throws IOException {
    return primary().refresh();
  }

  /** As {@link #refresh()}, recording the application's {@code sourcePosition} with the version. */
  public long refresh(String sourcePosition) throws IOException {
    return primary().refresh(sourcePosition);
  }

  /** A document with id {@code id} and twenty random {@link #WORDS} in its body (from the harness's seed). */
  public Document doc(int id) {
    Document d = new Document();
    d.add(new StringField("id", Integer.toString(id), Field.Store.YES));
    StringBuilder body = new StringBuilder();
    for (int w = 0; w < 20; w++) {
      body.append(WORDS[random.nextInt(WORDS.length)]).append(' ');
    }
    d.add(new TextField("body", body.toString(), Field.Store.NO));
    return d;
  }

  public static Term idTerm(int id) {
    return new Term("id", Integer.toString(id));
  }

  /** Documents {@code node} searches now. */
  /**
   * Refreshes {@code primary} and checks that every document of {@code ids} (written with {@link
   * #doc}) is searchable there exactly once: what "no acknowledged write lost" means in a scenario.
   */
  public void assertAllSearchable(ClusterNode primary, Collection<Integer> ids) throws IOException {
    primary.refresh();
    IndexSearcher s = primary.acquireSearcher();
    try {
      for (int id : ids) {
        assertThat(s.count(new TermQuery(idTerm(id)))).as("seed %d: acknowledged doc %d", seed(), id).isEqualTo(1);
      }
    } finally {
      primary.releaseSearcher(s);
    }
  }

  public static long count(ClusterNode node) throws IOException {
    IndexSearcher s = node.acquireSearcher();
    try {
      return s.count(MatchAllDocsQuery.INSTANCE);
    } finally {
      node.releaseSearcher(s);
    }
  }

  /** Hit counts of {@link #QUERIES} on {@code s}. */
  public static List<Long> counts(IndexSearcher s) throws IOException {
    List<Long> out = new ArrayList<>();
    for (Query q : QUERIES) {
      out.add((long) s.count(q));
    }
    return out;
  }

  /** What a node searches now: version and hit counts of {@link #QUERIES}, from one searcher. */
  public record View(long version, List<Long> counts) {}

  /** What {@code node} searches now. */
  public static View view(ClusterNode node) throws IOException {
    IndexSearcher s = node.acquireSearcher();
    try {
      return new View(((DirectoryReader) s.getIndexReader()).getVersion(), counts(s));
    } finally {
      node.releaseSearcher(s);
    }
  }

  /** What node {@code i} searches now in {@link #INDEX} (it must be up). */
  public View view(int i) throws IOException {
    return view(node(i));
  }

  /**
   * Compares hits: waits until every live node searches at least {@code version}, then checks that
   * they all search the same version with the same hit counts; fails naming each node's view.
   */
  public View assertSameHits(long version) throws IOException {
    awaitAllAt(version);
    Map<Integer, View> views = new LinkedHashMap<>();
    for (int i = 0; i < hosts.size(); i++) {
      if (node(i) != null) {
        views.put(i + 1, view(i));
      }
    }
    if (views.isEmpty() || new HashSet<>(views.values()).size() != 1) {
      throw new AssertionError("the nodes do not search the same hits at " + version + " (seed " + seed + "): N=view "
          + views);
    }
    return views.values().iterator().next();
  }

  @Override
  public void close() throws Exception {
    for (NrtHost h : crashedWithSession) {
      h.halt();
    }
    for (int i = 0; i < hosts.size(); i++) {
      NrtHost h = hosts.get(i);
      if (h != null) {
        try {
          h.close();
        } catch (IOException | RuntimeException e) {
          h.halt();
        }
      }
    }
    if (server != null) {
      server.close();
    }
  }
}

package io.nrtcluster.replica;

import static org.awaitility.Awaitility.await;

import io.nrtcluster.primary.Primary;
import io.nrtcluster.primary.PrimaryConfig;
import io.nrtcluster.transport.FaultInjection;
import io.nrtcluster.transport.TransportConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.util.IOUtils;

/**
 * Real nodes in one JVM: one primary and N replicas on loopback, each in its own data directory,
 * each with its own transport. Scenario tests read like the scenario: index, refresh, restart a
 * replica, inject faults, and compare what every node searches.
 *
 * <p>This is the layer below the election of the one in-JVM scenario harness, node's
 * {@code io.nrtcluster.node.ClusterHarness} (published in node's test-jar): there, nodes elect their
 * primary through ZooKeeper; here, the test names the {@link Primary} and points each {@link Replica}
 * at it. It cannot be that class (node depends on replica, so replica's tests cannot use node's
 * test-jar), so it uses the same names for the same things: {@link #primary()}, {@link #replicas()},
 * {@link #addDocs(int)} (on the primary), {@link #refresh()} (the primary's new version),
 * {@link #awaitAllAt(long)} (every node searches that version or newer, bounded by {@link #TIMEOUT}),
 * {@link View} and {@link #view} (version and hit counts of {@link #QUERIES} from one searcher).
 */
final class MiniCluster implements AutoCloseable {
  static final String CLUSTER = "mini";
  static final String INDEX = "docs";
  static final String[] WORDS = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"};
  static final List<Query> QUERIES = List.of(
      MatchAllDocsQuery.INSTANCE, new TermQuery(new Term("body", "alpha")), new TermQuery(new Term("body", "kappa")));
  /** How long {@link #awaitAllAt(long)} waits. */
  static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final Path root;
  private final Random random;
  private final TransportConfig primaryTransport;
  private final List<TransportConfig> replicaTransports = new ArrayList<>();
  private final List<StorageFaults> replicaStorage = new ArrayList<>();
  private final List<ReplicaObserver> replicaObservers = new ArrayList<>();
  private final List<ScrubConfig> replicaScrubs = new ArrayList<>();
  private final List<Replica> replicas = new ArrayList<>();
  /** Hit counts of {@link #QUERIES} on the primary at each version it published. */
  private final Map<Long, List<Long>> expectedCounts = new ConcurrentHashMap<>();
  private Primary primary;
  private int nextDocId;
  private java.util.function.UnaryOperator<ReplicaConfig.Builder> replicaSettings = b -> b;
  /** Where replicas run their background work; null: threads of their own. */
  private io.nrtcluster.common.ExecutorSource replicaExecutors;
  /** The transports of replicas on {@link #replicaExecutors}, closed with the cluster. */
  private final List<io.nrtcluster.transport.Transport> ownedTransports = new ArrayList<>();

  MiniCluster(Path root, long seed, int replicaCount, TransportConfig primaryTransport, TransportConfig replicaTransport) {
    this.root = root;
    this.random = new Random(seed);
    this.primaryTransport = primaryTransport;
    for (int i = 0; i < replicaCount; i++) {
      replicaTransports.add(replicaTransport);
      replicaStorage.add(StorageFaults.NONE);
      replicaObservers.add(ReplicaObserver.NONE);
      replicaScrubs.add(ScrubConfig.defaults());
    }
  }

  static TransportConfig fastTransport() {
    return TransportConfig.builder().ioThreads(2).requestThreads(8)
        .readTimeout(Duration.ofSeconds(10)).requestTimeout(Duration.ofSeconds(10)).build();
  }

  static TransportConfig faulty(FaultInjection faults) {
    return fastTransport().toBuilder().faults(faults).build();
  }

  MiniCluster replicaTransport(int i, TransportConfig config) {
    replicaTransports.set(i, config);
    return this;
  }

  /** Replica {@code i} writes its index through {@code faults} (a switchable instance). */
  MiniCluster replicaStorage(int i, StorageFaults faults) {
    replicaStorage.set(i, faults);
    return this;
  }

  /** Every replica opened from now on gets these settings on top of the defaults here. */
  MiniCluster replicaSettings(java.util.function.UnaryOperator<ReplicaConfig.Builder> settings) {
    replicaSettings = settings;
    return this;
  }

  /** Replica {@code i} reports its copy events to {@code observer}. */
  MiniCluster replicaObserver(int i, ReplicaObserver observer) {
    replicaObservers.set(i, observer);
    return this;
  }

  /** Every replica opened from now on runs its background work on {@code executors} (shared pools). */
  MiniCluster replicaExecutors(io.nrtcluster.common.ExecutorSource executors) {
    replicaExecutors = executors;
    return this;
  }

  /** Replica {@code i} scrubs its files at {@code scrub}'s pace. */
  MiniCluster replicaScrub(int i, ScrubConfig scrub) {
    replicaScrubs.set(i, scrub);
    return this;
  }

  MiniCluster start() throws IOException {
    startPrimary();
    return startReplicas();
  }

  MiniCluster startReplicas() throws IOException {
    for (int i = replicas.size(); i < replicaTransports.size(); i++) {
      replicas.add(openReplica(i));
    }
    return this;
  }

  PrimaryConfig.Builder primaryConfig() {
    return PrimaryConfig.builder().nodeId(0).cluster(CLUSTER).index(INDEX).dataDir(root.resolve("p0"))
        .transport(primaryTransport).closeTimeout(Duration.ofSeconds(1));
  }

  void startPrimary() throws IOException {
    startPrimary(primaryConfig().build());
  }

  void startPrimary(PrimaryConfig config) throws IOException {
    IndexWriterConfig iwc = new IndexWriterConfig(new StandardAnalyzer());
    primary = Primary.open(config, iwc);
    expectedCounts.put(primary.version(), counts(primary));
    for (Replica r : replicas) {
      r.setPrimary(primary.address());
    }
  }

  ReplicaConfig replicaConfig(int i) {
    return replicaSettings.apply(ReplicaConfig.builder().nodeId(i + 1).cluster(CLUSTER).index(INDEX).dataDir(root.resolve("r" + (i + 1)))
        .primary(primary == null ? null : primary.address()).transport(replicaTransports.get(i))
        .storageFaults(replicaStorage.get(i)).scrub(replicaScrubs.get(i))
        .reconnectMin(Duration.ofMillis(50)).reconnectMax(Duration.ofMillis(500))
        // A file reported after repeated wire bit flips waits out a short backoff, not minutes.
        .badFileBackoffMin(Duration.ofMillis(100)).badFileBackoffMax(Duration.ofSeconds(1))).build();
  }

  /** How many documents {@code r} searches now. */
  static long count(Replica r) throws IOException {
    IndexSearcher s = r.acquireSearcher();
    try {
      return s.count(MatchAllDocsQuery.INSTANCE);
    } finally {
      r.releaseSearcher(s);
    }
  }

  Replica openReplica(int i) throws IOException {
    if (replicaExecutors == null) {
      return Replica.open(replicaConfig(i), replicaObservers.get(i));
    }
    io.nrtcluster.transport.Transport t = io.nrtcluster.transport.Transport.create("R" + (i + 1), replicaTransports.get(i));
    ownedTransports.add(t);
    return Replica.open(replicaConfig(i), t, replicaObservers.get(i), replicaExecutors);
  }

  Primary primary() {
    return primary;
  }

  Replica replica(int i) {
    return replicas.get(i);
  }

  List<Replica> replicas() {
    return replicas;
  }

  Path dataDir(int replica) {
    return root.resolve("r" + (replica + 1));
  }

  /** Closes replica {@code i} and opens it again on the same directory. */
  Replica restartReplica(int i) throws IOException {
    replicas.get(i).close();
    Replica r = openReplica(i);
    replicas.set(i, r);
    return r;
  }

  void closeReplica(int i) throws IOException {
    replicas.get(i).close();
  }

  void reopenReplica(int i) throws IOException {
    replicas.set(i, openReplica(i));
  }

  void addDocs(int n) throws IOException {
    for (int i = 0; i < n; i++) {
      int id = nextDocId++;
      primary.writer().addDocument(doc(id));
    }
  }

  void updateDocs(int n) throws IOException {
    for (int i = 0; i < n && nextDocId > 0; i++) {
      int id = random.nextInt(nextDocId);
      primary.writer().updateDocument(new Term("id", Integer.toString(id)), doc(id));
    }
  }

  void deleteDocs(int n) throws IOException {
    for (int i = 0; i < n && nextDocId > 0; i++) {
      primary.writer().deleteDocuments(new Term("id", Integer.toString(random.nextInt(nextDocId))));
    }
  }

  private Document doc(int id) {
    Document d = new Document();
    d.add(new StringField("id", Integer.toString(id), Field.Store.YES));
    StringBuilder body = new StringBuilder();
    int words = 20 + random.nextInt(60);
    for (int w = 0; w < words; w++) {
      body.append(WORDS[random.nextInt(WORDS.length)]).append(' ');
    }
    d.add(new TextField("body", body.toString(), Field.Store.YES));
    return d;
  }

  /** Refreshes the primary and records its hit counts at the new version. */
  long refresh() throws IOException {
    long version = primary.refresh();
    expectedCounts.put(version, counts(primary));
    return version;
  }

  private List<Long> counts(Primary p) throws IOException {
    IndexSearcher s = p.acquireSearcher();
    try {
      return counts(s);
    } finally {
      p.releaseSearcher(s);
    }
  }

  static List<Long> counts(IndexSearcher s) throws IOException {
    List<Long> out = new ArrayList<>();
    for (Query q : QUERIES) {
      out.add((long) s.count(q));
    }
    return out;
  }

  /** What replica {@code r} searches now: version and hit counts, from one searcher. */
  record View(long version, List<Long> counts) {}

  static View view(Replica r) throws IOException {
    IndexSearcher s = r.acquireSearcher();
    try {
      return new View(((DirectoryReader) s.getIndexReader()).getVersion(), counts(s));
    } finally {
      r.releaseSearcher(s);
    }
  }

  /** Primary's hit counts at {@code version}, or null if the primary never published it. */
  List<Long> expected(long version) {
    return expectedCounts.get(version);
  }

  /** Waits until every replica searches at least {@code version} (the primary published it). */
  void awaitAllAt(long version) {
    awaitReplicasAt(version, TIMEOUT);
  }

  void awaitReplicasAt(long version, Duration timeout) {
    for (Replica r : replicas) {
      await("R" + r.nodeId() + " at version " + version).atMost(timeout).pollInterval(Duration.ofMillis(10))
          .until(() -> r.searchingVersion() >= version);
    }
  }

  @Override
  public void close() throws IOException {
    List<java.io.Closeable> all = new ArrayList<>(replicas);
    all.add(primary);
    all.addAll(ownedTransports);
    IOUtils.close(all);
  }
}

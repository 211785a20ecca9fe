package io.nrtcluster.node;

import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.nrtcluster.election.Role;
import io.nrtcluster.transport.TransportConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.curator.test.TestingServer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;

/**
 * Real cluster nodes in one JVM against a real ZooKeeper: each "host" is an {@link NrtHost} with its
 * own data directory, replication server and ZooKeeper session. Scenario tests read like the
 * scenario: start, index, kill the primary, restart a node, compare.
 */
final class ClusterHarness implements AutoCloseable {
  static final String CLUSTER = "it";
  static final String INDEX = "docs";
  static final String[] WORDS = {"alpha", "beta", "gamma", "delta", "epsilon"};

  final Path root;
  final String zk;
  private final TestingServer server;
  private final List<NrtHost> hosts = new ArrayList<>();
  private final List<TransportConfig> transports = new ArrayList<>();
  private final List<MeterRegistry> registries = new ArrayList<>();
  private final Random random;
  private final List<String> indexes;
  private int nextId;
  private boolean automaticFailover = true;
  private Duration sessionTimeout = Duration.ofSeconds(4);

  ClusterHarness(Path root, long seed, int nodes, List<String> indexes) throws Exception {
    this(root, seed, nodes, indexes, null);
  }

  ClusterHarness(Path root, long seed, int nodes, List<String> indexes, String connectString) throws Exception {
    this.root = root;
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

  static TransportConfig transport() {
    return TransportConfig.builder().ioThreads(2).requestThreads(8)
        .readTimeout(Duration.ofSeconds(10)).requestTimeout(Duration.ofSeconds(10)).build();
  }

  ClusterHarness sessionTimeout(Duration timeout) {
    sessionTimeout = timeout;
    return this;
  }

  ClusterHarness manualFailover() {
    automaticFailover = false;
    return this;
  }

  ClusterHarness transport(int node, TransportConfig config) {
    transports.set(node, config);
    return this;
  }

  /** Node {@code node} starts (and restarts) with {@code registry} for its meters. */
  ClusterHarness meters(int node, MeterRegistry registry) {
    registries.set(node, registry);
    return this;
  }

  HostConfig hostConfig(int i) {
    return HostConfig.builder().nodeId(i + 1).cluster(CLUSTER).dataDir(root.resolve("n" + (i + 1))).zooKeeper(zk)
        .sessionTimeout(sessionTimeout).connectionTimeout(Duration.ofSeconds(10))
        .electionSettle(Duration.ofMillis(300)).automaticFailover(automaticFailover).transport(transports.get(i)).build();
  }

  ClusterHarness startAll() throws IOException {
    for (int i = 0; i < hosts.size(); i++) {
      start(i);
    }
    return this;
  }

  /** Starts node 1 alone so it becomes primary, then the others as its replicas. */
  ClusterHarness startWithFirstAsPrimary() throws IOException {
    start(0);
    if (awaitPrimary() != 0) {
      throw new IllegalStateException("node 1 did not become primary");
    }
    for (int i = 1; i < hosts.size(); i++) {
      start(i);
    }
    return this;
  }

  NrtHost start(int i) throws IOException {
    MeterRegistry registry = registries.get(i);
    NrtHost h = registry == null ? NrtHost.start(hostConfig(i)) : NrtHost.start(hostConfig(i), registry);
    for (String index : indexes) {
      h.openIndex(IndexSettings.standard(index));
    }
    hosts.set(i, h);
    return h;
  }

  NrtHost host(int i) {
    return hosts.get(i);
  }

  ClusterNode node(int i) {
    return node(i, INDEX);
  }

  ClusterNode node(int i, String index) {
    NrtHost h = hosts.get(i);
    return h == null ? null : h.index(index);
  }

  /** Abrupt stop: ZooKeeper session and connections end, nothing committed or resigned. */
  void kill(int i) {
    NrtHost h = hosts.set(i, null);
    if (h != null) {
      h.halt();
    }
  }

  /** Graceful stop: commit and resign. */
  void stop(int i) throws IOException {
    NrtHost h = hosts.set(i, null);
    if (h != null) {
      h.close();
    }
  }

  /** Waits until exactly one live node is writable primary of {@code index}; returns its number. */
  int awaitPrimary(String index, Duration timeout) {
    int[] found = {-1};
    await("a single primary of " + index).atMost(timeout).pollInterval(Duration.ofMillis(20)).until(() -> {
      int count = 0;
      for (int i = 0; i < hosts.size(); i++) {
        ClusterNode n = node(i, index);
        if (n != null && n.role() == Role.PRIMARY && n.isWritablePrimary()) {
          count++;
          found[0] = i;
        }
      }
      return count == 1;
    });
    return found[0];
  }

  int awaitPrimary() {
    return awaitPrimary(INDEX, Duration.ofSeconds(30));
  }

  /** Waits until every live node of {@code index} searches at least {@code version}. */
  void awaitAllAt(String index, long version, Duration timeout) {
    for (int i = 0; i < hosts.size(); i++) {
      ClusterNode n = node(i, index);
      if (n != null) {
        await("N" + (i + 1) + " at " + version).atMost(timeout).pollInterval(Duration.ofMillis(20))
            .until(() -> n.searchingVersion() >= version);
      }
    }
  }

  void awaitAllAt(long version) {
    awaitAllAt(INDEX, version, Duration.ofSeconds(30));
  }

  void addDocs(ClusterNode primary, int n) throws IOException {
    for (int i = 0; i < n; i++) {
      primary.addDocument(doc(nextId++));
    }
  }

  Document doc(int id) {
    Document d = new Document();
    d.add(new StringField("id", Integer.toString(id), Field.Store.YES));
    StringBuilder body = new StringBuilder();
    for (int w = 0; w < 20; w++) {
      body.append(WORDS[random.nextInt(WORDS.length)]).append(' ');
    }
    d.add(new TextField("body", body.toString(), Field.Store.NO));
    return d;
  }

  static Term idTerm(int id) {
    return new Term("id", Integer.toString(id));
  }

  static long count(ClusterNode node) throws IOException {
    IndexSearcher s = node.acquireSearcher();
    try {
      return s.count(MatchAllDocsQuery.INSTANCE);
    } finally {
      node.releaseSearcher(s);
    }
  }

  @Override
  public void close() throws Exception {
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

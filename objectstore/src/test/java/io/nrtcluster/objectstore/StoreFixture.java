package io.nrtcluster.objectstore;

import static org.assertj.core.api.Assertions.assertThat;

import io.nrtcluster.common.NodeLog;
import io.nrtcluster.node.ClusterHarness;
import io.nrtcluster.node.ClusterNode;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Random;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;
import org.slf4j.LoggerFactory;

/**
 * What every object-store test starts from, as a JUnit extension ({@code @RegisterExtension final
 * StoreFixture store = ...}): before each test a real S3-compatible server ({@link S3TestServer}) on
 * loopback and a seed ({@code -Dnrt.test.seed}, else random; printed when the test fails); after each
 * test, everything opened here or handed to {@link #closeAfter} is closed, newest first, then the
 * server. Stores use {@link ClusterHarness}'s cluster and index names, so a cluster's backups and a
 * test's own connection see the same layout.
 */
final class StoreFixture implements BeforeEachCallback, AfterEachCallback, TestWatcher {
  private final String prefix;
  private final NodeLog log;
  private final Deque<AutoCloseable> closing = new ArrayDeque<>();
  private S3TestServer server;
  private long seed;
  private Random random;

  private StoreFixture(Class<?> test, String node, String prefix) {
    this.prefix = prefix;
    this.log = new NodeLog(LoggerFactory.getLogger(test), node, () -> -1);
  }

  /** A fixture whose stores keep everything under {@code prefix} (may be empty); logs as {@code node}. */
  static StoreFixture of(Class<?> test, String node, String prefix) {
    return new StoreFixture(test, node, prefix);
  }

  @Override
  public void beforeEach(ExtensionContext context) throws Exception {
    seed = Long.getLong("nrt.test.seed", new Random().nextLong());
    random = new Random(seed);
    server = S3TestServer.start();
  }

  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    Exception failure = null;
    while (!closing.isEmpty()) {
      try {
        closing.pop().close();
      } catch (Exception e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    server.close();
    if (failure != null) {
      throw failure;
    }
  }

  @Override
  public void testFailed(ExtensionContext context, Throwable cause) {
    System.out.println(context.getDisplayName() + " failed with seed " + seed + " (rerun with -Dnrt.test.seed=" + seed + ")");
  }

  S3TestServer server() {
    return server;
  }

  long seed() {
    return seed;
  }

  /** Seeded by {@link #seed()}; one per test. */
  Random random() {
    return random;
  }

  NodeLog log() {
    return log;
  }

  /** Closes {@code c} after the test, before everything opened earlier. */
  <T extends AutoCloseable> T closeAfter(T c) {
    closing.push(c);
    return c;
  }

  /** This server's settings under the fixture's prefix, as {@code change} alters them. */
  ObjectStoreConfig config(UnaryOperator<ObjectStoreConfig.Builder> change) {
    ObjectStoreConfig.Builder b = server.config();
    if (!prefix.isEmpty()) {
      b.prefix(prefix);
    }
    return change.apply(b).build();
  }

  /** A connection of its own (its own counters) to the harness index's backups. */
  ManifestStore manifests() throws Exception {
    return manifests(UnaryOperator.identity());
  }

  /** {@link #manifests()} with other settings. */
  ManifestStore manifests(UnaryOperator<ObjectStoreConfig.Builder> change) throws Exception {
    BlobStore store = closeAfter(BlobStore.open(config(change), new ObjectStoreMetrics(), log));
    return new ManifestStore(store, StoreLayout.of(store.config().prefix(), ClusterHarness.CLUSTER, ClusterHarness.INDEX));
  }

  BackupService backupService(ManifestStore manifests) {
    return closeAfter(new BackupService(manifests, log));
  }

  Restorer restorer(ManifestStore manifests) {
    return closeAfter(new Restorer(manifests, log));
  }

  /** A cluster of {@code nodes} nodes in {@code dir}, none started. */
  ClusterHarness cluster(Path dir, int nodes) throws Exception {
    return closeAfter(new ClusterHarness(dir, seed, nodes));
  }

  /** A cluster of {@code nodes} nodes in {@code dir}, the first started and primary. */
  ClusterHarness clusterWithPrimary(Path dir, int nodes) throws Exception {
    ClusterHarness c = cluster(dir, nodes);
    c.start(0);
    assertThat(c.awaitPrimary()).as("seed %d", seed).isZero();
    return c;
  }

  /** Automatic backups of {@code node}'s points over a connection of their own. */
  PrimaryBackups backups(ClusterNode node, BackupMode mode, String name) throws Exception {
    return closeAfter(new PrimaryBackups(manifests(), mode, name).attach(node));
  }
}

package io.nrtcluster.stress;

import io.nrtcluster.common.NodeLog;
import io.nrtcluster.objectstore.BackupMode;
import io.nrtcluster.objectstore.BlobStore;
import io.nrtcluster.objectstore.ManifestId;
import io.nrtcluster.objectstore.ManifestStore;
import io.nrtcluster.objectstore.ObjectStoreConfig;
import io.nrtcluster.objectstore.ObjectStoreMetrics;
import io.nrtcluster.objectstore.S3TestServer;
import io.nrtcluster.objectstore.StoreLayout;
import io.nrtcluster.stress.agent.StoreOptions;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.LoggerFactory;

/**
 * The chaos run's object store: a real S3-compatible server (S3Proxy over an in-memory backend whose
 * objects survive {@link #stop()} and {@link #restart()}) in the harness's JVM, listening on an address
 * every node reaches (loopback, or the lab's bridge address in namespace mode, which the hosts in
 * their namespaces reach as they reach the harness's requests), and the harness's own client of it,
 * which watches backups and restores the newest one in the final check. Nodes get the endpoint,
 * backup mode and retention on their command line, and the credentials in a file in the run's
 * directory that only its owner reads ({@link #nodeArgs()}).
 */
final class ChaosStore implements Closeable {
  /** Retention of the nodes: the newest backups kept, and how often the primary sweeps. */
  static final int KEEP_LAST = 3;
  static final Duration SWEEP_EVERY = Duration.ofSeconds(5);

  private final S3TestServer server;
  private final BlobStore client;
  private final ManifestStore manifests;
  private final BackupMode mode;
  private final Path dir;

  private ChaosStore(S3TestServer server, BlobStore client, BackupMode mode, Path dir) {
    this.server = server;
    this.dir = dir;
    this.client = client;
    this.mode = mode;
    this.manifests = new ManifestStore(client, StoreLayout.of(client.config().prefix(), ChaosCluster.CLUSTER,
        ChaosCluster.INDEX));
  }

  /** Starts the server on {@code host} (an address of this machine) and connects the harness's client. */
  static ChaosStore start(String host, BackupMode mode, Path dir) throws Exception {
    S3TestServer server = S3TestServer.start(host);
    try {
      // Few, quick attempts: the harness asks again itself, and must not hang while the store is down.
      BlobStore client = BlobStore.open(server.config().maxAttempts(2).connectTimeout(Duration.ofSeconds(1)).build(),
          new ObjectStoreMetrics(), new NodeLog(LoggerFactory.getLogger(ChaosStore.class), "harness", () -> -1));
      LoggerFactory.getLogger(ChaosStore.class).info("chaos object store at {}, bucket {}, backups {}",
          server.endpoint(), S3TestServer.BUCKET, mode);
      return new ChaosStore(server, client, mode, dir);
    } catch (Exception e) {
      server.close();
      throw e;
    }
  }

  /** The options that make a {@code ChaosNodeMain} open its index through this store. */
  List<String> nodeArgs() throws IOException {
    List<String> args = new ArrayList<>(StoreOptions.args(server, dir));
    args.addAll(List.of("--store-backups", mode.name(), "--store-keep-last", Integer.toString(KEEP_LAST),
        "--store-sweep-ms", Long.toString(SWEEP_EVERY.toMillis())));
    return args;
  }

  /** Stops listening (nodes see connections refused); the objects stay. */
  void stop() throws Exception {
    server.stop();
  }

  /** Listens again on the same address, with the same objects. */
  void restart() throws Exception {
    server.restart();
  }

  boolean running() {
    return server.isRunning();
  }

  /** A connection to the store for the harness's own clients (the followers): quick attempts. */
  ObjectStoreConfig clientConfig() {
    return server.config().maxAttempts(2).connectTimeout(Duration.ofSeconds(1)).build();
  }

  /** The index's backups, for the final check's restore. */
  ManifestStore manifests() {
    return manifests;
  }

  /** The newest backup's version, -1 when there is none. */
  long newestVersion() throws IOException {
    return manifests.latestId().map(ManifestId::version).orElse(-1L);
  }

  /** The newest backup, or empty when there is none or the store does not answer now. */
  Optional<ManifestId> newest() {
    try {
      return manifests.latestId();
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  @Override
  public void close() throws IOException {
    try {
      client.close();
    } finally {
      server.close();
    }
  }
}

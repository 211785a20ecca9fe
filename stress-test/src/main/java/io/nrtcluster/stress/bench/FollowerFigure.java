package io.nrtcluster.stress.bench;

import io.nrtcluster.common.NodeLog;
import io.nrtcluster.election.Role;
import io.nrtcluster.objectstore.BlobStore;
import io.nrtcluster.objectstore.ManifestStore;
import io.nrtcluster.objectstore.ObjectStoreMetrics;
import io.nrtcluster.objectstore.S3TestServer;
import io.nrtcluster.objectstore.StoreFollower;
import io.nrtcluster.objectstore.StoreFollowerConfig;
import io.nrtcluster.objectstore.StoreLayout;
import io.nrtcluster.stress.NodeProcess;
import io.nrtcluster.stress.agent.StoreOptions;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.LoggerFactory;

/**
 * Figure 13: a follower through the object store alone. One primary process indexes at {@link
 * #DOCS_PER_SEC} and refreshes every {@link #REFRESH_MS}, backing up every published point to an
 * S3-compatible store (S3Proxy in the harness's JVM); a {@link StoreFollower} in the harness, polling
 * every {@link #POLL_MS}, follows it. The lag of a version is from the start of the primary's refresh
 * of it to the follower first searching it or a newer one (one clock: the processes' monotonic clock
 * is the machine's); once with the follower's link to the store direct, once through a relay that
 * delays each direction by the configured link delay. The follower holds no connection to the primary.
 */
final class FollowerFigure {
  static final int DOCS_PER_SEC = 1_000;
  static final int REFRESH_MS = 1_000;
  static final int POLL_MS = 100;
  /** The target: p99 lag at most the refresh interval plus this. */
  static final long TARGET_EXTRA_MS = 2_000;
  private static final String CLUSTER = "followers";
  private static final Duration CATCH_UP = Duration.ofMinutes(2);

  private FollowerFigure() {}

  static BenchReport.Followers run(BenchConfig config, BenchNodes nodes, Consumer<String> out, BenchTable table)
      throws Exception {
    Path dir = config.out().resolve("followers");
    long delayMs = config.linkDelayMs();
    try (S3TestServer store = S3TestServer.start()) {
      Path d = dir.resolve("node-1");
      List<String> args = new ArrayList<>(List.of("--zk", nodes.zooKeeper(), "--cluster", CLUSTER,
          "--session-timeout-ms", Integer.toString(config.sessionTimeoutMs()), "--merge-wait-ms", "0"));
      args.addAll(StoreOptions.args(store, d));
      args.addAll(List.of("--store-backups", "--store-points"));
      NodeProcess primary = new NodeProcess(1, d, BenchNodes.command(config, config.heapMb(), d, 1, args));
      try {
        BenchNodes.start(primary);
        BenchNodes.awaitRole(primary, Role.PRIMARY);
        awaitWritable(primary);
        Cell bare = cell(config, primary, store, store.endpoint(), dir.resolve("follower-direct"), out, 0);
        Cell delayed;
        try (DelayProxy relay = new DelayProxy(store.endpoint(), delayMs)) {
          delayed = cell(config, primary, store, relay.endpoint(store.endpoint()), dir.resolve("follower-delayed"), out,
              delayMs);
        }
        double target = REFRESH_MS + TARGET_EXTRA_MS;
        boolean met = bare.lag.p99() <= target && delayed.lag.p99() <= target;
        String cellName = DOCS_PER_SEC + " docs/s, " + REFRESH_MS + " ms refresh, poll " + POLL_MS + " ms";
        table.row("follower lag p99 / (refresh + 2 s) (" + cellName + ", store direct)", bare.lag.p99(), target, "ms", "<= 1");
        table.row("follower lag p99 / (refresh + 2 s) (" + cellName + ", " + delayMs + " ms each way to the store)",
            delayed.lag.p99(), target, "ms", "<= 1");
        out.accept(String.format(Locale.ROOT, "bench: follower lag p50 %.0f ms p99 %.0f ms direct, p50 %.0f ms p99 %.0f ms with "
            + "%d ms each way to the store; %d and %d points installed", bare.lag.p50(), bare.lag.p99(), delayed.lag.p50(),
            delayed.lag.p99(), delayMs, bare.points, delayed.points));
        return new BenchReport.Followers(DOCS_PER_SEC, REFRESH_MS, POLL_MS, delayMs, bare.lag, delayed.lag, bare.points,
            delayed.points, target, met,
            "one primary process backs up every published point to S3Proxy (in the harness's JVM, in memory, loopback); a "
            + "StoreFollower in the harness polls every pollMs; lag: start of the primary's refresh of a version to the "
            + "follower first searching it or a newer one; delayed: every byte between the follower and the store relayed "
            + "with delayMs each way; the primary sends the follower nothing (a follower has no connection to it)");
      } finally {
        primary.stopGracefully(30_000);
      }
    }
  }

  /** A new primary is PRIMARY while it still promotes: the load starts once it takes writes (bounded). */
  static void awaitWritable(NodeProcess primary) throws IOException {
    long deadline = System.nanoTime() + CATCH_UP.toNanos();
    while (!BenchNodes.client(primary).status().writable()) {
      if (System.nanoTime() > deadline) {
        throw new IOException("N" + primary.id() + " did not take writes within " + CATCH_UP);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
    }
  }

  private record Cell(Dist lag, long points) {}

  private static Cell cell(BenchConfig config, NodeProcess primary, S3TestServer store, URI endpoint, Path dir,
      Consumer<String> out, long delayMs) throws Exception {
    out.accept("bench: figure 13: a follower, " + DOCS_PER_SEC + " docs/s, " + REFRESH_MS + " ms refresh, " + delayMs
        + " ms each way to the store");
    NodeLog log = new NodeLog(LoggerFactory.getLogger(FollowerFigure.class), "F9/bench", () -> -1);
    try (BlobStore blobs = BlobStore.open(store.config().endpoint(endpoint).build(), new ObjectStoreMetrics(), log);
        StoreFollower follower = StoreFollower.start(new ManifestStore(blobs, StoreLayout.of("", CLUSTER, "bench")), dir,
            StoreFollowerConfig.builder().pollInterval(Duration.ofMillis(POLL_MS)).build(), "F9/bench")) {
      List<BenchApi.Seen> visible = new ArrayList<>();
      AtomicBoolean watching = new AtomicBoolean(true);
      Thread watcher = Thread.ofPlatform().daemon().name("follower-watch").start(() -> {
        long last = -1;
        while (watching.get()) {
          long v = follower.status().version();
          if (v != last) {
            synchronized (visible) {
              visible.add(new BenchApi.Seen(v, System.nanoTime()));
            }
            last = v;
          }
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1)); // sampling period of the watch
        }
      });
      BenchApi.LoadReply load = BenchNodes.client(primary).load(LoadRunner.Mode.NRT, DOCS_PER_SEC, REFRESH_MS,
          config.warmupSec(), config.cellSec());
      long lastVersion = load.refreshes().isEmpty() ? -1 : load.refreshes().get(load.refreshes().size() - 1).version();
      long deadline = System.nanoTime() + CATCH_UP.toNanos();
      while (follower.status().version() < lastVersion) {
        if (System.nanoTime() > deadline) {
          throw new IOException("the follower did not reach version " + lastVersion + " within " + CATCH_UP + ": "
              + follower.status());
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
      }
      watching.set(false);
      watcher.join(5_000);
      List<BenchApi.Seen> seen;
      synchronized (visible) {
        seen = List.copyOf(visible);
      }
      return new Cell(Dist.ofNanos(VisibilityLag.lags(load.refreshes(), List.of(seen))), follower.status().pointsInstalled());
    }
  }
}

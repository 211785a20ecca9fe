package io.nrtcluster.objectstore;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.nrtcluster.common.Checks;
import io.nrtcluster.common.Experimental;
import io.nrtcluster.common.NodeLog;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.LoggerFactory;

/**
 * A host's indexes followed through the object store alone ({@link StoreFollower}): the follower
 * equivalent of {@link HostObjectStore}, for a node that never joins the cluster. It needs no
 * ZooKeeper, no transport and no primary; it takes no part in elections and is never in an index's
 * in-sync set, so it can live in another region and can never lose an acknowledged write.
 *
 * <p>All followers share one store client ({@link BlobStore#view}), each counting its own bytes and
 * requests ({@link ObjectStoreMeters} tagged with the index and node, plus its lag as {@link #LAG_VERSIONS},
 * {@link #LAG} and its served {@link #VERSION}, when a registry is given). Index {@code I} lives in
 * {@code <dataDir>/I/index}, as a node's would. A store that does not answer at open is logged, not
 * fatal: each follower serves what an earlier run installed and catches up once the store answers;
 * wrong credentials or a missing bucket fail {@link #open} at once, naming the bucket.
 */
@Experimental
public final class StoreFollowers implements Closeable {
  /** The follower's lag behind the newest backup it saw, in versions. */
  public static final String LAG_VERSIONS = "nrt.follower.lag.versions";
  /** The follower's lag in seconds: how long ago the store wrote the newest point it does not serve yet. */
  public static final String LAG = "nrt.follower.lag";
  /** The version the follower serves (-1 before its first point). */
  public static final String VERSION = "nrt.follower.version";

  private final int nodeId;
  private final String cluster;
  private final Path dataDir;
  private final HostStoreConfig config;
  private final StoreFollowerConfig followerConfig;
  private final MeterRegistry registry;
  private final NodeLog log;
  private final BlobStore shared;
  private final Map<String, Followed> followed = new ConcurrentHashMap<>();

  private record Followed(StoreFollower follower, BlobStore view, ObjectStoreMeters meters, List<Meter> gauges) {}

  private StoreFollowers(int nodeId, String cluster, Path dataDir, HostStoreConfig config,
      StoreFollowerConfig followerConfig, MeterRegistry registry) {
    this.nodeId = nodeId;
    this.cluster = cluster;
    this.dataDir = dataDir;
    this.config = config;
    this.followerConfig = followerConfig;
    this.registry = registry;
    this.log = new NodeLog(LoggerFactory.getLogger(StoreFollowers.class), "F" + nodeId, () -> -1);
    this.shared = BlobStore.connect(config.store(), new ObjectStoreMetrics(), log);
  }

  /**
   * Connects to the store (one look, bounded by {@link HostStoreConfig#startTimeout()}).
   *
   * @param registry where each follower's meters go; null for none
   * @throws ObjectStoreAccessException wrong credentials, no permission or no such bucket (named)
   */
  public static StoreFollowers open(int nodeId, String cluster, Path dataDir, HostStoreConfig config,
      StoreFollowerConfig followerConfig, MeterRegistry registry) throws IOException {
    Checks.inRange("nodeId", nodeId, 1, 65535);
    Checks.safeName("cluster", cluster);
    Checks.notNull("dataDir", dataDir);
    StoreFollowers f = new StoreFollowers(nodeId, cluster, dataDir, Checks.notNull("config", config),
        Checks.notNull("followerConfig", followerConfig), registry);
    try {
      f.shared.checkAccess(Deadline.after(System.nanoTime(), config.startTimeout()));
    } catch (ObjectStoreAccessException e) {
      f.close();
      throw e;
    } catch (ObjectStoreUnavailableException e) {
      f.log.warn("object store of bucket {} did not answer within {} at start: followers serve what they hold and "
          + "catch up once it answers ({})", config.store().bucket(), config.startTimeout(), e.toString());
    }
    return f;
  }

  /** Starts following {@code index}: it serves what an earlier run installed here, then follows the store. */
  public StoreFollower follow(String index) throws IOException {
    Checks.safeName("index", index);
    if (followed.containsKey(index)) {
      throw new IllegalStateException("index " + index + " is already followed on this host");
    }
    String logName = "F" + nodeId + "/" + index;
    ObjectStoreMetrics metrics = new ObjectStoreMetrics();
    BlobStore view = shared.view(metrics, new NodeLog(LoggerFactory.getLogger(BlobStore.class), logName, () -> -1));
    StoreFollower follower = null;
    try {
      ManifestStore manifests = new ManifestStore(view, StoreLayout.of(config.store().prefix(), cluster, index));
      follower = StoreFollower.start(manifests, dataDir.resolve(index), followerConfig, logName);
      ObjectStoreMeters meters = null;
      List<Meter> gauges = new ArrayList<>();
      if (registry != null) {
        Tags tags = Tags.of("index", index, "node", Integer.toString(nodeId));
        meters = ObjectStoreMeters.register(registry, metrics, tags);
        StoreFollower f = follower;
        gauges.add(Gauge.builder(LAG_VERSIONS, f, x -> x.status().lagVersions()).tags(tags).register(registry));
        gauges.add(Gauge.builder(LAG, f, x -> x.status().lag().toMillis() / 1000.0).baseUnit("seconds").tags(tags)
            .register(registry));
        gauges.add(Gauge.builder(VERSION, f, x -> x.status().version()).tags(tags).register(registry));
      }
      followed.put(index, new Followed(follower, view, meters, gauges));
      return follower;
    } catch (IOException | RuntimeException e) {
      if (follower != null) {
        follower.close();
      }
      view.close();
      throw e;
    }
  }

  /** The follower of {@code index}, if this host follows it. */
  public Optional<StoreFollower> follower(String index) {
    Followed f = followed.get(index);
    return f == null ? Optional.empty() : Optional.of(f.follower());
  }

  /** Stops every follower (their searchers must be released first) and closes the store client. */
  @Override
  public void close() {
    for (Followed f : followed.values()) {
      try {
        f.follower().close();
      } catch (IOException | RuntimeException e) {
        log.warn("closing the follower failed: {}", e.toString());
      } finally {
        if (f.meters() != null) {
          f.meters().close();
        }
        f.gauges().forEach(g -> registry.remove(g));
        f.view().close();
      }
    }
    followed.clear();
    shared.close();
  }
}

package io.nrtcluster.stress;

import io.nrtcluster.common.NodeLog;
import io.nrtcluster.objectstore.BlobStore;
import io.nrtcluster.objectstore.FollowerStatus;
import io.nrtcluster.objectstore.ManifestStore;
import io.nrtcluster.objectstore.ObjectStoreMetrics;
import io.nrtcluster.objectstore.StoreFollower;
import io.nrtcluster.objectstore.StoreFollowerConfig;
import io.nrtcluster.stress.agent.ChaosDocs;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.search.IndexSearcher;
import org.slf4j.LoggerFactory;

/**
 * Store followers in the harness's JVM ({@code --followers N}): each follows the chaos index through
 * the run's object store alone, through every fault, and is searched four times a second. Each answer
 * (version, live documents, digest) goes to the {@link SearchLog} and the {@link Ledger} as node {@link
 * #FIRST_ID}+i, so the verdict judges it as a replica's: against what the primary published at that
 * version, never back in time; {@link #check} adds that every version a follower searched had been
 * published in ZooKeeper before it answered.
 */
final class ChaosFollowers implements AutoCloseable {
  /** The first follower's node id in the logs (the cluster's nodes are 1 to 9). */
  static final int FIRST_ID = 101;
  private static final Duration POLL = Duration.ofMillis(200);
  private static final int MAX_EXAMPLES = 10;

  private final BlobStore client;
  private final List<StoreFollower> followers;
  private final SearchLog searches;
  private final Ledger ledger;
  private final ScheduledExecutorService sampler;
  private final List<SearchLog.Seen> seen = new ArrayList<>();
  private long sampleFailures;

  private ChaosFollowers(BlobStore client, List<StoreFollower> followers, SearchLog searches, Ledger ledger) {
    this.client = client;
    this.followers = followers;
    this.searches = searches;
    this.ledger = ledger;
    this.sampler = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "chaos-followers");
      t.setDaemon(true);
      return t;
    });
    sampler.scheduleWithFixedDelay(this::sample, 250, 250, TimeUnit.MILLISECONDS);
  }

  static ChaosFollowers start(ChaosStore store, Path dir, int count, SearchLog searches, Ledger ledger) throws IOException {
    NodeLog log = new NodeLog(LoggerFactory.getLogger(ChaosFollowers.class), "followers", () -> -1);
    BlobStore client = BlobStore.open(store.clientConfig(), new ObjectStoreMetrics(), log);
    List<StoreFollower> followers = new ArrayList<>();
    try {
      for (int i = 0; i < count; i++) {
        int id = FIRST_ID + i;
        followers.add(StoreFollower.start(new ManifestStore(client, store.manifests().layout()),
            dir.resolve("follower-" + id), StoreFollowerConfig.builder().pollInterval(POLL).build(), "F" + id + "/docs"));
      }
    } catch (IOException | RuntimeException e) {
      for (StoreFollower f : followers) {
        f.close();
      }
      client.close();
      throw e;
    }
    return new ChaosFollowers(client, followers, searches, ledger);
  }

  private void sample() {
    for (int i = 0; i < followers.size(); i++) {
      StoreFollower f = followers.get(i);
      if (f.status().version() < 0) {
        continue;
      }
      try {
        IndexSearcher s = f.acquire();
        try {
          long sent = System.currentTimeMillis();
          ChaosDocs.Fingerprint fp = ChaosDocs.fingerprint(s);
          SearchLog.Seen answer = new SearchLog.Seen(FIRST_ID + i, 1, sent, System.currentTimeMillis(), fp.version(),
              fp.numDocs(), fp.digest(), false);
          searches.add(answer);
          ledger.contents(FIRST_ID + i, fp.version(), fp.numDocs(), fp.digest());
          synchronized (seen) {
            seen.add(answer);
          }
        } finally {
          f.release(s);
        }
      } catch (IOException | RuntimeException e) {
        synchronized (seen) {
          sampleFailures++;
        }
      }
    }
  }

  /** What the followers did, and each search of a version no generation had published in ZooKeeper by then. */
  ChaosReport.Followers check(PublicationAudit.Publications published) {
    List<SearchLog.Seen> all;
    long failedSamples;
    synchronized (seen) {
      all = List.copyOf(seen);
      failedSamples = sampleFailures;
    }
    long unpublished = 0;
    List<String> examples = new ArrayList<>();
    for (SearchLog.Seen s : all) {
      if (published != null && !published.publishedByAny(s.version(), s.receivedMillis())) {
        unpublished++;
        if (examples.size() < MAX_EXAMPLES) {
          examples.add("F" + s.nodeId() + " searched version " + s.version() + " at " + s.receivedMillis()
              + ", which no generation had published in ZooKeeper by then");
        }
      }
    }
    long points = 0;
    long failures = 0;
    long maxLagVersions = 0;
    for (StoreFollower f : followers) {
      FollowerStatus st = f.status();
      points += st.pointsInstalled();
      failures += st.failures();
      maxLagVersions = Math.max(maxLagVersions, st.lagVersions());
    }
    return new ChaosReport.Followers(followers.size(), all.size(), points, failures, failedSamples, maxLagVersions,
        published == null ? -1 : unpublished, List.copyOf(examples));
  }

  @Override
  public void close() {
    sampler.shutdownNow();
    try {
      sampler.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (StoreFollower f : followers) {
      try {
        f.close();
      } catch (IOException e) {
        LoggerFactory.getLogger(ChaosFollowers.class).warn("closing a follower failed: {}", e.toString());
      }
    }
    client.close();
  }
}

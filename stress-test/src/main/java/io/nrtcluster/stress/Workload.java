package io.nrtcluster.stress;

import io.nrtcluster.stress.agent.AgentApi;
import io.nrtcluster.stress.agent.AgentApi.Kind;
import io.nrtcluster.stress.agent.AgentApi.Op;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The application load: indexer threads writing adds, updates and deletes at a bounded rate through
 * the {@link WritePath}, a refresher and a committer, and searcher threads querying every node and
 * feeding the {@link Ledger}. Each indexer owns the document ids congruent to its number, so the
 * order of writes to one document is the log's order.
 */
final class Workload implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Workload.class);
  private static final int BATCH = 10;
  /** How often the write path reads who leads from ZooKeeper, as a client of the cluster watching it would learn it. */
  private static final long VIEW_PERIOD_MS = 100;
  private final ChaosConfig config;
  private final ChaosCluster cluster;
  private final TxLog log;
  private final WritePath path;
  private final Ledger ledger;
  private final SearchLog searchLog;
  private final List<Thread> threads = new ArrayList<>();
  private final AtomicLong searches = new AtomicLong();
  private final AtomicLong searchFailures = new AtomicLong();
  private volatile boolean writing = true;
  private volatile boolean running = true;

  Workload(ChaosConfig config, ChaosCluster cluster, TxLog log, WritePath path, Ledger ledger, SearchLog searchLog) {
    this.searchLog = searchLog;
    this.config = config;
    this.cluster = cluster;
    this.log = log;
    this.path = path;
    this.ledger = ledger;
  }

  void start() {
    double batchesPerSecond = (double) config.writesPerSecond() / BATCH / config.indexers();
    for (int i = 0; i < config.indexers(); i++) {
      int me = i;
      spawn("chaos-indexer-" + i, () -> index(me, (long) (1e9 / batchesPerSecond)));
    }
    spawn("chaos-resync", this::resyncLoop);
    spawn("chaos-view", this::followView);
    spawn("chaos-refresher", () -> every(config.refreshInterval().toNanos(), path::refresh));
    spawn("chaos-committer", () -> every(config.commitInterval().toNanos(), path::commitAll));
    for (int i = 0; i < config.searchers(); i++) {
      int me = i;
      spawn("chaos-searcher-" + i, () -> search(me));
    }
  }

  private void spawn(String name, Runnable body) {
    Thread t = Thread.ofPlatform().name(name).daemon().start(() -> {
      try {
        body.run();
      } catch (RuntimeException e) {
        LOG.error("{} died", name, e);
      }
    });
    threads.add(t);
  }

  private void index(int me, long periodNanos) {
    SplittableRandom random = new SplittableRandom(config.seed() * 1_000_003L + me);
    List<Integer> live = new ArrayList<>();
    int[] next = {me};
    long nextAt = System.nanoTime();
    while (writing) {
      nextAt = pace(nextAt, periodNanos);
      path.write(() -> {
        List<Op> ops = new ArrayList<>(BATCH);
        for (int i = 0; i < BATCH; i++) {
          double r = random.nextDouble();
          if (live.size() < 20 || r < 0.55) {
            int id = next[0];
            next[0] += config.indexers();
            live.add(id);
            ops.add(log.append(Kind.UPSERT, id));
          } else if (r < 0.85) {
            ops.add(log.append(Kind.UPSERT, live.get(random.nextInt(live.size()))));
          } else {
            int at = random.nextInt(live.size());
            int id = live.get(at);
            live.set(at, live.get(live.size() - 1));
            live.remove(live.size() - 1);
            ops.add(log.append(Kind.DELETE, id));
          }
        }
        return ops;
      });
    }
  }

  private void resyncLoop() {
    while (running) {
      if (path.dirty() && !path.resync()) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
      } else {
        try {
          path.awaitDirty(500);
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }

  private void followView() {
    while (running) {
      path.follow(cluster.view());
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(VIEW_PERIOD_MS));
    }
  }

  private void every(long periodNanos, Runnable action) {
    long nextAt = System.nanoTime();
    while (writing) {
      nextAt = pace(nextAt, periodNanos);
      if (writing) {
        action.run();
      }
    }
  }

  private void search(int me) {
    SplittableRandom random = new SplittableRandom(config.seed() * 7_000_003L + me);
    List<String> words = TxLog.words();
    long nextAt = System.nanoTime();
    long period = TimeUnit.MILLISECONDS.toNanos(20);
    while (running) {
      nextAt = pace(nextAt, period);
      List<NodeProcess> nodes = cluster.nodes();
      NodeProcess n = nodes.get(random.nextInt(nodes.size()));
      if (n.state() != NodeProcess.State.UP) {
        continue;
      }
      int incarnation = n.incarnation();
      long sent = System.currentTimeMillis();
      try {
        SearchLog.Seen seen;
        if (random.nextInt(10) == 0) {
          AgentApi.FingerprintReply f = n.client().fingerprint();
          ledger.contents(n.id(), f.version(), f.numDocs(), f.digest());
          seen = new SearchLog.Seen(n.id(), incarnation, sent, System.currentTimeMillis(), f.version(), f.numDocs(),
              f.digest(), f.primary());
        } else {
          String word = words.get(random.nextInt(words.size()));
          AgentApi.SearchReply s = n.client().search(word);
          ledger.hits(n.id(), s.version(), word, s.hits());
          seen = new SearchLog.Seen(n.id(), incarnation, sent, System.currentTimeMillis(), s.version(), -1, 0, s.primary());
        }
        if (n.incarnation() == incarnation) {
          searchLog.add(seen);
        }
        searches.incrementAndGet();
      } catch (AgentException e) {
        searchFailures.incrementAndGet();
      }
    }
  }

  /** Sleeps until {@code nextAt} (never more than one period behind) and returns the next slot. */
  private static long pace(long nextAt, long periodNanos) {
    long now = System.nanoTime();
    if (nextAt > now) {
      LockSupport.parkNanos(nextAt - now);
    } else if (now - nextAt > periodNanos) {
      nextAt = now;
    }
    return nextAt + periodNanos;
  }

  /** Stops writing (indexers, refresher, committer); searchers and resyncs go on. */
  void stopWriting() throws InterruptedException {
    writing = false;
    for (Thread t : threads) {
      if (t.getName().startsWith("chaos-indexer") || t.getName().equals("chaos-refresher")
          || t.getName().equals("chaos-committer")) {
        t.join(TimeUnit.SECONDS.toMillis(60));
      }
    }
  }

  long searches() {
    return searches.get();
  }

  long searchFailures() {
    return searchFailures.get();
  }

  @Override
  public void close() throws InterruptedException {
    writing = false;
    running = false;
    for (Thread t : threads) {
      t.interrupt();
      t.join(TimeUnit.SECONDS.toMillis(30));
    }
  }
}

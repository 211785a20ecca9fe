package io.nrtcluster.stress.bench;

import com.sun.net.httpserver.HttpExchange;
import io.nrtcluster.node.ClusterNode;
import io.nrtcluster.node.ClusterNodeInternals;
import io.nrtcluster.objectstore.BootstrapResult;
import io.nrtcluster.objectstore.HostObjectStore;
import io.nrtcluster.objectstore.ObjectStoreMetrics;
import io.nrtcluster.stress.EuroparlDocs;
import io.nrtcluster.stress.agent.JsonHttp;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.SegmentCommitInfo;
import org.apache.lucene.index.StandardDirectoryReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.Directory;

/**
 * The bootstrap figure's endpoints on a node process ({@link BootstrapFigure}): on the primary, build a
 * large index fast, commit, and carry a paced load in the background while replicas bootstrap; on any
 * node, what its object store and its copying from the primary did.
 */
final class BootstrapEndpoints implements AutoCloseable {
  private final String index;
  private final ClusterNode node;
  /** Null when this node opened its index without an object store. */
  private final HostObjectStore store;
  private final AtomicReference<PacedLoad> load = new AtomicReference<>();

  BootstrapEndpoints(String index, ClusterNode node, HostObjectStore store) {
    this.index = index;
    this.node = node;
    this.store = store;
  }

  void register(BenchAgent agent) {
    agent.route("/bootstrap-build", this::build);
    agent.route("/bootstrap-commit", ex -> JsonHttp.reply(ex, 200, new BenchApi.CommitReply(commit())));
    agent.route("/bootstrap-load-start", this::startLoad);
    agent.route("/bootstrap-load-docs", ex -> {
      PacedLoad l = load.get();
      JsonHttp.reply(ex, 200, new BenchApi.DocsReply(l == null ? 0 : l.docs.get(), System.nanoTime()));
    });
    agent.route("/bootstrap-load-stop", this::stopLoad);
    agent.route("/bootstrap-store", this::storeStatus);
  }

  private long commit() throws IOException {
    long version = node.refresh();
    node.commit();
    return version;
  }

  /**
   * Europarl documents on two threads as fast as they go until the index's files on disk reach
   * {@code bytes} (flushes come from the writer's RAM buffer), a force-merge to {@code mergeToSegments}
   * segments when asked, then a refresh and a commit.
   */
  private void build(HttpExchange ex) throws Exception {
    long bytes = JsonHttp.number(ex, "bytes", 64L << 20);
    long mergeToSegments = JsonHttp.number(ex, "mergeToSegments", 0);
    // Elected is not yet leading: the role comes before the writer is open.
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (ClusterNodeInternals.primaryOf(node) == null && System.nanoTime() < deadline) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
    IndexWriter writer = BenchIndex.of(node).writer();
    AtomicLong docs = new AtomicLong();
    AtomicBoolean done = new AtomicBoolean();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    long start = System.nanoTime();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      int me = t;
      threads.add(Thread.ofPlatform().name("bench-build-" + t).start(() -> {
        try (EuroparlDocs corpus = new EuroparlDocs()) {
          for (int skip = 0; skip < me * 997; skip++) {
            corpus.next();
          }
          long n = 0;
          while (!done.get() && failure.get() == null) {
            writer.addDocument(corpus.nextDocument("b" + me + "-" + n++));
            if (docs.incrementAndGet() % 20_000 == 0 && sizeOnDisk(writer.getDirectory()) >= bytes) {
              done.set(true);
            }
          }
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      }));
    }
    for (Thread t : threads) {
      t.join();
    }
    if (failure.get() != null) {
      throw new IOException("the build failed: " + failure.get(), failure.get());
    }
    if (mergeToSegments > 0) {
      writer.forceMerge((int) mergeToSegments);
    }
    long version = commit();
    JsonHttp.reply(ex, 200, new BenchApi.BuildReply(docs.get(), sizeOnDisk(writer.getDirectory()), version,
        System.nanoTime() - start));
  }

  static long sizeOnDisk(Directory dir) throws IOException {
    long sum = 0;
    for (String f : dir.listAll()) {
      try {
        sum += dir.fileLength(f);
      } catch (IOException e) {
        // deleted by a merge meanwhile
      }
    }
    return sum;
  }

  private void startLoad(HttpExchange ex) throws IOException {
    PacedLoad l = new PacedLoad(node, (int) JsonHttp.number(ex, "docsPerSec", 1000), JsonHttp.number(ex, "refreshMs", 1000));
    if (!load.compareAndSet(null, l)) {
      throw new IllegalArgumentException("a load is already running");
    }
    l.start();
    JsonHttp.reply(ex, 200, new BenchApi.DocsReply(0, System.nanoTime()));
  }

  private void stopLoad(HttpExchange ex) throws Exception {
    PacedLoad l = load.getAndSet(null);
    if (l == null) {
      throw new IllegalArgumentException("no load is running");
    }
    l.stop();
    JsonHttp.reply(ex, 200, new BenchApi.DocsReply(l.docs.get(), System.nanoTime()));
  }

  private void storeStatus(HttpExchange ex) throws IOException {
    ObjectStoreMetrics.Snapshot s = store == null ? null : store.metrics(index).map(ObjectStoreMetrics::snapshot).orElse(null);
    String outcome = store == null ? null
        : store.bootstrapResult(index).map(BootstrapResult::outcome).map(Enum::name).orElse(null);
    long fromPrimary = node.replica() == null ? 0 : node.replica().stats().bytesCopied();
    JsonHttp.reply(ex, 200, new BenchApi.StoreReply(s == null ? -1 : s.lastBackedUpVersion(),
        s == null ? 0 : s.bytesUploaded(), s == null ? 0 : s.bytesDownloaded(), outcome, fromPrimary,
        node.searchingVersion(), pointBytes()));
  }

  /** The bytes of the files of the version this node searches: what a new replica must end up with. */
  private long pointBytes() throws IOException {
    IndexSearcher s = node.acquireSearcher();
    try {
      long sum = 0;
      if (s.getIndexReader() instanceof StandardDirectoryReader r) {
        for (SegmentCommitInfo info : r.getSegmentInfos()) {
          sum += info.sizeInBytes();
        }
      }
      return sum;
    } finally {
      node.releaseSearcher(s);
    }
  }

  @Override
  public void close() throws InterruptedException {
    PacedLoad l = load.getAndSet(null);
    if (l != null) {
      l.stop();
    }
  }

  /** Europarl documents at a set rate on one thread (no bursts after falling behind) and a refresh every interval. */
  private static final class PacedLoad {
    private final ClusterNode node;
    private final long periodNanos;
    private final long refreshNanos;
    private final AtomicLong docs = new AtomicLong();
    private final AtomicBoolean stopped = new AtomicBoolean();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private Thread indexer;
    private Thread refresher;

    PacedLoad(ClusterNode node, int docsPerSec, long refreshMs) {
      this.node = node;
      this.periodNanos = TimeUnit.SECONDS.toNanos(1) / docsPerSec;
      this.refreshNanos = TimeUnit.MILLISECONDS.toNanos(refreshMs);
    }

    void start() {
      indexer = Thread.ofPlatform().name("bench-paced-indexer").start(() -> {
        try (EuroparlDocs corpus = new EuroparlDocs()) {
          long next = System.nanoTime();
          long n = 0;
          while (!stopped.get()) {
            long now = System.nanoTime();
            if (next > now) {
              LockSupport.parkNanos(next - now);
              continue;
            } else if (now - next > TimeUnit.MILLISECONDS.toNanos(100)) {
              next = now; // fell behind: do not burst to catch up
            }
            next += periodNanos;
            node.addDocument(corpus.nextDocument("p" + n++));
            docs.incrementAndGet();
          }
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      });
      refresher = Thread.ofPlatform().name("bench-paced-refresher").start(() -> {
        long next = System.nanoTime() + refreshNanos;
        while (!stopped.get()) {
          long now = System.nanoTime();
          if (next > now) {
            LockSupport.parkNanos(next - now);
            continue;
          }
          next = Math.max(next + refreshNanos, System.nanoTime());
          try {
            node.refresh();
          } catch (Throwable e) {
            failure.compareAndSet(null, e);
            return;
          }
        }
      });
    }

    void stop() throws InterruptedException {
      stopped.set(true);
      LockSupport.unpark(indexer);
      LockSupport.unpark(refresher);
      indexer.join();
      refresher.join();
      if (failure.get() != null) {
        throw new IllegalStateException("the paced load failed: " + failure.get(), failure.get());
      }
    }
  }
}

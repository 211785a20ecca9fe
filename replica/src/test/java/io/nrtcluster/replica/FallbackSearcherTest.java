package io.nrtcluster.replica;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.Field;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The fallback searcher a replica serves during a resync is given up by three paths that can run at
 * once: the catch-up's reopen, the scrub's repair and close. Exactly one of them releases it.
 */
@Timeout(10)
class FallbackSearcherTest {
  private Directory dir;
  private DirectoryReader reader;
  private final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();

  @BeforeEach
  void openReader() throws IOException {
    dir = new ByteBuffersDirectory();
    try (IndexWriter w = new IndexWriter(dir, new IndexWriterConfig())) {
      Document d = new Document();
      d.add(new StringField("id", "1", Field.Store.NO));
      w.addDocument(d);
    }
    reader = DirectoryReader.open(dir);
  }

  @AfterEach
  void closeReader() throws IOException {
    if (reader.getRefCount() > 0) {
      reader.close();
    }
    dir.close();
  }

  private void release(IndexSearcher s) {
    try {
      s.getIndexReader().decRef();
    } catch (IOException | RuntimeException e) {
      failures.add(e);
    }
  }

  /** The holder's own reference, as the resync acquires it from the old node. */
  private IndexSearcher held() {
    reader.incRef();
    return new IndexSearcher(reader);
  }

  @Test
  void theReopenTheScrubAndCloseReleasingAtOnceReleaseItOnce() throws Exception {
    String[] paths = {"reopen", "scrub repair", "close"};
    CyclicBarrier allTook = new CyclicBarrier(paths.length);
    FallbackSearcher fallback = new FallbackSearcher(this::release, () -> {
      // Each path has taken what it will release; none has released yet.
      try {
        allTook.await(5, TimeUnit.SECONDS);
      } catch (InterruptedException | BrokenBarrierException | TimeoutException e) {
        failures.add(e);
      }
    });
    fallback.hold(held());
    assertThat(reader.getRefCount()).isEqualTo(2);

    List<Thread> threads = new ArrayList<>();
    for (String path : paths) {
      threads.add(Thread.ofPlatform().name("fallback-" + path).start(fallback::release));
    }
    for (Thread t : threads) {
      t.join(TimeUnit.SECONDS.toMillis(8));
      assertThat(t.isAlive()).as("%s finished", t.getName()).isFalse();
    }

    assertThat(failures).as("no decRef of a closed reader").isEmpty();
    assertThat(reader.getRefCount()).as("the holder's reference released exactly once").isEqualTo(1);
    assertThat(fallback.acquire()).isNull();
  }

  @Test
  void holdingAnotherSearcherReleasesTheOneHeldBefore() throws Exception {
    FallbackSearcher fallback = new FallbackSearcher(this::release);
    fallback.hold(held());
    fallback.hold(held());
    assertThat(reader.getRefCount()).as("the first reference is not leaked").isEqualTo(2);
    fallback.release();
    assertThat(reader.getRefCount()).isEqualTo(1);
    assertThat(failures).isEmpty();
  }

  @Test
  void aSearchGetsItsOwnReferenceUntilTheFallbackIsReleased() throws Exception {
    FallbackSearcher fallback = new FallbackSearcher(this::release);
    fallback.hold(held());
    IndexSearcher s = fallback.acquire();
    assertThat(s).isNotNull();
    assertThat(reader.getRefCount()).isEqualTo(3);
    fallback.release();
    release(s);
    assertThat(reader.getRefCount()).isEqualTo(1);
    assertThat(fallback.acquire()).isNull();
    fallback.release();
    assertThat(reader.getRefCount()).as("releasing nothing releases nothing").isEqualTo(1);
    assertThat(failures).isEmpty();
  }
}

package io.nrtcluster.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.nrtcluster.common.NamedThreadFactory;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.SerialExecutor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The scrub on its own, over a real index, with its steps on a serial executor over a shared pool
 * of several threads, as a host runs it: a file too big for one step is read by steps on different
 * threads, and must still be verified (or found corrupt) as a whole.
 */
@Timeout(60)
class ScrubberTest {
  /** Slow enough that the stored-fields file takes about ten steps, fast enough for a short test. */
  private static final long PACE = 16L << 20;
  private static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir Path dir;
  private final long seed = TestSeeds.seed();
  private final Random random = new Random(seed);
  private final NodeLog log = new NodeLog(LoggerFactory.getLogger(ScrubberTest.class), "T1", () -> -1);
  private final ReplicaStats stats = new ReplicaStats(ReplicaObserver.NONE);
  /** Threads the pool ran the scrub's steps on. */
  private final Set<String> stepThreads = ConcurrentHashMap.newKeySet();
  private final List<String> corrupt = new CopyOnWriteArrayList<>();
  private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, new NamedThreadFactory("t-timer"));
  /*
   * A JDK pool hands each task to the thread that has been idle longest, so consecutive steps run on
   * different threads: what a host's busy pool does to a scrub while other indexes' work takes the
   * thread the last step ran on.
   */
  private final ExecutorService pool = Executors.newFixedThreadPool(4, new NamedThreadFactory("t-work"));
  private Scrubber scrubber;
  private final Logger logger = (Logger) LoggerFactory.getLogger(ScrubberTest.class);
  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();

  @BeforeEach
  void printSeed() {
    System.out.println("ScrubberTest seed " + seed);
    logged.start();
    logger.addAppender(logged);
  }

  @AfterEach
  void stop() {
    if (scrubber != null) {
      scrubber.close(5_000);
    }
    pool.shutdownNow();
    timer.shutdownNow();
    logger.detachAppender(logged);
  }

  @Test
  void aPassOverAFileOfManyStepsOnAPoolOfSeveralThreadsVerifiesEveryFile() throws Exception {
    Path index = dir.resolve("index");
    Collection<String> files = buildIndex(index);
    long total = totalBytes(index, files);

    scrubber = start(index, files);

    await("one whole pass, seed " + seed).atMost(WAIT).until(() -> stats.bytesVerified() >= total);
    assertThat(corrupt).as("seed %d", seed).isEmpty();
    assertThat(stepThreads).as("the steps ran on several threads").hasSizeGreaterThan(1);
  }

  @Test
  void aFlippedByteInAFileOfManyStepsIsReported() throws Exception {
    Path index = dir.resolve("index");
    Collection<String> files = buildIndex(index);
    String flipped = flipInLargestFile(index, files);

    scrubber = start(index, files);

    await("the flipped file reported, seed " + seed).atMost(WAIT).until(() -> corrupt.contains(flipped));
    assertThat(stepThreads).as("the steps ran on several threads").hasSizeGreaterThan(1);
  }

  @Test
  void aStepThatFailsIsLoggedOncePerKindAndTheScrubGoesOnWithItsNextPass() throws Exception {
    Path index = dir.resolve("index");
    Collection<String> files = buildIndex(index);
    long total = totalBytes(index, files);
    AtomicInteger reads = new AtomicInteger();
    AtomicLong verifiedBeforeLastFailure = new AtomicLong(-1);

    // Each failed read ends its pass: three passes fail one way, two another, then reads succeed.
    scrubber = start(index, files, (fileName, offset) -> {
      int n = reads.incrementAndGet();
      if (n <= 3) {
        throw new IllegalStateException("injected failure " + n);
      }
      if (n <= 5) {
        verifiedBeforeLastFailure.set(stats.bytesVerified());
        throw new IOException("injected read error " + n);
      }
    });

    await("a whole pass after five failed ones, seed " + seed).atMost(WAIT)
        .until(() -> verifiedBeforeLastFailure.get() >= 0 && reads.get() > 5
            && stats.bytesVerified() >= verifiedBeforeLastFailure.get() + total);
    List<String> warnings = logged.list.stream().filter(e -> e.getLevel() == Level.WARN)
        .map(ILoggingEvent::getFormattedMessage).toList();
    assertThat(warnings).as("one line per kind of failure, not one per failure").hasSize(2);
    assertThat(warnings.get(0)).contains("IllegalStateException");
    assertThat(warnings.get(1)).contains("IOException");
    assertThat(stats.scrubFailures()).as("each failure counted").isEqualTo(5);
    assertThat(corrupt).isEmpty();
  }

  private Scrubber start(Path index, Collection<String> files) {
    return start(index, files, Scrubber.ReadFault.NONE);
  }

  private Scrubber start(Path index, Collection<String> files, Scrubber.ReadFault fault) {
    SerialExecutor executor = new SerialExecutor("t-scrub", task -> pool.execute(() -> {
      stepThreads.add(Thread.currentThread().getName());
      task.run();
    }), timer);
    Scrubber s = new Scrubber(ScrubConfig.builder().bytesPerSecond(PACE).interval(Duration.ofMillis(100)).build(), index,
        log, stats, new Scrubber.Target() {
          @Override
          public Collection<String> searchedFiles() {
            return files;
          }

          @Override
          public void corrupt(String fileName, String reason) {
            corrupt.add(fileName);
          }
        }, executor, fault);
    s.start();
    return s;
  }

  /** An index of one segment whose stored fields (random, so incompressible) take about 3 MiB. */
  private Collection<String> buildIndex(Path index) throws IOException {
    try (Directory d = FSDirectory.open(index);
        IndexWriter w = new IndexWriter(d, new IndexWriterConfig().setMergePolicy(NoMergePolicy.INSTANCE))) {
      for (int i = 0; i < 48; i++) {
        byte[] value = new byte[64 * 1024];
        random.nextBytes(value);
        Document doc = new Document();
        doc.add(new StoredField("body", value));
        w.addDocument(doc);
      }
      w.commit();
    }
    try (Directory d = FSDirectory.open(index)) {
      return new ArrayList<>(SegmentInfos.readLatestCommit(d).files(true));
    }
  }

  private static long totalBytes(Path index, Collection<String> files) throws IOException {
    long n = 0;
    for (String f : files) {
      n += Files.size(index.resolve(f));
    }
    return n;
  }

  /** Flips one bit in the middle half of the largest of {@code files}, its modification time put back. */
  private String flipInLargestFile(Path index, Collection<String> files) throws IOException {
    String largest = null;
    for (String f : files) {
      if (largest == null || Files.size(index.resolve(f)) > Files.size(index.resolve(largest))) {
        largest = f;
      }
    }
    Path p = index.resolve(largest);
    assertThat(Files.size(p)).as("a file of many steps").isGreaterThan(PACE / 8);
    FileTime mtime = Files.getLastModifiedTime(p);
    long at = Files.size(p) / 4 + random.nextLong(Files.size(p) / 2);
    try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(1);
      ch.read(b, at);
      b.put(0, (byte) (b.get(0) ^ (1 << random.nextInt(8))));
      b.rewind();
      ch.write(b, at);
    }
    Files.setLastModifiedTime(p, mtime);
    return largest;
  }
}

package io.nrtcluster.objectstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.common.NodeLog;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexOutput;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * {@link BlobStore} against a real S3-compatible server (S3Proxy on loopback): calls, retries, refusals,
 * faults, deadlines.
 */
@Timeout(120)
class BlobStoreTest {
  private static final NodeLog LOG = new NodeLog(LoggerFactory.getLogger(BlobStoreTest.class), "T", () -> -1);

  @TempDir Path tmp;
  private S3TestServer server;

  @BeforeEach
  void start() throws Exception {
    server = S3TestServer.start();
  }

  @AfterEach
  void stop() throws Exception {
    server.close();
  }

  @Test
  void putGetHeadListDelete() throws Exception {
    ObjectStoreMetrics metrics = new ObjectStoreMetrics();
    try (BlobStore store = BlobStore.open(server.config().build(), metrics)) {
      store.put("a/one", "1".getBytes(StandardCharsets.UTF_8));
      store.put("a/two", "22".getBytes(StandardCharsets.UTF_8));
      store.put("b/three", "333".getBytes(StandardCharsets.UTF_8));
      assertThat(store.get("a/two")).hasValueSatisfying(b -> assertThat(new String(b, StandardCharsets.UTF_8)).isEqualTo("22"));
      assertThat(store.get("a/none")).isEmpty();
      assertThat(store.head("b/three")).hasValueSatisfying(o -> assertThat(o.size()).isEqualTo(3));
      assertThat(store.head("b/none")).isEmpty();
      assertThat(store.list("a/")).extracting(ObjectInfo::key).containsExactly("a/one", "a/two");
      store.delete(List.of("a/one", "a/two", "a/none"));
      assertThat(store.list("a/")).isEmpty();
      assertThat(metrics.snapshot().requestFailures()).isZero();
    }
  }

  @Test
  void viewsShareOneClientAndEachCountsOnlyWhatItSent() throws Exception {
    ObjectStoreMetrics ownerMetrics = new ObjectStoreMetrics();
    ObjectStoreMetrics aMetrics = new ObjectStoreMetrics();
    ObjectStoreMetrics bMetrics = new ObjectStoreMetrics();
    int built = BlobStore.clientsBuilt();
    BlobStore owner = BlobStore.open(server.config().build(), ownerMetrics, LOG);
    BlobStore b;
    try (owner) {
      BlobStore a = owner.view(aMetrics, LOG);
      b = owner.view(bMetrics, LOG);
      assertThat(BlobStore.clientsBuilt() - built).as("clients built for the store and its two views").isEqualTo(1);
      a.put("a/k", new byte[1000]);
      b.put("b/k", new byte[10]);
      b.put("b/l", new byte[20]);
      assertThat(b.get("a/k")).hasValueSatisfying(bytes -> assertThat(bytes).hasSize(1000));

      assertThat(aMetrics.snapshot()).extracting(ObjectStoreMetrics.Snapshot::requests,
          ObjectStoreMetrics.Snapshot::bytesUploaded, ObjectStoreMetrics.Snapshot::bytesDownloaded).containsExactly(1L, 1000L, 0L);
      assertThat(bMetrics.snapshot()).extracting(ObjectStoreMetrics.Snapshot::requests,
          ObjectStoreMetrics.Snapshot::bytesUploaded, ObjectStoreMetrics.Snapshot::bytesDownloaded).containsExactly(3L, 30L, 1000L);
      assertThat(ownerMetrics.snapshot()).as("the owner's own bucket check only").extracting(
          ObjectStoreMetrics.Snapshot::requests, ObjectStoreMetrics.Snapshot::bytesUploaded).containsExactly(1L, 0L);

      a.close(); // a view closes nothing
      b.put("b/m", new byte[1]);
      assertThat(server.read("b/m")).hasSize(1);
    }
    assertThatThrownBy(() -> b.put("b/n", new byte[1])).as("the owner closed the client of every view")
        .isInstanceOf(ObjectStoreUnavailableException.class).hasMessageContaining("closed");
    assertThat(server.read("b/n")).isNull();
  }

  /**
   * Many views (a host's indexes) sending at once through one small pool to a slow store: a request
   * waits for one of the host's connections instead of failing for want of one.
   */
  @Test
  void manyViewsSendingAtOnceThroughASmallPoolNeverFailForAConnection() throws Exception {
    // 3 connections (maxParallelTransfers + 2); a request the pool gives no connection within the
    // connect timeout fails, and with a single attempt that failure is final.
    ObjectStoreConfig config = server.config().maxParallelTransfers(1).maxAttempts(1)
        .connectTimeout(Duration.ofSeconds(1)).build();
    int views = 16;
    int putsEach = 2;
    List<ObjectStoreMetrics> metrics = new ArrayList<>();
    List<String> failures = new CopyOnWriteArrayList<>();
    ExecutorService senders = Executors.newFixedThreadPool(views);
    try (BlobStore owner = BlobStore.open(config, new ObjectStoreMetrics(), LOG)) {
      server.delayEach(Duration.ofMillis(400));
      List<Future<?>> sent = new ArrayList<>();
      for (int v = 0; v < views; v++) {
        ObjectStoreMetrics m = new ObjectStoreMetrics();
        metrics.add(m);
        BlobStore view = owner.view(m, LOG);
        String prefix = "v" + v + "/";
        sent.add(senders.submit(() -> {
          for (int i = 0; i < putsEach; i++) {
            try {
              view.put(prefix + i, new byte[100]);
            } catch (IOException e) {
              failures.add(prefix + i + ": " + e);
            }
          }
        }));
      }
      for (Future<?> f : sent) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      senders.shutdownNow();
      server.delayEach(Duration.ZERO);
    }
    assertThat(failures).as("requests that failed").isEmpty();
    for (ObjectStoreMetrics m : metrics) {
      assertThat(m.snapshot().requests()).isEqualTo(putsEach);
      assertThat(m.snapshot().requestFailures()).isZero();
    }
    assertThat(server.keys("v")).hasSize(views * putsEach);
  }

  @Test
  void aCallWaitingForAConnectionStopsAtItsDeadlineOrAtAnInterrupt() throws Exception {
    ObjectStoreMetrics metrics = new ObjectStoreMetrics();
    ExecutorService holders = Executors.newFixedThreadPool(3);
    try (BlobStore store = BlobStore.open(server.config().maxParallelTransfers(1).build(), metrics, LOG)) {
      long sentAtOpen = metrics.snapshot().requests();
      server.delayEach(Duration.ofSeconds(2));
      List<Future<?>> holding = new ArrayList<>();
      for (int i = 0; i < 3; i++) { // every connection of the pool (maxParallelTransfers + 2)
        String key = "slow/" + i;
        holding.add(holders.submit(() -> {
          store.put(key, new byte[1]);
          return null;
        }));
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> metrics.snapshot().requests() == sentAtOpen + 3);

      long start = System.nanoTime();
      assertThatThrownBy(() -> store.delete("x", Deadline.after(start, Duration.ofMillis(300))))
          .isInstanceOf(LeaseExpiredException.class);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(1500));
      Thread.currentThread().interrupt();
      assertThatThrownBy(() -> store.delete("x")).isInstanceOf(java.io.InterruptedIOException.class);
      assertThat(Thread.interrupted()).as("the interrupt flag stays set").isTrue();
      assertThat(metrics.snapshot().requests()).as("neither delete was sent").isEqualTo(sentAtOpen + 3);
      for (Future<?> f : holding) {
        f.get(30, TimeUnit.SECONDS);
      }
    } finally {
      holders.shutdownNow();
      server.delayEach(Duration.ZERO);
    }
  }

  @Test
  void largeFileGoesUpInPartsAndComesBackWhole() throws Exception {
    byte[] data = randomBytes(11, (int) (2.5 * ObjectStoreConfig.MIN_PART_SIZE));
    try (Directory dir = FSDirectory.open(tmp.resolve("idx"));
        BlobStore store = BlobStore.open(server.config().build(), new ObjectStoreMetrics())) {
      write(dir, "_0.cfs", data);
      store.putFile("files/_0.cfs", dir, "_0.cfs", data.length);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      assertThat(store.get("files/_0.cfs", () -> {
        out.reset();
        return out;
      })).isEqualTo(data.length);
      assertThat(out.toByteArray()).isEqualTo(data);
      assertThat(store.metrics().snapshot().bytesUploaded()).isEqualTo(data.length);
    }
  }

  @Test
  void wrongCredentialsFailAtOpenNamingTheBucketWithoutRetrying() {
    ObjectStoreMetrics metrics = new ObjectStoreMetrics();
    long start = System.nanoTime();
    assertThatThrownBy(() -> BlobStore.open(server.config().credentials(S3TestServer.ACCESS_KEY, "wrong").build(), metrics))
        .isInstanceOfSatisfying(ObjectStoreAccessException.class, e -> {
          assertThat(e.bucket()).isEqualTo(S3TestServer.BUCKET);
          assertThat(e.getMessage()).contains(S3TestServer.BUCKET, "403");
        });
    assertThat(metrics.snapshot().requestFailures()).isZero();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
  }

  @Test
  void missingBucketIsAnAccessError() {
    assertThatThrownBy(() -> BlobStore.open(server.config().bucket("no-such-bucket").build(), new ObjectStoreMetrics()))
        .isInstanceOfSatisfying(ObjectStoreAccessException.class,
            e -> assertThat(e.getMessage()).contains("no-such-bucket", "does not exist"));
  }

  @Test
  void unreachableStoreIsATypedConnectionErrorAfterBoundedRetries() throws Exception {
    ObjectStoreMetrics metrics = new ObjectStoreMetrics();
    ObjectStoreConfig config = server.config().maxAttempts(3).build();
    try (BlobStore store = BlobStore.open(config, metrics)) {
      server.stop();
      assertThatThrownBy(() -> store.put("k", new byte[] {1}))
          .isInstanceOfSatisfying(ObjectStoreUnavailableException.class, e -> {
            assertThat(e.attempts()).isEqualTo(3);
            assertThat(e.getMessage()).contains(S3TestServer.BUCKET, "k");
          })
          .isInstanceOf(io.nrtcluster.common.ConnectionException.class);
      assertThat(metrics.snapshot().requestFailures()).isEqualTo(3);
    }
  }

  @Test
  void serverErrorsAreRetried() throws Exception {
    ObjectStoreMetrics metrics = new ObjectStoreMetrics();
    try (BlobStore store = BlobStore.open(server.config().maxAttempts(4).build(), metrics)) {
      long requests = metrics.snapshot().requests();
      server.failNext(3);
      store.put("k", new byte[] {7});
      assertThat(metrics.snapshot().requestFailures()).isEqualTo(3);
      assertThat(metrics.snapshot().requests() - requests).as("every attempt counted").isEqualTo(4);
      assertThat(server.read("k")).containsExactly(7);

      server.failNext(10);
      assertThatThrownBy(() -> store.get("k")).isInstanceOf(ObjectStoreUnavailableException.class);
      server.failNext(0);
    }
  }

  @Test
  void serverStoppedMidUploadAndRestartedTheUploadCompletes() throws Exception {
    byte[] data = randomBytes(12, 200_000);
    ObjectStoreConfig config = server.config().maxAttempts(20).backoff(Duration.ofMillis(100), Duration.ofSeconds(1)).build();
    try (Directory dir = FSDirectory.open(tmp.resolve("idx"));
        BlobStore store = BlobStore.open(config, new ObjectStoreMetrics())) {
      write(dir, "_1.fdt", data);
      server.stopDuringNextUpload();
      CompletableFuture<Void> restarted = CompletableFuture.runAsync(() -> {
        await().atMost(Duration.ofSeconds(30)).until(() -> !server.isRunning());
        try {
          server.restart();
        } catch (Exception e) {
          throw new RuntimeException(e);
        }
      });
      store.putFile("files/_1.fdt", dir, "_1.fdt", data.length);
      restarted.get();
      assertThat(server.read("files/_1.fdt")).isEqualTo(data);
      assertThat(store.metrics().snapshot().requestFailures()).isPositive();
    }
  }

  @Test
  void multipartUploadCutByAStoppedServerLeavesNoObject() throws Exception {
    byte[] data = randomBytes(13, (int) (1.5 * ObjectStoreConfig.MIN_PART_SIZE));
    try (Directory dir = FSDirectory.open(tmp.resolve("idx"));
        BlobStore store = BlobStore.open(server.config().maxAttempts(2).build(), new ObjectStoreMetrics())) {
      write(dir, "_2.cfs", data);
      server.stopDuringNextUpload();
      assertThatThrownBy(() -> store.putFile("files/_2.cfs", dir, "_2.cfs", data.length))
          .isInstanceOf(ObjectStoreUnavailableException.class);
      server.restart();
      assertThat(store.head("files/_2.cfs")).isEmpty();
      assertThat(server.keys("files/")).isEmpty();
    }
  }

  @Test
  void anIndexFileIsCheckedAsItGoesUpAcrossRetriedRequestsAndParts() throws Exception {
    ObjectStoreMetrics metrics = new ObjectStoreMetrics();
    try (Directory dir = FSDirectory.open(tmp.resolve("idx"));
        BlobStore store = BlobStore.open(server.config().maxAttempts(4).build(), metrics)) {
      for (int size : new int[] {100_000, (int) (2.5 * ObjectStoreConfig.MIN_PART_SIZE)}) {
        String name = "_" + size + ".fdt";
        FileEntry f = writeIndexFile(dir, name, randomBytes(size, size));
        long failuresBefore = metrics.snapshot().requestFailures();
        server.failNext(2); // the first request (or part) is sent three times: its bytes must count once
        store.putFile("files/" + name, dir, f);
        assertThat(metrics.snapshot().requestFailures() - failuresBefore).isEqualTo(2);
        assertThat(server.read("files/" + name)).hasSize((int) f.length());

        FileEntry wrong = new FileEntry(name, f.length(), f.checksum() ^ 1);
        assertThatThrownBy(() -> store.putFile("files/wrong" + name, dir, wrong))
            .isInstanceOfSatisfying(io.nrtcluster.common.CorruptLocalFileException.class,
                e -> assertThat(e.files()).containsExactly(name));
        assertThat(metrics.snapshot().requestFailures() - failuresBefore).as("never retried").isEqualTo(2);
        assertThat(server.keys("files/wrong")).isEmpty();
      }
    }
  }

  @Test
  void aCallBoundToADeadlineThatHasPassedSendsNothing() throws Exception {
    ObjectStoreMetrics metrics = new ObjectStoreMetrics();
    try (BlobStore store = BlobStore.open(server.config().build(), metrics)) {
      long before = server.operations();
      Deadline passed = Deadline.after(System.nanoTime(), Duration.ZERO);
      assertThatThrownBy(() -> store.put("k", new byte[] {1}, passed))
          .isInstanceOf(LeaseExpiredException.class)
          .isInstanceOf(ObjectStoreUnavailableException.class);
      assertThatThrownBy(() -> store.delete(List.of("a", "b"), passed)).isInstanceOf(LeaseExpiredException.class);
      assertThat(server.operations()).as("requests that reached the store").isEqualTo(before);
      assertThat(server.read("k")).isNull();
      assertThat(metrics.snapshot().requestFailures()).isZero();
    }
  }

  @Test
  void aBackoffThatWouldEndPastTheDeadlineIsNotSlept() throws Exception {
    ObjectStoreMetrics metrics = new ObjectStoreMetrics();
    ObjectStoreConfig config = server.config().maxAttempts(5).backoff(Duration.ofSeconds(5), Duration.ofSeconds(5)).build();
    try (BlobStore store = BlobStore.open(config, metrics)) {
      server.failNext(5);
      long start = System.nanoTime();
      assertThatThrownBy(() -> store.delete("k", Deadline.after(start, Duration.ofSeconds(2))))
          .isInstanceOfSatisfying(LeaseExpiredException.class, e -> assertThat(e.attempts()).isEqualTo(1));
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
      assertThat(metrics.snapshot().requestFailures()).isEqualTo(1);
      server.failNext(0);
    }
  }

  @Test
  void anAttemptUnderWayIsCutAtTheDeadline() throws Exception {
    ObjectStoreMetrics metrics = new ObjectStoreMetrics();
    ObjectStoreConfig config = server.config().maxAttempts(5).socketTimeout(Duration.ofSeconds(30)).build();
    try (BlobStore store = BlobStore.open(config, metrics)) {
      server.delayEach(Duration.ofSeconds(5));
      long start = System.nanoTime();
      assertThatThrownBy(() -> store.put("k", new byte[] {1}, Deadline.after(start, Duration.ofMillis(500))))
          .isInstanceOf(LeaseExpiredException.class);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).as("cut at the deadline, not at the socket timeout")
          .isLessThan(Duration.ofSeconds(3));
      assertThat(Thread.currentThread().isInterrupted()).as("the cut leaves no interrupt behind").isFalse();
      assertThat(metrics.snapshot().requestFailures()).isEqualTo(1);
      server.delayEach(Duration.ZERO);
    }
  }

  /** Writes {@code body} as a Lucene file (codec header and checksum footer); returns its entry. */
  static FileEntry writeIndexFile(Directory dir, String name, byte[] body) throws Exception {
    try (IndexOutput out = dir.createOutput(name, IOContext.DEFAULT)) {
      org.apache.lucene.codecs.CodecUtil.writeHeader(out, "test", 0);
      out.writeBytes(body, body.length);
      org.apache.lucene.codecs.CodecUtil.writeFooter(out);
    }
    try (var in = dir.openInput(name, IOContext.READONCE)) {
      return new FileEntry(name, in.length(), org.apache.lucene.codecs.CodecUtil.retrieveChecksum(in));
    }
  }

  static byte[] randomBytes(long seed, int n) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  static void write(Directory dir, String name, byte[] data) throws Exception {
    try (IndexOutput out = dir.createOutput(name, IOContext.DEFAULT)) {
      out.writeBytes(data, data.length);
    }
  }
}

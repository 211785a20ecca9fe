package io.nrtcluster.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.common.InsufficientStorageException;
import io.nrtcluster.common.WriterLostException;
import io.nrtcluster.election.MemberInfo;
import io.nrtcluster.election.NotWritableReason;
import io.nrtcluster.election.Role;
import io.nrtcluster.election.StepDownReason;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.index.CheckIndex;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.NoLockFactory;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The primary's data directory on a real, size-limited tmpfs (root only; skipped otherwise): below
 * the free-space floor writes are refused with a typed error, the node, its status and its member
 * record say it is not writable and why, and writes resume by themselves; with no
 * floor, Lucene itself hits "No space left on device" and the primary steps down.
 */
@Timeout(240)
class DiskFullTest {
  private static final long MIB = 1 << 20;
  @TempDir Path dir;

  @BeforeEach
  void mergeThreadsMayFail() {
    // A merge that runs out of space ends its merge thread with an uncaught exception, on purpose;
    // Awaitility would otherwise fail whichever wait is running at that moment.
    Awaitility.doNotCatchUncaughtExceptionsByDefault();
  }

  @AfterEach
  void resetAwaitility() {
    Awaitility.reset();
  }

  @Test
  void belowTheFloorWritesAreRefusedWhileRefreshesAndSearchesGoOnAndTheyResumeWhenSpaceReturns() throws Exception {
    long seed = TragicStepDownTest.seed();
    try (TmpfsMount disk = TmpfsMount.mount(dir.resolve("n1"), 64);
        ClusterHarness c = new ClusterHarness(dir, seed, 2)
            .configure(0, b -> b.minFreeDiskBytes(16 * MIB).freeSpaceCheckInterval(Duration.ofMillis(50)))
            .startWithFirstAsPrimary()) {
      ClusterNode primary = c.node(0);
      List<Integer> acked = new ArrayList<>();
      for (int id = 0; id < 200; id++) {
        primary.addDocument(c.doc(id));
        acked.add(id);
      }
      long v = primary.refresh();
      c.awaitAllAt(v);
      long gen = primary.primaryGen();

      Path filler = disk.fill("filler", 8 * MIB);
      InsufficientStorageException refused = await("a refusal (seed " + seed + ")").atMost(Duration.ofSeconds(10))
          .until(() -> tryWrite(primary, c.doc(99_999)), e -> e != null);
      assertThat(refused.dataDir()).startsWith(disk.path().toString());
      assertThat(refused.usableBytes()).isLessThan(16 * MIB);
      assertThat(refused.getMessage()).contains(disk.path().toString(), "below the floor");
      assertThat(primary.status().belowDiskFloor()).isTrue();
      // Not writable, and why, wherever it is asked: the node itself, its status, its member record.
      assertThat(primary.isWritablePrimary()).as("seed %d", seed).isFalse();
      assertThat(primary.status().writable()).isFalse();
      assertThat(primary.status().notWritable()).isEqualTo(NotWritableReason.BELOW_DISK_FLOOR);
      await("the member record says why (seed " + seed + ")").atMost(Duration.ofSeconds(10))
          .until(() -> record(c, 0).notWritable() == NotWritableReason.BELOW_DISK_FLOOR);
      // Refreshes and searches go on; the node stays primary.
      long v2 = primary.refresh();
      assertThat(v2).isGreaterThanOrEqualTo(v);
      assertThat(ClusterHarness.count(primary)).isEqualTo(200);
      assertThat(primary.role()).isEqualTo(Role.PRIMARY);

      Files.delete(filler);
      await("writes resume (seed " + seed + ")").atMost(Duration.ofSeconds(10))
          .until(() -> tryWrite(primary, c.doc(200)) == null);
      acked.add(200);
      long v3 = primary.refresh();
      c.awaitAllAt(v3);
      c.assertAllSearchable(primary, acked);
      assertThat(primary.primaryGen()).as("no failover").isEqualTo(gen);
      assertThat(primary.status().belowDiskFloor()).isFalse();
      assertThat(primary.isWritablePrimary()).isTrue();
      assertThat(primary.status().notWritable()).isNull();
      await("the member record says writable again (seed " + seed + ")").atMost(Duration.ofSeconds(10))
          .until(() -> record(c, 0).writable());
    }
  }

  /** Node {@code i}'s member record as ZooKeeper holds it, read by another node. */
  private static MemberInfo record(ClusterHarness c, int i) throws IOException {
    int nodeId = c.node(i).status().nodeId();
    return c.node(1 - i).members().stream().filter(m -> m.nodeId() == nodeId).findFirst().orElseThrow();
  }

  /** Null when the write was admitted, else the refusal. */
  private static InsufficientStorageException tryWrite(ClusterNode n, Document d) throws IOException {
    try {
      n.addDocument(d);
      return null;
    } catch (InsufficientStorageException e) {
      return e;
    }
  }

  @Test
  void whenLuceneItselfRunsOutOfSpaceThePrimaryStepsDownAndNoAcknowledgedWriteIsLost() throws Exception {
    long seed = TragicStepDownTest.seed();
    Random random = new Random(seed);
    Path survivorIndex = dir.resolve("n2").resolve(ClusterHarness.INDEX).resolve("index");
    Path oldIndex = dir.resolve("n1").resolve(ClusterHarness.INDEX).resolve("index");
    try (TmpfsMount disk = TmpfsMount.mount(dir.resolve("n1"), 48)) {
      try (ClusterHarness c = new ClusterHarness(dir, seed, 2).configure(0, b -> b.minFreeDiskBytes(0)).startWithFirstAsPrimary()) {
        ClusterNode old = c.node(0);
        List<Integer> acked = new ArrayList<>();
        int next = 0;
        for (; next < 300; next++) {
          old.addDocument(padded(c, next, random));
          acked.add(next);
        }
        c.awaitAllAt(old.refresh());
        long oldGen = old.primaryGen();

        Path filler = disk.fill("filler", 2 * MIB);
        Exception failure = null;
        long failedAt = 0;
        // Refreshed and copied batches are acknowledged; the first one that fails is not.
        for (int batch = 0; batch < 200 && failure == null; batch++) {
          List<Integer> ids = new ArrayList<>();
          try {
            for (int k = 0; k < 100; k++, next++) {
              old.addDocument(padded(c, next, random));
              ids.add(next);
            }
            long v = old.refresh();
            c.awaitAllAt(v);
            acked.addAll(ids);
          } catch (IOException | RuntimeException e) {
            failure = e;
            failedAt = System.nanoTime();
          }
        }
        assertThat(failure).as("seed %d: the disk filled up", seed).isNotNull();
        System.out.printf("seed %d: the write or refresh that hit the full disk failed with %s%n", seed, failure);
        // From now on: the typed refusal naming the cause, and the other node takes over.
        int np = c.awaitPrimary();
        assertThat(np).as("seed %d", seed).isEqualTo(1);
        assertThatThrownBy(() -> old.addDocument(c.doc(1_000_000))).isInstanceOf(io.nrtcluster.common.NrtClusterException.class);
        assertThat(old.status().lastStepDown()).isNotNull();
        assertThat(old.status().lastStepDown().reason()).isEqualTo(StepDownReason.DISK_FULL);
        ClusterNode fresh = c.node(1);
        assertThat(fresh.primaryGen()).isGreaterThan(oldGen);
        fresh.addDocument(c.doc(2_000_000));
        acked.add(2_000_000);
        long v = fresh.refresh();
        System.out.printf("seed %d: full disk to the new primary's first acknowledged write: %d ms%n", seed,
            (System.nanoTime() - failedAt) / 1_000_000);
        c.assertAllSearchable(fresh, acked);

        // Space returns: the old node rejoins as a replica of the new primary and converges.
        Files.delete(filler);
        await("N1 replicates N2 (seed " + seed + ")").atMost(Duration.ofSeconds(60))
            .until(() -> old.role() == Role.REPLICA && ClusterHarness.view(old).version() >= v);
        c.assertSameHits(v);
        fresh.commit();
        old.commit();
      }
      assertClean(survivorIndex);
      assertClean(oldIndex);
    }
  }

  private static Document padded(ClusterHarness c, int id, Random random) {
    Document d = c.doc(id);
    byte[] pad = new byte[4096];
    random.nextBytes(pad);
    d.add(new StoredField("pad", pad));
    return d;
  }

  private static void assertClean(Path index) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (Directory d = FSDirectory.open(index);
        CheckIndex check = new CheckIndex(d, NoLockFactory.INSTANCE.obtainLock(d, "write.lock"))) {
      check.setInfoStream(new PrintStream(out, true, StandardCharsets.UTF_8));
      CheckIndex.Status status = check.checkIndex();
      assertThat(status.clean).as("CheckIndex of %s:%n%s", index, out.toString(StandardCharsets.UTF_8)).isTrue();
    }
  }
}

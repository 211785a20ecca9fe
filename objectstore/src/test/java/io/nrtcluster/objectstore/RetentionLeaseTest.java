package io.nrtcluster.objectstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leases against the store client's own retry budget (real S3-compatible server): a request held
 * back until after its lease, as retries with backoff and long socket timeouts can hold it, is never
 * sent. The hold is {@link BlobStore#beforeAttempt}, in the request path.
 */
@Timeout(120)
class RetentionLeaseTest {
  private static final Duration SWEEP_LEASE = Duration.ofSeconds(2);
  private static final Duration CLOCK_MARGIN = Duration.ofMillis(500);

  private static UnaryOperator<ObjectStoreConfig.Builder> leases(Duration backupLease) {
    return b -> b.sweepLease(SWEEP_LEASE).clockMargin(CLOCK_MARGIN).backupLease(backupLease);
  }

  @RegisterExtension final StoreFixture fixture = StoreFixture.of(RetentionLeaseTest.class, "P1", "");

  @TempDir Path tmp;

  /**
   * A sweep decided to delete the files of a point no manifest names and sent nothing yet; its first
   * delete is held (as a store answering 5xx through backoffs would hold it) while a backup of that
   * point waits out the sweep's lease plus the margin, finds the files there, reuses them and writes
   * its manifest. Sent now, the delete would leave that manifest naming deleted objects: it must not
   * be sent, and the sweep reports that it stopped at its lease.
   */
  @Test
  void aSweepDeleteHeldPastTheSweepLeaseIsNeverSent() throws Exception {
    // The backup's own lease is long: only the sweep's is at stake here.
    ManifestStore sweeping = fixture.manifests(leases(Duration.ofSeconds(30)));
    ManifestStore backingUp = fixture.manifests(leases(Duration.ofSeconds(30)));
    RetentionSweeper sweeper = new RetentionSweeper(sweeping, fixture.log());
    BackupService backups = fixture.backupService(backingUp);
    String filesPrefix = sweeping.layout().filesPrefix();
    try (TestIndex index = new TestIndex(tmp.resolve("primary"), false)) {
      index.add(200, fixture.random());
      TestIndex.Commit c = index.commit(1);
      // A failed backup left every file of the point in the store, and no manifest.
      for (FileEntry f : c.point().files().values()) {
        sweeping.blobStore().putFile(sweeping.layout().fileKey(f), index.dir, f.name(), f.length());
      }
      int files = c.point().files().size();
      CountDownLatch held = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      AtomicBoolean first = new AtomicBoolean(true);
      sweeping.blobStore().beforeAttempt((what, key, attempt) -> {
        if (what.equals("delete") && key.startsWith(filesPrefix) && first.compareAndSet(true, false)) {
          held.countDown();
          hold(release);
        }
      });
      CompletableFuture<SweepResult> sweep = CompletableFuture.supplyAsync(() -> {
        try {
          return sweeper.sweep(RetentionPolicy.keepLast(1));
        } catch (Exception e) {
          throw new RuntimeException(e);
        }
      });
      assertThat(held.await(30, TimeUnit.SECONDS)).as("the sweep reached its first delete of files").isTrue();

      BackupResult backup = backups.submit(c.source()).get(60, TimeUnit.SECONDS);
      assertThat(backup.filesReused()).as("the backup waited out the sweep's lease and reused the files").isEqualTo(files);
      release.countDown();
      SweepResult swept = sweep.get(60, TimeUnit.SECONDS);

      Manifest written = backingUp.read(backup.manifest());
      for (FileEntry f : written.files().values()) {
        String key = backingUp.layout().fileKey(f);
        assertThat(fixture.server().read(key)).as("manifest %s names %s (seed %d)", backup.manifest().key(), key,
            fixture.seed()).isNotNull();
      }
      assertThat(swept.complete()).as("the sweep stopped at its lease").isFalse();
      assertThat(swept.filesDeleted()).isZero();
      try (Directory restored = FSDirectory.open(tmp.resolve("restored"));
          Restorer restorer = new Restorer(backingUp, fixture.log())) {
        restorer.restoreLatest(restored);
        assertThat(TestIndex.search(restored)).containsExactly(c.docs(), c.alphaHits());
      }
    }
  }

  /**
   * A backup's manifest PUT is held past the backup's lease; meanwhile a sweep finds the backup's
   * marker stale (older than the lease plus the margin) and deletes the files it uploaded. Sent now,
   * the manifest would name deleted objects: the backup is abandoned instead and writes nothing.
   */
  @Test
  void aManifestPutHeldPastTheBackupLeaseIsNeverSent() throws Exception {
    ManifestStore backingUp = fixture.manifests(leases(Duration.ofSeconds(3)));
    ManifestStore sweeping = fixture.manifests(leases(Duration.ofSeconds(3)));
    BackupService backups = fixture.backupService(backingUp);
    RetentionSweeper sweeper = new RetentionSweeper(sweeping, fixture.log());
    String manifestsPrefix = backingUp.layout().manifestsPrefix();
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    backingUp.blobStore().beforeAttempt((what, key, attempt) -> {
      if (what.equals("put") && key.startsWith(manifestsPrefix)) {
        held.countDown();
        hold(release);
      }
    });
    try (TestIndex index = new TestIndex(tmp.resolve("primary"), false)) {
      index.add(200, fixture.random());
      TestIndex.Commit c = index.commit(1);
      CompletableFuture<BackupResult> backup = backups.submit(c.source());
      assertThat(held.await(30, TimeUnit.SECONDS)).as("the backup reached its manifest").isTrue();
      // Sweep until one finds the backup's marker stale: it then deletes the files only that marker named.
      await("a sweep that finds the backup's marker stale").atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(250))
          .until(() -> sweeper.sweep(RetentionPolicy.keepLast(1)).staleMarkersDeleted() > 0);
      assertThat(fixture.server().keys(sweeping.layout().filesPrefix())).as("the sweep deleted the backup's files").isEmpty();
      release.countDown();

      assertThatThrownBy(() -> backup.get(60, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause().isInstanceOf(BackupAbandonedException.class);
      assertThat(backingUp.list()).as("no manifest written past the lease").isEmpty();
    }
  }

  private static void hold(CountDownLatch latch) {
    try {
      latch.await(60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

package io.nrtcluster.objectstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nrtcluster.common.NodeLog;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The background verification's step against a real S3-compatible server: it marks what it found
 * damaged for the backups, counts in the index's metrics and meters, keeps its report and logs one line.
 */
@Timeout(120)
class BackupVerificationTest {
  @RegisterExtension final StoreFixture fixture = StoreFixture.of(BackupVerificationTest.class, "P1", "");
  @TempDir Path tmp;
  private final Logger logger = (Logger) LoggerFactory.getLogger(BackupVerificationTest.class.getName() + ".verify");
  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
  private ManifestStore manifests;
  private BackupVerification verification;
  private SimpleMeterRegistry registry;

  @BeforeEach
  void start() throws Exception {
    logged.start();
    logger.addAppender(logged);
    logger.setLevel(Level.INFO);
    manifests = fixture.manifests();
    verification = new BackupVerification(manifests, new DamagedObjects(), BackupVerifier.UNLIMITED,
        new NodeLog(logger, "N1/docs", () -> -1));
    registry = new SimpleMeterRegistry();
    fixture.closeAfter(ObjectStoreMeters.register(registry, manifests.blobStore().metrics(), Tags.of("index", "docs")));
  }

  @AfterEach
  void stop() {
    logger.detachAppender(logged);
    logger.setLevel(null);
  }

  @Test
  void findsDamageMarksItCountsItAndTheNextBackupRepairsIt() throws Exception {
    assertThatThrownBy(verification::verifyNewest).isInstanceOf(BackupNotFoundException.class);
    assertThat(verification.last()).isEmpty();
    assertThat(registry.get(ObjectStoreMeters.VERIFY_RUNS).functionCounter().count()).isZero();
    assertThat(registry.get(ObjectStoreMeters.VERIFY_LAST_VERSION).gauge().value()).isEqualTo(-1);

    BackupService backups = fixture.closeAfter(new BackupService(manifests, fixture.log(), verification.damagedObjects()));
    try (TestIndex index = new TestIndex(tmp.resolve("primary"), false)) {
      index.add(400, fixture.random());
      TestIndex.Commit c1 = index.commit(1);
      backups.submit(c1.source()).get(60, TimeUnit.SECONDS);

      VerifyReport intact = verification.verifyNewest();
      assertThat(intact.intact()).isTrue();
      assertThat(verification.last()).contains(intact);
      assertMeters(1, 0, c1.point().version());
      assertThat(lines(Level.INFO)).singleElement().asString()
          .contains("N1/docs", "version " + c1.point().version(), "verified: intact");

      List<FileEntry> files = new ArrayList<>(c1.point().files().values());
      Collections.shuffle(files, fixture.random());
      String flippedKey = manifests.layout().fileKey(files.get(0));
      byte[] bytes = fixture.server().read(flippedKey);
      bytes[fixture.random().nextInt(bytes.length - 16)] ^= 0x20;
      fixture.server().write(flippedKey, bytes);
      String goneKey = manifests.layout().fileKey(files.get(1));
      fixture.server().remove(goneKey);

      VerifyReport found = verification.verifyNewest();
      String what = "seed " + fixture.seed();
      assertThat(found.damagedKeys()).as(what).containsExactlyInAnyOrder(flippedKey, goneKey);
      assertThat(verification.last()).contains(found);
      assertThat(verification.damagedObjects().keys()).as(what).containsExactlyInAnyOrder(flippedKey, goneKey);
      assertMeters(2, 2, c1.point().version());
      assertThat(lines(Level.WARN)).as(what).singleElement().asString()
          .contains("N1/docs", "DAMAGED", flippedKey + " (WRONG_CHECKSUM", goneKey + " (MISSING");

      index.add(100, fixture.random());
      TestIndex.Commit c2 = index.commit(1);
      backups.submit(c2.source()).get(60, TimeUnit.SECONDS);
      VerifyReport repaired = verification.verifyNewest();
      assertThat(repaired.intact()).as(what).isTrue();
      assertThat(verification.damagedObjects().size()).isZero();
      assertMeters(3, 0, c2.point().version());
    }
  }

  @Test
  void aStoppedStoreRecordsNothing() throws Exception {
    try (TestIndex index = new TestIndex(tmp.resolve("primary"), false)) {
      index.add(100, fixture.random());
      fixture.backupService(manifests).submit(index.commit(1).source()).get(60, TimeUnit.SECONDS);
    }
    ManifestStore quick = fixture.manifests(b -> b.maxAttempts(2));
    BackupVerification v = new BackupVerification(quick, new DamagedObjects(), 0, new NodeLog(logger, "N1/docs", () -> -1));
    fixture.server().stop();
    assertThatThrownBy(v::verifyNewest).isInstanceOf(ObjectStoreUnavailableException.class);
    assertThat(v.last()).isEmpty();
    assertThat(quick.blobStore().metrics().snapshot().verifyRuns()).isZero();
    assertThat(v.damagedObjects().size()).isZero();
  }

  private void assertMeters(long runs, long damaged, long version) {
    assertThat(registry.get(ObjectStoreMeters.VERIFY_RUNS).tags("index", "docs").functionCounter().count()).isEqualTo(runs);
    assertThat(registry.get(ObjectStoreMeters.VERIFY_DAMAGED).gauge().value()).isEqualTo(damaged);
    assertThat(registry.get(ObjectStoreMeters.VERIFY_LAST_VERSION).gauge().value()).isEqualTo(version);
  }

  /** The lines logged at {@code level} since the last call, formatted. */
  private List<String> lines(Level level) {
    List<String> out = logged.list.stream().filter(e -> e.getLevel() == level).map(ILoggingEvent::getFormattedMessage).toList();
    logged.list.clear();
    return out;
  }
}

package io.nrtcluster.objectstore;

import static org.assertj.core.api.Assertions.assertThat;

import io.nrtcluster.common.GenerationStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Bootstraps and restores of a node directory from a real S3-compatible server, good and damaged. */
class NodeRestoreTest {
  @RegisterExtension final StoreFixture fixture = StoreFixture.of(NodeRestoreTest.class, "R2", "");

  enum Damage { FLIPPED_BIT, TRUNCATED, MISSING, BAD_MANIFEST }

  @TempDir Path tmp;
  private BlobStore store;
  private ManifestStore manifests;

  @BeforeEach
  void start() throws Exception {
    manifests = fixture.manifests();
    store = manifests.blobStore();
  }

  /** Backs up an index of {@code docs} documents as primary generation {@code gen}; returns the manifest. */
  private ManifestId backUp(int docs, long gen) throws Exception {
    try (TestIndex index = new TestIndex(tmp.resolve("primary-" + gen), true);
        BackupService backups = new BackupService(manifests, fixture.log())) {
      for (int i = 0; i < 5; i++) {
        // Several segments: versions above a one-commit index's (a stale node's)
        index.add(docs / 5, fixture.random());
        index.writer.flush();
      }
      return backups.submit(index.commit(gen).source()).get(60, TimeUnit.SECONDS).manifest();
    }
  }

  /** A node directory whose index holds one committed document: older than any backup here. */
  private Path staleNode() throws Exception {
    Path node = tmp.resolve("node");
    try (TestIndex index = new TestIndex(node.resolve(NodeRestore.INDEX_DIR), true)) {
      index.add(1, fixture.random());
      index.commit(1);
    }
    return node;
  }

  private static List<String> files(Path dir) throws Exception {
    try (var s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void anEmptyNodeIsBootstrappedFromTheNewestBackupAndRecordsTheHighestGeneration() throws Exception {
    backUp(500, 3);
    ManifestId newest = backUp(800, 2); // a later backup of an older generation: the newest version still wins
    Path node = tmp.resolve("empty-node");
    BootstrapResult r = new NodeRestore(manifests, fixture.log()).bootstrap(node);
    assertThat(r.outcome()).as("seed %d", fixture.seed()).isEqualTo(BootstrapResult.Outcome.RESTORED);
    assertThat(r.localVersion()).isEqualTo(-1);
    assertThat(r.manifest().version()).isEqualTo(manifests.latestId().orElseThrow().version());
    try (FSDirectory dir = FSDirectory.open(node.resolve(NodeRestore.INDEX_DIR))) {
      assertThat(TestIndex.search(dir)[0]).isEqualTo(manifests.latestId().orElseThrow().equals(newest) ? 800 : 500);
    }
    GenerationStore state = GenerationStore.open(node.resolve(NodeRestore.STATE_FILE));
    assertThat(state.highestPrimaryGen()).isEqualTo(3);
    assertThat(files(node)).containsExactlyInAnyOrder(NodeRestore.INDEX_DIR, NodeRestore.STATE_FILE);
    // Again: the index is as new as the newest backup now, and is left alone.
    assertThat(new NodeRestore(manifests, fixture.log()).bootstrap(node).outcome()).isEqualTo(BootstrapResult.Outcome.UP_TO_DATE);
  }

  @Test
  void aStaleNodeIsReplacedByTheNewestBackup() throws Exception {
    Path node = staleNode();
    ManifestId id = backUp(700, 1);
    BootstrapResult r = new NodeRestore(manifests, fixture.log()).bootstrap(node);
    assertThat(r.outcome()).as("seed %d", fixture.seed()).isEqualTo(BootstrapResult.Outcome.RESTORED);
    assertThat(r.localVersion()).isGreaterThanOrEqualTo(0).isLessThan(id.version());
    try (FSDirectory dir = FSDirectory.open(node.resolve(NodeRestore.INDEX_DIR))) {
      assertThat(TestIndex.search(dir)[0]).isEqualTo(700);
    }
  }

  @ParameterizedTest
  @EnumSource(Damage.class)
  void aDamagedBackupIsRefusedWithATypedErrorNamingTheObjectAndTheLocalIndexIsLeftAsItWas(Damage damage) throws Exception {
    Path node = staleNode();
    List<String> before = files(node.resolve(NodeRestore.INDEX_DIR));
    ManifestId id = backUp(600, 1);
    assertThat(NodeRestore.localVersion(node.resolve(NodeRestore.INDEX_DIR))).isLessThan(id.version());
    Manifest m = manifests.read(id);
    FileEntry victim = m.files().values().stream().max(Comparator.comparingLong(FileEntry::length)).orElseThrow();
    String key = damage == Damage.BAD_MANIFEST ? id.key() : manifests.layout().fileKey(victim);
    byte[] good = fixture.server().read(key);
    switch (damage) {
      case FLIPPED_BIT -> {
        byte[] flipped = good.clone();
        flipped[fixture.random().nextInt(flipped.length)] ^= (byte) (1 << fixture.random().nextInt(8));
        fixture.server().write(key, flipped);
      }
      case TRUNCATED -> fixture.server().write(key, java.util.Arrays.copyOf(good, good.length / 2));
      case MISSING -> fixture.server().remove(key);
      case BAD_MANIFEST -> fixture.server().write(key, "not a manifest".getBytes(StandardCharsets.UTF_8));
    }

    BootstrapResult r = new NodeRestore(manifests, fixture.log()).bootstrap(node);

    assertThat(r.outcome()).as("seed %d, %s", fixture.seed(), damage).isEqualTo(BootstrapResult.Outcome.FELL_BACK);
    assertThat(r.error()).isInstanceOfSatisfying(CorruptBackupException.class, e -> assertThat(e.objectKey()).isEqualTo(key));
    assertThat(files(node.resolve(NodeRestore.INDEX_DIR))).isEqualTo(before);
    assertThat(files(node)).doesNotContain("index.restoring", "index.replaced");
    try (FSDirectory dir = FSDirectory.open(node.resolve(NodeRestore.INDEX_DIR))) {
      assertThat(TestIndex.search(dir)[0]).isEqualTo(1);
    }
  }

  @Test
  void anUnreachableStoreFallsBackAndANodeWithoutBackupsIsLeftAlone() throws Exception {
    Path node = staleNode();
    assertThat(new NodeRestore(manifests, fixture.log()).bootstrap(node).outcome()).isEqualTo(BootstrapResult.Outcome.NO_BACKUP);
    fixture.server().stop();
    BootstrapResult r = new NodeRestore(manifests, fixture.log()).bootstrap(node);
    assertThat(r.outcome()).isEqualTo(BootstrapResult.Outcome.FELL_BACK);
    assertThat(r.error()).isInstanceOf(ObjectStoreUnavailableException.class);
  }
}

package io.nrtcluster.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nrtcluster.common.RecordingFileSystem.Event;
import io.nrtcluster.common.RecordingFileSystem.Kind;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(30)
class GenerationStoreTest {
  @TempDir Path dir;

  private Path file() {
    return dir.resolve("node.state");
  }

  @Test
  void aNewStoreKnowsNothing() throws Exception {
    GenerationStore store = GenerationStore.open(dir.resolve("not-yet").resolve("node.state"));
    assertThat(store.highestPrimaryGen()).isEqualTo(-1);
    assertThat(store.highestVersion()).isEqualTo(-1);
    assertThat(store.committedVersion()).isEqualTo(-1);
    assertThat(store.committedPosition()).isNull();
    assertThat(dir.resolve("not-yet")).doesNotExist();
  }

  @Test
  void theGenerationNeverGoesBackwards() throws Exception {
    GenerationStore store = GenerationStore.open(file());
    assertThat(store.observeGeneration(5)).isTrue();
    assertThat(store.observeGeneration(3)).as("a lower generation is refused").isFalse();
    assertThat(store.highestPrimaryGen()).isEqualTo(5);
    assertThat(store.observeGeneration(5)).as("the same generation again is fine").isTrue();
    assertThat(store.observeGeneration(7)).isTrue();
    assertThat(store.highestPrimaryGen()).isEqualTo(7);

    GenerationStore reopened = GenerationStore.open(file());
    assertThat(reopened.highestPrimaryGen()).isEqualTo(7);
    assertThat(reopened.observeGeneration(6)).as("refused after a restart too").isFalse();
    assertThat(GenerationStore.open(file()).highestPrimaryGen()).isEqualTo(7);
  }

  @Test
  void versionsOnlyGrowAndSurviveAReopen() throws Exception {
    GenerationStore store = GenerationStore.open(file());
    store.observeVersion(10);
    store.observeVersion(4);
    assertThat(store.highestVersion()).isEqualTo(10);
    store.observeGeneration(2);

    GenerationStore reopened = GenerationStore.open(file());
    assertThat(reopened.highestVersion()).isEqualTo(10);
    assertThat(reopened.highestPrimaryGen()).isEqualTo(2);
  }

  @Test
  void aRecordedCommitComesBackAfterAReopen() throws Exception {
    GenerationStore store = GenerationStore.open(file());
    store.observeVersion(20);
    store.recordCommit(12, "queue-offset=4711 \u00e9 = : #");
    assertThat(store.committedVersion()).isEqualTo(12);
    assertThat(store.highestVersion()).as("a commit never lowers the highest version").isEqualTo(20);

    GenerationStore reopened = GenerationStore.open(file());
    assertThat(reopened.committedVersion()).isEqualTo(12);
    assertThat(reopened.committedPosition()).isEqualTo("queue-offset=4711 \u00e9 = : #");
    assertThat(reopened.highestVersion()).isEqualTo(20);

    reopened.recordCommit(25, null);
    GenerationStore again = GenerationStore.open(file());
    assertThat(again.committedVersion()).isEqualTo(25);
    assertThat(again.committedPosition()).as("a commit without a position clears it").isNull();
    assertThat(again.highestVersion()).isEqualTo(25);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "highestPrimaryGen=seven\n",
      "highestVersion=\n",
      "committedVersion=1e3\n",
      // Properties.load throws IllegalArgumentException, not an IOException, for a bad escape.
      "highestPrimaryGen=\\u12G4\n"})
  void aCorruptFileIsAStorageException(String contents) throws Exception {
    Files.writeString(file(), contents, StandardCharsets.ISO_8859_1);
    assertThatThrownBy(() -> GenerationStore.open(file()))
        .isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.STORAGE))
        .hasMessageContaining(file().toString());
  }

  @Test
  void aTempFileLeftByACrashIsIgnoredAndReplaced() throws Exception {
    GenerationStore.open(file()).observeGeneration(4);
    Path tmp = dir.resolve("node.state.tmp");
    // A crash between writing the temp file and renaming it: half a file, claiming more than was made durable.
    Files.writeString(tmp, "highestPrimaryGen=99\nhighestVers", StandardCharsets.ISO_8859_1);

    GenerationStore store = GenerationStore.open(file());
    assertThat(store.highestPrimaryGen()).isEqualTo(4);
    assertThat(store.observeGeneration(5)).isTrue();
    assertThat(tmp).doesNotExist();
    assertThat(GenerationStore.open(file()).highestPrimaryGen()).isEqualTo(5);
  }

  @Test
  void aTempFileWithoutAStoreIsIgnored() throws Exception {
    Files.writeString(dir.resolve("node.state.tmp"), "highestPrimaryGen=99\n", StandardCharsets.ISO_8859_1);
    GenerationStore store = GenerationStore.open(file());
    assertThat(store.highestPrimaryGen()).isEqualTo(-1);
    assertThat(store.observeGeneration(1)).isTrue();
    assertThat(GenerationStore.open(file()).highestPrimaryGen()).isEqualTo(1);
  }

  /**
   * Issue 14, defect 4: the rename is only durable once its directory is fsynced. Without that, a
   * power loss can bring back the old file and the node forgets a generation it already saw.
   */
  @Test
  void aDurableWriteFsyncsTheFileThenRenamesThenFsyncsTheDirectory() throws Exception {
    RecordingFileSystem fs = new RecordingFileSystem();
    Path realDir = dir.toRealPath().resolve("state");
    Path file = fs.wrap(realDir.resolve("node.state"));
    GenerationStore store = GenerationStore.open(file);

    assertThat(store.observeGeneration(3)).isTrue();
    assertDurableWrite(fs.events(), realDir);

    fs.clear();
    store.recordCommit(8, "p");
    assertDurableWrite(fs.events(), realDir);

    fs.clear();
    assertThat(store.observeGeneration(3)).isTrue();
    assertThat(fs.events()).as("a generation already recorded writes nothing").isEmpty();

    fs.clear();
    store.observeVersion(9);
    assertThat(fs.events()).as("a version is written without fsync (documented trade-off)")
        .containsExactly(new Event(Kind.MOVE, realDir.resolve("node.state")));

    assertThat(GenerationStore.open(file).highestPrimaryGen()).isEqualTo(3);
    assertThat(GenerationStore.open(file).highestVersion()).isEqualTo(9);
  }

  private static void assertDurableWrite(List<Event> events, Path realDir) {
    assertThat(events).containsExactly(
        new Event(Kind.FORCE_FILE, realDir.resolve("node.state.tmp")),
        new Event(Kind.MOVE, realDir.resolve("node.state")),
        new Event(Kind.FORCE_DIRECTORY, realDir));
  }
}

package io.nrtcluster.stress.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A run names the commit it measured, and says when the working tree had uncommitted changes. */
@Timeout(60)
class ProvenanceTest {
  @TempDir Path dir;

  @Test
  void namesTheCommitAndWhetherTrackedFilesDifferedFromIt() throws Exception {
    repositoryWithOneCommit();
    String head = new String(new ProcessBuilder("git", "-C", dir.toString(), "rev-parse", "HEAD").start().getInputStream()
        .readAllBytes()).strip();
    Instant started = Instant.now();

    Provenance clean = Provenance.of(dir, started);
    assertThat(clean.commit()).isEqualTo(head).matches("[0-9a-f]{40}");
    assertThat(clean.dirty()).isFalse();
    assertThat(clean.startedAt()).isEqualTo(started.toString());
    assertThat(Instant.parse(clean.finishedAt())).isAfterOrEqualTo(started);

    Files.writeString(dir.resolve("untracked.txt"), "not part of the build");
    assertThat(Provenance.of(dir, started).dirty()).as("untracked files do not count").isFalse();
    Files.writeString(dir.resolve("a.txt"), "two");
    assertThat(Provenance.of(dir, started).dirty()).as("a changed tracked file").isTrue();
  }

  @Test
  void aCommitMadeWhileTheRunRanIsNotTheOneItMeasured() throws Exception {
    repositoryWithOneCommit();
    String measured = new String(new ProcessBuilder("git", "-C", dir.toString(), "rev-parse", "HEAD").start()
        .getInputStream().readAllBytes()).strip();
    Provenance atStart = Provenance.of(dir, Instant.now());
    Files.writeString(dir.resolve("a.txt"), "two");
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-am", "during the run");

    Provenance p = atStart.endedIn(dir);
    assertThat(p.commit()).as("the commit the run was built from").isEqualTo(measured);
    assertThat(p.dirty()).as("the tree changed while it ran").isTrue();
    assertThat(p.startedAt()).isEqualTo(atStart.startedAt());
    assertThat(Provenance.of(dir, Instant.now()).endedIn(dir).dirty()).as("nothing changed").isFalse();
  }

  @Test
  void outsideARepositoryTheCommitIsUnknown() throws Exception {
    Path plain = Files.createDirectories(dir.resolve("plain"));
    // A folder under a repository would find it: use one that git is told not to search above.
    Provenance p = Provenance.of(plain.resolve("no-such-folder"), Instant.now());
    assertThat(p.commit()).isEqualTo(Provenance.UNKNOWN);
    assertThat(p.dirty()).isFalse();
  }

  private void repositoryWithOneCommit() throws IOException, InterruptedException {
    git("init", "-q");
    Files.writeString(dir.resolve("a.txt"), "one");
    git("add", "a.txt");
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "first");
  }

  private void git(String... args) throws IOException, InterruptedException {
    String[] command = new String[args.length + 3];
    command[0] = "git";
    command[1] = "-C";
    command[2] = dir.toString();
    System.arraycopy(args, 0, command, 3, args.length);
    Process p = new ProcessBuilder(command).inheritIO().start();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("git %s", String.join(" ", args)).isZero();
  }
}

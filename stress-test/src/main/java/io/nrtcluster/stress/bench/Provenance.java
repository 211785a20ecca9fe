package io.nrtcluster.stress.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Which code a benchmark run measured, and when: the git commit of the working tree it ran from,
 * whether that tree had uncommitted changes to tracked files (then the figures describe code no
 * commit holds), and the run's start and end. A reader of {@code bench.json} compares the commit with
 * the one a claim is about; a figure from another commit is re-run, not carried over.
 *
 * @param commit the full commit hash of HEAD when the run started (what its processes were built
 *     from), or {@code unknown} outside a git working tree
 * @param dirty true when tracked files differed from that commit, or the tree changed while the run ran
 * @param startedAt when the run started (ISO-8601, UTC)
 * @param finishedAt when it wrote its report
 */
public record Provenance(String commit, boolean dirty, String startedAt, String finishedAt) {
  /** Unknown commit: not run from a git working tree, or git is not installed. */
  public static final String UNKNOWN = "unknown";

  /** The provenance of a run from {@code workTree} (any folder inside it) that started at {@code started}. */
  public static Provenance of(Path workTree, Instant started) {
    String head = git(workTree, "rev-parse", "HEAD");
    String commit = head == null || head.isBlank() ? UNKNOWN : head.strip();
    String status = commit.equals(UNKNOWN) ? null : git(workTree, "status", "--porcelain", "--untracked-files=no");
    return new Provenance(commit, status != null && !status.isBlank(), started.toString(), Instant.now().toString());
  }

  /** This run as it ended: the commit as at its start, dirty as well if the tree changed meanwhile. */
  public Provenance endedIn(Path workTree) {
    Provenance now = of(workTree, Instant.parse(startedAt));
    return new Provenance(commit, dirty || now.dirty() || !commit.equals(now.commit()), startedAt, now.finishedAt());
  }

  /** Git's output, or null when it fails (no repository, no git, too slow). */
  private static String git(Path workTree, String... args) {
    List<String> command = new ArrayList<>(List.of("git", "-C", workTree.toAbsolutePath().toString()));
    command.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(false).redirectError(ProcessBuilder.Redirect.DISCARD).start();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return null;
      }
      return p.exitValue() == 0 ? new String(out, StandardCharsets.UTF_8) : null;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }
}

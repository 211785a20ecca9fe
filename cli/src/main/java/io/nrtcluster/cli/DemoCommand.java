package io.nrtcluster.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code nrt demo}: three cluster nodes in this process on 127.0.0.1, through the same entry point
 * as {@code nrt node} ({@code NrtHost}, {@code ClusterNode}, an embedded ZooKeeper), with real
 * Europarl text indexed on whoever the election made primary; a replica restart, a crash-like
 * failover with a replay of the source, and a final check that every node searches the same version
 * with the same hits and that no document of the source was lost. See {@link DemoRun}.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Runs three cluster nodes (N1-N3) on 127.0.0.1 with an embedded ZooKeeper; the election picks the primary. "
          + "Indexes Europarl text (new documents and new texts for earlier ones) on the primary and refreshes "
          + "periodically; restarts a replica halfway, halts the primary (crash-like) at two thirds and replays the "
          + "source on the new primary from its replay position, then restarts the halted node.",
      "Prints one line per refresh: version, documents, the primary, files and bytes the replicas copied since the "
          + "previous line, and each replica's lag from the start of the refresh until it searches that version.",
      "Ends with one summary line; exit code 0 only if every node searches the final version with the same hits "
          + "and the document count equals the number of distinct ids the source wrote."
    })
public final class DemoCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--dir", paramLabel = "DIR",
      description = "Data directory, kept afterwards (n1/, n2/, n3/ inside, ZooKeeper's data in n1/zookeeper; a second "
          + "run continues the same index). Default: a new temporary directory, deleted at the end.")
  Path dir;

  @Option(names = "--duration", paramLabel = "TIME", defaultValue = "20s", converter = DurationConverter.class,
      description = "How long to index, e.g. 20s, 90s, 2m (default: ${DEFAULT-VALUE}).")
  Duration duration;

  @Option(names = "--refresh-ms", paramLabel = "MS", defaultValue = "300",
      description = "Refresh (publish a new version) every MS milliseconds (default: ${DEFAULT-VALUE}).")
  int refreshMs;

  @Option(names = "--docs-per-refresh", paramLabel = "N", defaultValue = "500",
      description = "Documents written between two refreshes (default: ${DEFAULT-VALUE}).")
  int docsPerRefresh;

  @Option(names = "--seed", paramLabel = "SEED", defaultValue = "42",
      description = "Seed of the random choice between new documents and new texts (default: ${DEFAULT-VALUE}).")
  long seed;


  /** Set by Ctrl-C: the run stops at the next step, closes the nodes and cleans up. */
  private volatile boolean stopRequested;

  @Override
  public Integer call() throws Exception {
    validate();
    Console out = new Console(spec.commandLine().getOut());
    boolean temporary = dir == null;
    Path root = temporary ? Files.createTempDirectory("nrt-demo-") : dir.toAbsolutePath().normalize();
    try (StopSignal signal = StopSignal.install("nrt-demo", () -> stopRequested = true, Main.ownsJvm(),
        Duration.ofSeconds(30))) {
      int exit;
      try {
        if (!temporary) {
          Files.createDirectories(root);
        }
        exit = new DemoRun(this, root, temporary, out, new Console(spec.commandLine().getErr()), () -> stopRequested).run();
      } finally {
        if (temporary) {
          deleteRecursively(root);
        }
      }
      return signal.done(exit);
    }
  }

  private void validate() {
    if (duration.isZero() || duration.isNegative() || duration.compareTo(Duration.ofDays(1)) > 0) {
      throw new ParameterException(spec.commandLine(), "--duration must be between 1ms and 24h, got " + duration);
    }
    if (refreshMs < 10 || refreshMs > 60_000) {
      throw new ParameterException(spec.commandLine(), "--refresh-ms must be between 10 and 60000, got " + refreshMs);
    }
    if (docsPerRefresh < 1 || docsPerRefresh > 1_000_000) {
      throw new ParameterException(spec.commandLine(),
          "--docs-per-refresh must be between 1 and 1000000, got " + docsPerRefresh);
    }
  }

  /** Deletes a directory tree, best effort (a temporary directory left behind is harmless). */
  static void deleteRecursively(Path root) {
    try (Stream<Path> walk = Files.walk(root)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.deleteIfExists(p);
        } catch (IOException e) {
          // Best effort: a temp directory left behind is harmless.
        }
      });
    } catch (IOException e) {
      // Best effort.
    }
  }
}

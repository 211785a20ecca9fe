package io.nrtcluster.cli;

import io.nrtcluster.common.NodeLog;
import io.nrtcluster.objectstore.BlobStore;
import io.nrtcluster.objectstore.Manifest;
import io.nrtcluster.objectstore.ManifestId;
import io.nrtcluster.objectstore.ManifestStore;
import io.nrtcluster.objectstore.NodeRestore;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code nrt restore}: rebuild one index of a node directory from a backup, every byte verified. */
@Command(name = "restore", description = {
    "Restore index I of cluster C from the object store into node directory DIR (DIR/I must be "
        + "empty), verifying every byte against Lucene's checksums. Start the node on DIR afterwards: as "
        + "the first member of an empty cluster it becomes primary above every generation and version in "
        + "the store.",
    "Exit codes: 0 restored, 1 error, 3 store unreachable, 4 no such backup, 5 damaged backup or "
        + "DIR/I not empty, 7 store refused the credentials or no such bucket."})
final class RestoreCommand implements Callable<Integer> {
  @Mixin ObjectStoreOptions store;

  // Not mixinStandardHelpOptions: picocli drops that whole mixin, --help included, when a command has
  // its own --version, so --help would fail on the missing required options.
  @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help message and exit.")
  boolean help;

  @Option(names = "--version", defaultValue = "latest", paramLabel = "V|latest",
      description = "Version to restore (default: ${DEFAULT-VALUE}).")
  String version;

  @Option(names = "--data", required = true, paramLabel = "DIR",
      description = "Node directory (as for nrt node --data); the index goes to DIR/I.")
  Path data;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    Optional<Long> wanted = parseVersion();
    PrintWriter out = spec.commandLine().getOut();
    try (BlobStore blobs = store.open()) {
      ManifestStore manifests = store.manifests(blobs);
      NodeLog log = new NodeLog(LoggerFactory.getLogger(RestoreCommand.class), "restore", () -> -1);
      Path nodeDir = data.resolve(store.index);
      Manifest m;
      try (TerminalProgress progress = TerminalProgress.onTerminal()
          ? TerminalProgress.ofBackup("restore", spec.commandLine().getErr(), blobs, manifests, chosen(manifests, wanted))
          : TerminalProgress.NONE) {
        m = new NodeRestore(manifests, log).restore(wanted, nodeDir);
      }
      out.println(String.format(Locale.ROOT, "restored %s/%s version %d (primary generation %d): %d files, %s into %s",
          store.cluster, store.index, m.version(), m.primaryGen(), m.files().size(), Units.bytes(m.totalBytes()), nodeDir));
      out.flush();
      return 0;
    }
  }

  /** The backup the restore will take, for the progress line's totals; empty when none (the restore says so). */
  private static Optional<ManifestId> chosen(ManifestStore manifests, Optional<Long> wanted) throws IOException {
    return wanted.isPresent() ? manifests.find(wanted.get()) : manifests.latestId();
  }

  private Optional<Long> parseVersion() {
    if (version.equalsIgnoreCase("latest")) {
      return Optional.empty();
    }
    try {
      long v = Long.parseLong(version);
      if (v < 0) {
        throw new NumberFormatException();
      }
      return Optional.of(v);
    } catch (NumberFormatException e) {
      throw new ParameterException(spec.commandLine(), "--version must be a version number or 'latest', got '" + version + "'");
    }
  }
}

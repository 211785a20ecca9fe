package io.nrtcluster.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.nrtcluster.objectstore.BackupNotFoundException;
import io.nrtcluster.objectstore.BackupVerifier;
import io.nrtcluster.objectstore.BlobStore;
import io.nrtcluster.objectstore.CorruptBackupException;
import io.nrtcluster.objectstore.ManifestId;
import io.nrtcluster.objectstore.ManifestStore;
import io.nrtcluster.objectstore.VerifyReport;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code nrt backup verify}: reads backups back from the store and checks every object against the
 * manifest and its Lucene checksum ({@link BackupVerifier}), without restoring anything. A damaged
 * backup is a result, not an error of the run: it is printed, object by object, and exits 5.
 */
@Command(name = "verify", description = {
    "Read backups of index I of cluster C back from the object store and check every object they "
        + "name: present, of the length the manifest says, ending in a Lucene footer, its CRC32 equal to "
        + "the footer's and the manifest's. Prints one line per backup (version, generation, objects, bytes "
        + "read, INTACT or DAMAGED) and one line per damaged object (key, file, problem). Nothing is "
        + "restored or changed.",
    "Exit codes: 0 every verified backup intact, 1 error, 3 store unreachable, 4 no such backup (or "
        + "none), 5 a backup is damaged (each damaged object named), 7 store refused the credentials or no "
        + "such bucket."})
final class BackupVerifyCommand implements Callable<Integer> {
  /** The exit code of a run that found damage (as {@link Main#exitCode} gives a corrupt backup). */
  static final int EXIT_DAMAGED = 5;

  @Mixin ObjectStoreOptions store;

  // Not mixinStandardHelpOptions: picocli drops that whole mixin, --help included, when a command has
  // its own --version, so --help would fail on the missing required options.
  @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help message and exit.")
  boolean help;

  @Option(names = "--version", defaultValue = "latest", paramLabel = "V|latest|all",
      description = "Backup to verify: a version, the newest (default: ${DEFAULT-VALUE}), or all of them, oldest first.")
  String version;

  @Option(names = "--json", description = "Print JSON: {\"cluster\":..., \"index\":..., \"intact\":..., "
      + "\"backups\":[{\"version\":..., \"result\":\"INTACT\"|\"DAMAGED\", \"damaged\":[{\"key\":..., ...}]}]}.")
  boolean json;

  @Spec CommandSpec spec;

  /** One manifest's verification: its report, or why the manifest itself could not be used. */
  private record Outcome(ManifestId id, VerifyReport report, CorruptBackupException unusable) {
    boolean intact() {
      return report != null && report.intact();
    }
  }

  @Override
  public Integer call() throws Exception {
    String wanted = version.trim().toLowerCase(Locale.ROOT);
    Long number = wanted.equals("latest") || wanted.equals("all") ? null : parseVersion();
    try (BlobStore blobs = store.open()) {
      ManifestStore manifests = store.manifests(blobs);
      String name = store.cluster + "/" + store.index;
      List<ManifestId> ids = switch (wanted) {
        case "latest" -> List.of(manifests.latestId().orElseThrow(() -> new BackupNotFoundException("no backups of " + name)));
        case "all" -> manifests.list();
        default -> List.of(manifests.find(number).orElseThrow(
            () -> new BackupNotFoundException("no backup of version " + number + " of " + name)));
      };
      BackupVerifier verifier = new BackupVerifier(manifests, BackupVerifier.UNLIMITED);
      List<Outcome> outcomes = new ArrayList<>();
      for (ManifestId id : ids) {
        try {
          VerifyReport report;
          try (TerminalProgress progress = TerminalProgress.onTerminal()
              ? TerminalProgress.ofBackup("verify version " + id.version(), spec.commandLine().getErr(), blobs, manifests,
                  Optional.of(id))
              : TerminalProgress.NONE) {
            report = verifier.verify(id);
          }
          outcomes.add(new Outcome(id, report, null));
        } catch (BackupNotFoundException e) {
          if (number != null || wanted.equals("latest")) {
            throw e;
          }
          // Retention removed it since the listing: it is no backup any more.
        } catch (CorruptBackupException e) {
          outcomes.add(new Outcome(id, null, e));
        }
      }
      if (outcomes.isEmpty()) {
        throw new BackupNotFoundException("no backups of " + name);
      }
      print(outcomes);
      List<Outcome> damaged = outcomes.stream().filter(o -> !o.intact()).toList();
      if (damaged.isEmpty()) {
        return 0;
      }
      PrintWriter err = spec.commandLine().getErr();
      err.println(spec.qualifiedName() + ": " + damaged.size() + " of " + outcomes.size() + " backup(s) of " + name
          + " DAMAGED: " + String.join(", ", damaged.stream().flatMap(o -> damagedKeys(o).stream()).distinct().toList()));
      err.flush();
      return EXIT_DAMAGED;
    }
  }

  private long parseVersion() {
    try {
      long v = Long.parseLong(version.trim());
      if (v < 0) {
        throw new NumberFormatException();
      }
      return v;
    } catch (NumberFormatException e) {
      throw new ParameterException(spec.commandLine(),
          "--version must be a version number, 'latest' or 'all', got '" + version + "'");
    }
  }

  private static List<String> damagedKeys(Outcome o) {
    return o.unusable() != null ? List.of(o.unusable().objectKey()) : o.report().damagedKeys();
  }

  private void print(List<Outcome> outcomes) throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      List<Map<String, Object>> rows = new ArrayList<>();
      for (Outcome o : outcomes) {
        rows.add(row(o));
      }
      Map<String, Object> doc = new LinkedHashMap<>();
      doc.put("cluster", store.cluster);
      doc.put("index", store.index);
      doc.put("intact", outcomes.stream().allMatch(Outcome::intact));
      doc.put("backups", rows);
      out.println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(doc));
    } else {
      out.println(String.format(Locale.ROOT, "%-12s %-5s %8s %12s  %s", "VERSION", "GEN", "OBJECTS", "BYTES", "RESULT"));
      for (Outcome o : outcomes) {
        VerifyReport r = o.report();
        out.println(String.format(Locale.ROOT, "%-12d %-5d %8s %12s  %s", o.id().version(), o.id().primaryGen(),
            r == null ? "-" : Integer.toString(r.objectsChecked()), r == null ? "-" : Units.bytes(r.bytesRead()),
            o.intact() ? "INTACT" : "DAMAGED"));
        if (o.unusable() != null) {
          out.println("  damaged key=" + o.unusable().objectKey() + " file=(manifest) problem=UNUSABLE_MANIFEST: "
              + Main.describe(o.unusable()));
        } else {
          for (VerifyReport.Damage d : r.damage()) {
            out.println("  damaged key=" + d.key() + " file=" + d.fileName() + " problem=" + d.problem() + ": " + d.detail());
          }
        }
      }
    }
    out.flush();
  }

  private static Map<String, Object> row(Outcome o) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("version", o.id().version());
    row.put("primaryGen", o.id().primaryGen());
    row.put("key", o.id().key());
    row.put("result", o.intact() ? "INTACT" : "DAMAGED");
    List<Map<String, Object>> damaged = new ArrayList<>();
    if (o.unusable() != null) {
      row.put("error", Main.describe(o.unusable()));
      damaged.add(damage(o.unusable().objectKey(), "(manifest)", "UNUSABLE_MANIFEST", Main.describe(o.unusable())));
    } else {
      row.put("objects", o.report().objectsChecked());
      row.put("bytes", o.report().bytesRead());
      row.put("millis", o.report().took().toMillis());
      for (VerifyReport.Damage d : o.report().damage()) {
        damaged.add(damage(d.key(), d.fileName(), d.problem().name(), d.detail()));
      }
    }
    row.put("damaged", damaged);
    return row;
  }

  private static Map<String, Object> damage(String key, String file, String problem, String detail) {
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("key", key);
    d.put("file", file);
    d.put("problem", problem);
    d.put("detail", detail);
    return d;
  }
}

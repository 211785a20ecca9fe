package io.nrtcluster.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.nrtcluster.objectstore.BlobStore;
import io.nrtcluster.objectstore.ManifestStore;
import io.nrtcluster.objectstore.ManifestSummary;
import io.nrtcluster.objectstore.RetentionRun;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
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

/** {@code nrt backup}: the backups of an index in the object store. */
@Command(name = "backup", mixinStandardHelpOptions = true, subcommands = {BackupCommand.Status.class, BackupVerifyCommand.class},
    description = "The backups of an index in the object store (see: nrt backup status, nrt backup verify).")
final class BackupCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    throw new ParameterException(spec.commandLine(), "missing command (status, verify)");
  }

  private static Map<String, Object> retention(RetentionRun r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("node", r.node());
    m.put("primaryGen", r.primaryGen());
    m.put("started", r.started().toString());
    m.put("finished", r.finished().toString());
    m.put("kept", r.kept());
    m.put("deletedManifests", r.deletedManifests());
    m.put("deletedFiles", r.deletedFiles());
    m.put("deletedBytes", r.deletedBytes());
    m.put("complete", r.complete());
    return m;
  }

  /** {@code retention: last sweep by N2 (gen 5) 3m ago: kept 3, deleted 2 manifest(s) and 10 file(s) (1.2 MiB)}. */
  static String retentionLine(RetentionRun r, Instant now) {
    Duration age = Duration.between(r.finished(), now);
    return String.format(Locale.ROOT, "retention: last sweep by N%d (gen %d) %s ago: kept %d, deleted %d manifest(s) and %d"
        + " file(s) (%s)%s", r.node(), r.primaryGen(), Units.human(age.isNegative() ? Duration.ZERO : age.withNanos(0)),
        r.kept(), r.deletedManifests(), r.deletedFiles(), Units.bytes(r.deletedBytes()),
        r.complete() ? "" : ", stopped at its lease");
  }

  /** {@code nrt backup status}: one row per backed-up point, oldest first. */
  @Command(name = "status", mixinStandardHelpOptions = true, description = {
      "List the backups (manifests) of index I of cluster C, oldest first: version, primary generation, "
          + "files, bytes (files are stored once and shared between backups) and age; then the last retention "
          + "sweep.",
      "Exit codes: 0 ok, 1 error, 3 store unreachable, 5 a manifest is damaged (named), 7 store refused "
          + "the credentials or no such bucket."})
  static final class Status implements Callable<Integer> {
    @Mixin ObjectStoreOptions store;

    @Option(names = "--json", description = "Print JSON: {\"cluster\":..., \"index\":..., \"backups\":[{\"version\":..., ...}]}.")
    boolean json;

    @Spec CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      try (BlobStore blobs = store.open()) {
        ManifestStore manifests = store.manifests(blobs);
        List<ManifestSummary> all = manifests.summaries();
        Optional<RetentionRun> swept = RetentionRun.read(blobs, manifests.layout());
        Instant now = Instant.now();
        if (json) {
          List<Map<String, Object>> rows = new ArrayList<>();
          for (ManifestSummary s : all) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("version", s.id().version());
            row.put("primaryGen", s.id().primaryGen());
            row.put("files", s.files());
            row.put("bytes", s.bytes());
            row.put("created", s.created().toString());
            row.put("ageMillis", Duration.between(s.created(), now).toMillis());
            row.put("key", s.id().key());
            rows.add(row);
          }
          Map<String, Object> doc = new LinkedHashMap<>();
          doc.put("cluster", store.cluster);
          doc.put("index", store.index);
          doc.put("backups", rows);
          doc.put("retention", swept.map(BackupCommand::retention).orElse(null));
          out.println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(doc));
        } else if (all.isEmpty()) {
          out.println("no backups of " + store.cluster + "/" + store.index);
        } else {
          out.println(String.format(Locale.ROOT, "%-12s %-5s %7s %12s  %-10s %s", "VERSION", "GEN", "FILES", "BYTES", "AGE", "CREATED"));
          for (ManifestSummary s : all) {
            Duration age = Duration.between(s.created(), now);
            out.println(String.format(Locale.ROOT, "%-12d %-5d %7d %12s  %-10s %s", s.id().version(), s.id().primaryGen(),
                s.files(), Units.bytes(s.bytes()), Units.human(age.isNegative() ? Duration.ZERO : age.withNanos(0)),
                s.created()));
          }
        }
        if (!json) {
          out.println(swept.map(r -> retentionLine(r, now)).orElse("retention: no sweep recorded"));
        }
        out.flush();
        return 0;
      }
    }
  }
}

package io.nrtcluster.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.nrtcluster.objectstore.BlobStore;
import io.nrtcluster.objectstore.ManifestSummary;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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

  /** {@code nrt backup status}: one row per backed-up point, oldest first. */
  @Command(name = "status", mixinStandardHelpOptions = true, description = {
      "List the backups (manifests) of index I of cluster C, oldest first: version, primary generation,",
      "files, bytes (files are stored once and shared between backups) and age.",
      "Exit codes: 0 ok, 1 error, 3 store unreachable, 5 a manifest is damaged (named),",
      "7 store refused the credentials or no such bucket."})
  static final class Status implements Callable<Integer> {
    @Mixin ObjectStoreOptions store;

    @Option(names = "--json", description = "Print JSON: {\"cluster\":..., \"index\":..., \"backups\":[{\"version\":..., ...}]}.")
    boolean json;

    @Spec CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      try (BlobStore blobs = store.open()) {
        List<ManifestSummary> all = store.manifests(blobs).summaries();
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
        out.flush();
        return 0;
      }
    }
  }
}

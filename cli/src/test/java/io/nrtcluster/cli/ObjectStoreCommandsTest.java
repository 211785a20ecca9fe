package io.nrtcluster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.objectstore.BackupPoint;
import io.nrtcluster.objectstore.BackupService;
import io.nrtcluster.objectstore.BackupSource;
import io.nrtcluster.objectstore.BlobStore;
import io.nrtcluster.objectstore.FileEntry;
import io.nrtcluster.objectstore.Manifest;
import io.nrtcluster.objectstore.ManifestId;
import io.nrtcluster.objectstore.ManifestStore;
import io.nrtcluster.objectstore.ObjectStoreMetrics;
import io.nrtcluster.objectstore.S3TestServer;
import io.nrtcluster.objectstore.StoreLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** {@code nrt backup status}, {@code nrt backup verify} and {@code nrt restore} against a real S3-compatible server in the test JVM. */
class ObjectStoreCommandsTest {
  private static final NodeLog LOG = new NodeLog(LoggerFactory.getLogger(ObjectStoreCommandsTest.class), "T", () -> -1);

  @TempDir Path tmp;
  private S3TestServer server;
  private Path secret;
  private final List<ManifestId> backups = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    server = S3TestServer.start();
    secret = tmp.resolve("secret");
    Files.writeString(secret, S3TestServer.SECRET_KEY + "\n");
    try (BlobStore store = BlobStore.open(server.config().build(), new ObjectStoreMetrics(), LOG);
        BackupService service = new BackupService(new ManifestStore(store, StoreLayout.of("", "c1", "docs")), LOG);
        Directory dir = FSDirectory.open(tmp.resolve("source"));
        IndexWriter w = new IndexWriter(dir, new IndexWriterConfig(new StandardAnalyzer()))) {
      for (int round = 1; round <= 2; round++) {
        for (int i = 0; i < 100; i++) {
          Document d = new Document();
          d.add(new StringField("id", round + "-" + i, Field.Store.NO));
          w.addDocument(d);
        }
        w.commit();
        // The writer keeps only its last commit, and nothing deletes files meanwhile: no hold needed.
        SegmentInfos infos = SegmentInfos.readLatestCommit(dir);
        BackupPoint point = BackupPoint.of(dir, infos, round, Map.of());
        backups.add(service.submit(BackupSource.of(dir, point, null)).get(60, TimeUnit.SECONDS).manifest());
      }
    }
  }

  @AfterEach
  void stop() throws Exception {
    server.close();
  }

  private String[] args(String command, String... more) {
    List<String> a = new ArrayList<>(List.of(command.split(" ")));
    a.addAll(List.of("--bucket", S3TestServer.BUCKET, "--endpoint", server.endpoint().toString(), "--path-style",
        "--access-key", S3TestServer.ACCESS_KEY, "--secret-key-file", secret.toString(), "--cluster", "c1", "--index", "docs"));
    a.addAll(List.of(more));
    return a.toArray(String[]::new);
  }

  @Test
  void backupStatusListsEveryBackupOldestFirst() throws Exception {
    NrtRun table = NrtRun.nrt(args("backup status"));
    assertThat(table.exit()).as(table.err()).isZero();
    List<String> lines = table.out().lines().toList();
    assertThat(lines).hasSize(4);
    assertThat(lines.get(0)).startsWith("VERSION");
    assertThat(lines.get(1)).startsWith(Long.toString(backups.get(0).version()));
    assertThat(lines.get(2)).startsWith(Long.toString(backups.get(1).version()));
    assertThat(lines.get(3)).isEqualTo("retention: no sweep recorded");

    NrtRun json = NrtRun.nrt(args("backup status", "--json"));
    assertThat(json.exit()).as(json.err()).isZero();
    JsonNode doc = new ObjectMapper().readTree(json.out());
    assertThat(doc.get("backups")).hasSize(2);
    assertThat(doc.get("backups").get(1).get("primaryGen").asLong()).isEqualTo(2);
    assertThat(doc.get("backups").get(1).get("bytes").asLong()).isPositive();
    assertThat(doc.get("retention").isNull()).isTrue();
  }

  /** Whichever node swept last, its record is shown (the store keeps it beside the backups). */
  @Test
  void backupStatusShowsTheLastRetentionSweep() throws Exception {
    try (BlobStore blobs = BlobStore.open(server.config().build(), new ObjectStoreMetrics())) {
      Instant at = Instant.now().minus(Duration.ofMinutes(3));
      blobs.put(StoreLayout.of("", "c1", "docs").retentionRecordKey(),
          ("format=1\nnode=2\nprimaryGen=5\nstarted=" + at + "\nfinished=" + at + "\nkept=2\ndeletedManifests=1\n"
              + "deletedFiles=4\ndeletedBytes=2048\ncomplete=true\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
    NrtRun table = NrtRun.nrt(args("backup status"));
    assertThat(table.exit()).as(table.err()).isZero();
    assertThat(table.out().lines().toList()).last().asString()
        .matches("retention: last sweep by N2 \\(gen 5\\) 3m\\S* ago: kept 2, deleted 1 manifest\\(s\\) and 4 file\\(s\\) \\(2\\.0 KiB\\)");
    NrtRun json = NrtRun.nrt(args("backup status", "--json"));
    JsonNode retention = new ObjectMapper().readTree(json.out()).get("retention");
    assertThat(retention.get("node").asInt()).isEqualTo(2);
    assertThat(retention.get("deletedFiles").asInt()).isEqualTo(4);
  }

  @Test
  void restoreRebuildsTheIndexAndRefusesWhatItCannotDo() throws Exception {
    NrtRun r = NrtRun.nrt(args("restore", "--version", Long.toString(backups.get(0).version()), "--data", tmp.resolve("n1").toString()));
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("restored c1/docs version " + backups.get(0).version());
    try (Directory dir = FSDirectory.open(tmp.resolve("n1").resolve("docs").resolve("index"));
        DirectoryReader reader = DirectoryReader.open(dir)) {
      assertThat(reader.numDocs()).isEqualTo(100);
    }

    NrtRun again = NrtRun.nrt(args("restore", "--data", tmp.resolve("n1").toString()));
    assertThat(again.exit()).isEqualTo(5);
    assertThat(again.err()).contains("not empty");

    NrtRun missing = NrtRun.nrt(args("restore", "--version", "999999", "--data", tmp.resolve("n2").toString()));
    assertThat(missing.exit()).isEqualTo(4);

    NrtRun badVersion = NrtRun.nrt(args("restore", "--version", "newest", "--data", tmp.resolve("n2").toString()));
    assertThat(badVersion.exit()).isEqualTo(2);

    Files.writeString(secret, "wrong");
    NrtRun denied = NrtRun.nrt(args("restore", "--data", tmp.resolve("n2").toString()));
    assertThat(denied.exit()).isEqualTo(7);
    assertThat(denied.err()).contains(S3TestServer.BUCKET);
    Files.writeString(secret, S3TestServer.SECRET_KEY);

    String key = server.keys("c1/docs/files/").get(0);
    byte[] bytes = server.read(key);
    bytes[bytes.length / 2] ^= 1;
    server.write(key, bytes);
    NrtRun corrupt = NrtRun.nrt(args("restore", "--data", tmp.resolve("n3").toString()));
    assertThat(corrupt.exit()).isEqualTo(5);
    assertThat(corrupt.err()).contains(key);
  }

  @Test
  @Timeout(120)
  void backupVerifyReadsBackTheBackupsAndFindsThemIntact() throws Exception {
    NrtRun latest = NrtRun.nrt(args("backup verify"));
    assertThat(latest.exit()).as(latest.err()).isZero();
    List<String> lines = latest.out().lines().toList();
    assertThat(lines).hasSize(2);
    assertThat(lines.get(0)).startsWith("VERSION");
    assertThat(lines.get(1)).startsWith(Long.toString(backups.get(1).version())).endsWith("INTACT");
    assertThat(latest.err()).isEmpty();

    NrtRun all = NrtRun.nrt(args("backup verify", "--version", "all"));
    assertThat(all.exit()).as(all.err()).isZero();
    assertThat(all.out().lines().skip(1).toList()).hasSize(2).allSatisfy(l -> assertThat(l).endsWith("INTACT"));
    assertThat(all.out().lines().skip(1).findFirst().orElseThrow()).startsWith(Long.toString(backups.get(0).version()));

    NrtRun one = NrtRun.nrt(args("backup verify", "--version", Long.toString(backups.get(0).version()), "--json"));
    assertThat(one.exit()).as(one.err()).isZero();
    JsonNode doc = new ObjectMapper().readTree(one.out());
    assertThat(doc.get("intact").asBoolean()).isTrue();
    assertThat(doc.get("backups")).hasSize(1);
    JsonNode row = doc.get("backups").get(0);
    assertThat(row.get("version").asLong()).isEqualTo(backups.get(0).version());
    assertThat(row.get("result").asText()).isEqualTo("INTACT");
    assertThat(row.get("objects").asInt()).isPositive();
    assertThat(row.get("bytes").asLong()).isPositive();
    assertThat(row.get("damaged")).isEmpty();
  }

  @Test
  @Timeout(120)
  void backupVerifyNamesEachDamagedOrMissingObjectAndExits5() throws Exception {
    List<String> keys = latestFileKeys();
    String flipped = keys.get(0);
    byte[] bytes = server.read(flipped);
    bytes[bytes.length / 3] ^= 0x08;
    server.write(flipped, bytes);
    NrtRun damaged = NrtRun.nrt(args("backup verify"));
    assertThat(damaged.exit()).as(damaged.err()).isEqualTo(5);
    assertThat(damaged.out()).contains("DAMAGED", "key=" + flipped + " file=", "problem=WRONG_CHECKSUM");
    assertThat(damaged.err()).contains(flipped);

    String gone = keys.get(1);
    server.remove(gone);
    NrtRun missing = NrtRun.nrt(args("backup verify", "--version", "all", "--json"));
    assertThat(missing.exit()).as(missing.err()).isEqualTo(5);
    JsonNode doc = new ObjectMapper().readTree(missing.out());
    assertThat(doc.get("intact").asBoolean()).isFalse();
    JsonNode newest = doc.get("backups").get(1);
    assertThat(newest.get("result").asText()).isEqualTo("DAMAGED");
    List<String> problems = new ArrayList<>();
    newest.get("damaged").forEach(d -> problems.add(d.get("key").asText() + " " + d.get("problem").asText()));
    assertThat(problems).containsExactlyInAnyOrder(flipped + " WRONG_CHECKSUM", gone + " MISSING");
    assertThat(missing.err()).contains(flipped, gone);

    String oldest = backups.get(0).key();
    byte[] manifest = server.read(oldest);
    manifest[manifest.length / 2] ^= 0x01;
    server.write(oldest, manifest);
    NrtRun unusable = NrtRun.nrt(args("backup verify", "--version", "all"));
    assertThat(unusable.exit()).as(unusable.err()).isEqualTo(5);
    assertThat(unusable.out()).contains("key=" + oldest + " file=(manifest) problem=UNUSABLE_MANIFEST");
    assertThat(unusable.out().lines().filter(l -> l.endsWith("DAMAGED"))).hasSize(2);
  }

  @Test
  @Timeout(120)
  void backupVerifyExitCodesSayWhatWentWrong() throws Exception {
    NrtRun help = NrtRun.nrt("backup", "verify", "--help");
    assertThat(help.exit()).as(help.err()).isZero();
    assertThat(help.out()).contains("Usage: nrt backup verify");
    assertThat(help.out().replaceAll("\\s+", " ")).contains("5 a backup is damaged");

    NrtRun unknown = NrtRun.nrt(args("backup verify", "--version", "999999"));
    assertThat(unknown.exit()).as(unknown.err()).isEqualTo(4);
    assertThat(unknown.err()).contains("999999");

    String[] otherIndex = args("backup verify");
    otherIndex[List.of(otherIndex).indexOf("docs")] = "empty";
    NrtRun none = NrtRun.nrt(otherIndex);
    assertThat(none.exit()).as(none.err()).isEqualTo(4);

    NrtRun bad = NrtRun.nrt(args("backup verify", "--version", "newest"));
    assertThat(bad.exit()).isEqualTo(2);

    Files.writeString(secret, "wrong");
    NrtRun denied = NrtRun.nrt(args("backup verify"));
    assertThat(denied.exit()).as(denied.err()).isEqualTo(7);
    Files.writeString(secret, S3TestServer.SECRET_KEY);

    server.stop();
    NrtRun down = NrtRun.nrt(args("backup verify"));
    assertThat(down.exit()).as(down.err()).isEqualTo(3);
  }

  /** The store keys of the files the newest backup names. */
  private List<String> latestFileKeys() throws Exception {
    try (BlobStore store = BlobStore.open(server.config().build(), new ObjectStoreMetrics(), LOG)) {
      ManifestStore manifests = new ManifestStore(store, StoreLayout.of("", "c1", "docs"));
      Manifest m = manifests.read(backups.get(1));
      List<String> keys = new ArrayList<>();
      for (FileEntry f : m.files().values()) {
        keys.add(manifests.layout().fileKey(f));
      }
      return keys;
    }
  }
}

package io.nrtcluster.examples.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bit rot in a running node's stored sources, as a new user meets it (issue 26): the high bit of one
 * byte inside the stored fields of its compound file flips and the file's timestamps are put back.
 * A search over the rotten block is a 503 {@code corrupt_read} with {@code Retry-After}, never a
 * 500: a source that is not valid JSON is reported through {@code ClusterNode.reportUnreadable} (a
 * codec's own failure through {@code ClusterNode.storedFields}); a replica finds the file corrupt and
 * copies it again, a primary steps down and copies it from its successor; then every document reads
 * intact. Before, the page was a {@code 500 internal error} ({@code JsonParseException} or {@code
 * ArrayIndexOutOfBoundsException}) and the node kept serving the rotten file.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RottenStoredFieldsTest {
  private static final int DOCS = 2_000;
  private static final String LETTERS = "abcdefghijklmnopqrstuvwxyz";
  /** The codec name in the header of a stored-fields data file (inside the compound file too). */
  private static final byte[] FDT_CODEC = "Lucene90StoredFieldsFastData".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] FOOTER_MAGIC = {(byte) 0xc0, (byte) 0x28, (byte) 0x93, (byte) 0xe8};

  @TempDir Path dir;

  @Test
  void aSourceRottenOnAReplicaIsA503WithRetryAfterAndTheReplicaCopiesTheFileAgain() throws Exception {
    rotOn(2);
  }

  @Test
  void aSourceRottenOnThePrimaryIsA503AndThePrimaryStepsDownAndCopiesTheFileFromItsSuccessor() throws Exception {
    rotOn(1);
  }

  /** Node 1 leads, node 2 follows; node {@code victim}'s stored sources rot. */
  private void rotOn(int victim) throws Exception {
    long seed = SearchServiceEndToEndTest.seed();
    System.out.println("RottenStoredFieldsTest seed " + seed + ", rot on N" + victim);
    Random random = new Random(seed);
    String why = "seed " + seed;
    try (TestingServer zk = new TestingServer(true);
        ServiceCluster cluster = new ServiceCluster(dir, zk.getConnectString(), b -> b.maxPageSize(DOCS));
        Http http = new Http()) {
      SearchNode primary = cluster.start(1);
      await().atMost(Duration.ofSeconds(60)).until(() -> primary.index("docs").isWritablePrimary());
      SearchNode replica = cluster.start(2);
      ServiceCluster.awaitInSync(http, primary, "docs", 2);
      List<Map<String, Object>> docs = new ArrayList<>();
      for (int i = 0; i < DOCS; i++) {
        StringBuilder noise = new StringBuilder();
        for (int c = 0; c < 60; c++) {
          noise.append(LETTERS.charAt(random.nextInt(LETTERS.length())));
        }
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("id", "d" + i);
        doc.put("body", "common " + noise);
        docs.add(doc);
      }
      Http.Reply written = http.post(primary.httpUrl(), "/indexes/docs/docs?refresh=true", docs);
      assertThat(written.status()).as(why + ": %s", written.text()).isEqualTo(200);
      long version = written.json().get("version").asLong();
      SearchNode rotting = victim == 1 ? primary : replica;
      URI url = rotting.httpUrl();
      String all = "/indexes/docs/search?size=" + DOCS;
      Http.Reply before = http.get(replica.httpUrl(), all + "&min_version=" + version);
      assertThat(before.status()).as(why + ": %s", before.text()).isEqualTo(200);
      assertThat(sources(before.json())).as(why).isEqualTo(expected(docs));

      Path index = dir.resolve("n" + victim).resolve("docs").resolve("index");
      Http.Reply rotten = null;
      for (int attempt = 0; attempt < 3 && rotten == null; attempt++) {
        flipHighBitInStoredFields(index, random);
        Http.Reply r = http.get(url, all);
        assertThat(r.status()).as(why + ": never a 500: %s", r.text()).isIn(200, 503);
        rotten = r.status() == 503 ? r : null;
      }
      assertThat(rotten).as(why + ": a search over the rotten block fails").isNotNull();
      HttpApiErrorsTest.assertError(rotten, 503, "corrupt_read", "retry");
      assertThat(rotten.header("Retry-After")).as(why).isPresent();

      if (victim == 1) {
        await(why + ": the other node leads").atMost(Duration.ofSeconds(60)).until(() -> replica.index("docs").isWritablePrimary());
      }
      await(why + ": N" + victim + " copies the file again and every source is intact").atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            Http.Reply r = http.get(url, all);
            assertThat(r.status()).as(why + ": never a 500: %s", r.text()).isIn(200, 503);
            assertThat(r.status()).as(r.text()).isEqualTo(200);
            assertThat(sources(r.json())).isEqualTo(expected(docs));
          });
      assertThat(rotting.index("docs").integrity().corruptFiles()).as(why).isEmpty();
      String metrics = http.get(url, "/metrics").text();
      assertThat(counter(metrics, "nrt_search_unreadable_total")).as(why + ": reported through the library").isPositive();
      assertThat(counter(metrics, "nrt_replica_corrupt_files_found_total{found_by=\"read\"")).as(why).isEqualTo(1);
      if (victim == 1) {
        assertThat(counter(metrics, "nrt_primary_writer_lost_total")).as(why + ": a tragic event").isEqualTo(1);
      }
    }
  }

  private static Map<String, String> expected(List<Map<String, Object>> docs) {
    Map<String, String> out = new HashMap<>();
    for (Map<String, Object> d : docs) {
      out.put((String) d.get("id"), (String) d.get("body"));
    }
    return out;
  }

  private static Map<String, String> sources(JsonNode reply) {
    Map<String, String> out = new HashMap<>();
    for (JsonNode hit : reply.get("hits")) {
      out.put(hit.get("id").asText(), hit.at("/source/body").asText());
    }
    return out;
  }

  /** The value of the first sample of {@code name} (a metric name, optionally with the start of its labels). */
  private static double counter(String scrape, String name) {
    Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "[^ ]* ([0-9.eE+-]+)$").matcher(scrape);
    return m.find() ? Double.parseDouble(m.group(1)) : -1;
  }

  /**
   * Flips the high bit of a byte in the middle of the stored-fields data inside the largest compound
   * file (its sources are ASCII JSON, so a flipped literal is never valid UTF-8) and puts the file's
   * timestamp back.
   */
  private static void flipHighBitInStoredFields(Path index, Random random) throws IOException {
    Path cfs;
    try (Stream<Path> files = Files.list(index)) {
      cfs = files.filter(p -> p.getFileName().toString().endsWith(".cfs"))
          .max(Comparator.comparingLong(p -> p.toFile().length())).orElseThrow();
    }
    byte[] bytes = Files.readAllBytes(cfs);
    int name = indexOf(bytes, FDT_CODEC, 0);
    assertThat(name).as("stored fields in %s", cfs).isPositive();
    // After the codec name: version (4), segment id (16), suffix length (1) and suffix.
    int start = name + FDT_CODEC.length + 4 + 16 + 1 + (bytes[name + FDT_CODEC.length + 20] & 0xff);
    int end = indexOf(bytes, FOOTER_MAGIC, start);
    assertThat(end).as("the stored fields' footer in %s", cfs).isGreaterThan(start + 64);
    long at = start + (end - start) / 4 + random.nextInt((end - start) / 2);
    FileTime modified = Files.getLastModifiedTime(cfs);
    try (FileChannel ch = FileChannel.open(cfs, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(1);
      ch.read(b, at);
      b.put(0, (byte) (b.get(0) ^ 0x80));
      b.rewind();
      ch.write(b, at);
      ch.force(true);
    }
    Files.setLastModifiedTime(cfs, modified);
    System.out.printf("flipped the high bit at %d of %s (stored fields %d-%d)%n", at, cfs, start, end);
  }

  private static int indexOf(byte[] haystack, byte[] needle, int from) {
    outer:
    for (int i = from; i <= haystack.length - needle.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}

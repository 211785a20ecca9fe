package io.nrtcluster.stress.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bootstrap figure at a tiny size, end to end (a primary and two pairs of replica JVMs, S3Proxy in
 * this JVM): both bootstraps come out in bench.json with every field, and from the store the primary
 * sends far less than when it sends everything. Timings and the 5% target belong to {@code bin/nrt bench}
 * at full size: at a few MiB, what the paced load adds and merges during a bootstrap is a large share of
 * the index.
 */
class BootstrapFigureTest {
  @TempDir Path dir;

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void bothBootstrapsAreMeasuredAndTheStoreSparesThePrimary() throws Exception {
    Path out = dir.resolve("bench");
    BenchConfig tiny = new BenchConfig(out, List.of(500), List.of(250), 3, 1, 3, false, 16L << 20, 1, 4_000, 384, false,
        EnumSet.of(BenchFigure.BOOTSTRAP), BenchConfig.DEFAULT_LINK_DELAY_MS, ScaleConfig.quick(),
        new BootstrapConfig(8, 100, 2_000, 256, 1));
    BenchRun.run(tiny, System.out::println);

    JsonNode f = new ObjectMapper().readTree(out.resolve("bench.json").toFile()).path("figures");
    assertThat(f.has("scale")).as("only the chosen figure").isFalse();
    JsonNode b = f.path("bootstrap");
    System.out.println("bootstrap figure: " + b);
    assertThat(b.path("builtBytes").asLong()).isGreaterThanOrEqualTo(8L << 20);
    assertThat(b.path("builtDocs").asLong()).isPositive();
    assertThat(b.path("docsPerSec").asInt()).isEqualTo(100);
    assertThat(b.path("targetSentRatio").asDouble()).isEqualTo(0.05);
    assertThat(b.has("targetMet")).isTrue();

    JsonNode primary = b.path("fromPrimary");
    JsonNode store = b.path("fromStore");
    for (JsonNode run : List.of(primary, store)) {
      assertThat(run.path("indexBytes").asLong()).isGreaterThanOrEqualTo(b.path("builtBytes").asLong() / 3);
      assertThat(run.path("targetVersion").asLong()).isPositive();
      assertThat(run.path("toSearchingMs").asDouble()).isPositive();
      assertThat(run.path("primaryBytesSent").asLong()).isPositive();
      assertThat(run.path("primaryCpuSec").asDouble()).isPositive();
      assertThat(run.path("docsIndexed").asLong()).isPositive();
      assertThat(run.path("docsPerSec").asDouble()).isPositive();
      assertThat(run.path("replicas")).hasSize(2);
      for (JsonNode r : run.path("replicas")) {
        assertThat(r.path("toSearchingMs").asDouble()).isPositive().isLessThanOrEqualTo(run.path("toSearchingMs").asDouble());
      }
    }
    // The whole index crossed the primary's link to each replica (a merge meanwhile may shrink what the last
    // one copies); with the store, the index came from the store.
    assertThat(primary.path("primaryBytesSent").asLong()).isGreaterThanOrEqualTo(primary.path("indexBytes").asLong());
    for (JsonNode r : primary.path("replicas")) {
      assertThat(r.has("storeOutcome")).isFalse();
      assertThat(r.path("bytesFromStore").asLong()).isZero();
      assertThat(r.path("bytesFromPrimary").asLong()).isGreaterThanOrEqualTo(primary.path("indexBytes").asLong() / 2);
    }
    for (JsonNode r : store.path("replicas")) {
      assertThat(r.path("storeOutcome").asText()).isEqualTo("RESTORED");
      assertThat(r.path("bytesFromStore").asLong()).isGreaterThanOrEqualTo(store.path("indexBytes").asLong() / 2);
    }
    // Well below, not at the target: in an index this small every segment is under the merge policy's
    // floor (16 MiB). The build is merged into one segment so that a merge during the bootstrap does
    // not rewrite most of the index (which the replicas would copy); the new small segments and their
    // merges still cross the primary's link.
    assertThat(store.path("primaryBytesSent").asLong()).as(b.toString())
        .isLessThan(primary.path("primaryBytesSent").asLong() / 2);
    assertThat(b.path("storeSentRatio").asDouble()).isEqualTo(store.path("primaryBytesSentRatio").asDouble());
  }
}

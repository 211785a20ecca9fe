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
 * at full size: at a few MiB, what the paced load adds during a bootstrap is a large share of the index.
 */
class BootstrapFigureTest {
  @TempDir Path dir;

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void bothBootstrapsAreMeasuredAndTheStoreSparesThePrimary() throws Exception {
    Path out = dir.resolve("bench");
    BenchConfig tiny = new BenchConfig(out, List.of(500), List.of(250), 3, 1, 3, false, 16L << 20, 1, 4_000, 384, false,
        EnumSet.of(BenchFigure.BOOTSTRAP), BenchConfig.DEFAULT_LINK_DELAY_MS, ScaleConfig.quick(),
        new BootstrapConfig(8, 200, 500, 256));
    BenchRun.run(tiny, System.out::println);

    JsonNode f = new ObjectMapper().readTree(out.resolve("bench.json").toFile()).path("figures");
    assertThat(f.has("scale")).as("only the chosen figure").isFalse();
    JsonNode b = f.path("bootstrap");
    System.out.println("bootstrap figure: " + b);
    assertThat(b.path("builtBytes").asLong()).isGreaterThanOrEqualTo(8L << 20);
    assertThat(b.path("builtDocs").asLong()).isPositive();
    assertThat(b.path("docsPerSec").asInt()).isEqualTo(200);
    assertThat(b.path("targetSentRatio").asDouble()).isEqualTo(0.05);
    assertThat(b.has("targetMet")).isTrue();

    JsonNode primary = b.path("fromPrimary");
    JsonNode store = b.path("fromStore");
    for (JsonNode run : List.of(primary, store)) {
      assertThat(run.path("indexBytes").asLong()).isGreaterThanOrEqualTo(b.path("builtBytes").asLong() / 2);
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
    // Everything crossed the primary's link once per replica; with the store, the index came from the store.
    assertThat(primary.path("primaryBytesSent").asLong()).isGreaterThanOrEqualTo(2 * primary.path("indexBytes").asLong() * 9 / 10);
    for (JsonNode r : primary.path("replicas")) {
      assertThat(r.has("storeOutcome")).isFalse();
      assertThat(r.path("bytesFromStore").asLong()).isZero();
      assertThat(r.path("bytesFromPrimary").asLong()).isGreaterThanOrEqualTo(primary.path("indexBytes").asLong() * 9 / 10);
    }
    for (JsonNode r : store.path("replicas")) {
      assertThat(r.path("storeOutcome").asText()).isEqualTo("RESTORED");
      assertThat(r.path("bytesFromStore").asLong()).isGreaterThanOrEqualTo(b.path("builtBytes").asLong() / 2);
    }
    assertThat(store.path("primaryBytesSent").asLong()).as(b.toString())
        .isLessThan(primary.path("primaryBytesSent").asLong() / 4);
    assertThat(b.path("storeSentRatio").asDouble()).isEqualTo(store.path("primaryBytesSentRatio").asDouble());
  }
}

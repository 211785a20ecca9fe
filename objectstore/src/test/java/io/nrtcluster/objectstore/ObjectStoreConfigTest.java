package io.nrtcluster.objectstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ObjectStoreConfigTest {
  private static ObjectStoreConfig.Builder valid() {
    return ObjectStoreConfig.builder().bucket("my-bucket");
  }

  @Test
  void defaultsAreValidAndPrefixIsNormalized() {
    ObjectStoreConfig c = valid().prefix("backups/prod").build();
    assertThat(c.prefix()).isEqualTo("backups/prod/");
    assertThat(c.explicitCredentials()).isFalse();
    assertThat(valid().build().prefix()).isEmpty();
    assertThat(c.toBuilder().build()).isEqualTo(c);
  }

  @Test
  void badValuesNameTheirField() {
    assertBad(valid().bucket("Bad_Bucket"), "bucket");
    assertBad(valid().bucket(null), "bucket");
    assertBad(valid().prefix("/abs"), "prefix");
    assertBad(valid().prefix("a//b"), "prefix");
    assertBad(valid().endpoint(URI.create("ftp://host")), "endpoint");
    assertBad(valid().region(" "), "region");
    assertBad(valid().credentials("id", null), "secretAccessKey");
    assertBad(valid().credentials(null, "secret"), "accessKeyId");
    assertBad(valid().maxAttempts(0), "maxAttempts");
    assertBad(valid().backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)), "backoffMax");
    assertBad(valid().backoff(Duration.ZERO, Duration.ofSeconds(1)), "backoffMin");
    assertBad(valid().partSize(1024), "partSize");
    assertBad(valid().partSize(8L << 20).multipartThreshold(6L << 20), "multipartThreshold");
    assertBad(valid().maxParallelTransfers(65), "maxParallelTransfers");
    assertBad(valid().connectTimeout(Duration.ZERO), "connectTimeout");
    assertBad(valid().clockMargin(Duration.ofMinutes(5)), "clockMargin");
  }

  @Test
  void toStringHidesTheSecret() {
    ObjectStoreConfig c = valid().credentials("AKIDEXAMPLE", "very-secret").build();
    assertThat(c.toString()).contains("AKIDEXAMPLE").doesNotContain("very-secret");
  }

  private static void assertBad(ObjectStoreConfig.Builder b, String field) {
    assertThatThrownBy(b::build).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith(field);
  }
}

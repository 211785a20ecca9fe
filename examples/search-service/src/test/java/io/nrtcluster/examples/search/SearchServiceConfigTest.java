package io.nrtcluster.examples.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nrtcluster.node.Durability;
import io.nrtcluster.node.HostConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class SearchServiceConfigTest {
  static final HostConfig HOST = HostConfig.builder().nodeId(1).cluster("c").dataDir(Path.of("/tmp/x")).build();

  @Test
  void defaultsAreValidAndHttpHostFollowsTheHost() {
    SearchServiceConfig c = SearchServiceConfig.builder().host(HOST).build();
    assertThat(c.httpHost()).isEqualTo(HOST.bindHost());
    assertThat(c.indexes()).containsExactly("docs");
    // Writes over HTTP have no source to replay: acknowledged means replicated unless configured otherwise.
    assertThat(c.durability()).isEqualTo(Durability.REPLICATED);
    assertThat(c.minInSyncReplicas()).isEqualTo(1);
  }

  @Test
  void namesTheBadField() {
    assertBad(SearchServiceConfig.builder(), "host");
    assertBad(SearchServiceConfig.builder().host(HOST).httpPort(70000), "httpPort");
    assertBad(SearchServiceConfig.builder().host(HOST).indexes(List.of()), "indexes");
    assertBad(SearchServiceConfig.builder().host(HOST).indexes(List.of("a", "a")), "indexes");
    assertBad(SearchServiceConfig.builder().host(HOST).indexes(List.of("bad/name")), "indexes");
    assertBad(SearchServiceConfig.builder().host(HOST).indexes(List.of("zookeeper")), "indexes");
    assertBad(SearchServiceConfig.builder().host(HOST).maxBodyBytes(10), "maxBodyBytes");
    assertBad(SearchServiceConfig.builder().host(HOST).maxPageSize(0), "maxPageSize");
    assertBad(SearchServiceConfig.builder().host(HOST).pointInTimeMaxAge(Duration.ZERO), "pointInTimeMaxAge");
    assertBad(SearchServiceConfig.builder().host(HOST).pointInTimeMaxVersions(0), "pointInTimeMaxVersions");
    assertBad(SearchServiceConfig.builder().host(HOST).refreshInterval(Duration.ofHours(2)), "refreshInterval");
    assertBad(SearchServiceConfig.builder().host(HOST).pollInterval(Duration.ofMillis(-1)), "pollInterval");
    assertBad(SearchServiceConfig.builder().host(HOST).httpThreads(0), "httpThreads");
    assertBad(SearchServiceConfig.builder().host(HOST).durability(null), "durability");
    assertBad(SearchServiceConfig.builder().host(HOST).minInSyncReplicas(-1), "minInSyncReplicas");
  }

  static void assertBad(SearchServiceConfig.Builder b, String field) {
    assertThatThrownBy(b::build).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith(field);
  }
}

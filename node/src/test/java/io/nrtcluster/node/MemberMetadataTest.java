package io.nrtcluster.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.election.MemberInfo;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Application metadata published with a host's membership, as peers read it. */
class MemberMetadataTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  private static HostConfig.Builder host(int id, Path dir, String zk) {
    return HostConfig.builder().nodeId(id).cluster("meta").dataDir(dir.resolve("n" + id)).zooKeeper(zk)
        .sessionTimeout(Duration.ofSeconds(4)).electionSettle(Duration.ofMillis(300)).transport(ClusterHarness.transport());
  }

  private static Map<String, String> seenBy(ClusterNode viewer, int nodeId) throws Exception {
    for (MemberInfo m : viewer.members()) {
      if (m.nodeId() == nodeId) {
        return m.metadata();
      }
    }
    return null;
  }

  @Test
  void everyIndexOfAHostPublishesItsMetadataAndAChangeReachesThePeers() throws Exception {
    List<AutoCloseable> open = new ArrayList<>();
    try (TestingServer zk = new TestingServer(true)) {
      try {
        NrtHost h1 = NrtHost.start(host(1, dir, zk.getConnectString()).memberMetadata(Map.of("http", "http://127.0.0.1:8081")).build());
        open.add(h1);
        NrtHost h2 = NrtHost.start(host(2, dir, zk.getConnectString()).build());
        open.add(h2);
        ClusterNode a1 = h1.openIndex(IndexSettings.standard("a"));
        ClusterNode a2 = h2.openIndex(IndexSettings.standard("a"));
        ClusterNode b2 = h2.openIndex(IndexSettings.standard("b"));
        assertThat(seenBy(a2, 1)).isEqualTo(Map.of("http", "http://127.0.0.1:8081"));
        assertThat(seenBy(a1, 2)).isEmpty();

        h2.setMemberMetadata(Map.of("http", "http://127.0.0.1:8082"));
        ClusterNode b1 = h1.openIndex(IndexSettings.standard("b"));
        await().atMost(WAIT).untilAsserted(() -> {
          assertThat(seenBy(a1, 2)).isEqualTo(Map.of("http", "http://127.0.0.1:8082"));
          assertThat(seenBy(b1, 2)).isEqualTo(Map.of("http", "http://127.0.0.1:8082"));
          assertThat(seenBy(b2, 1)).as("an index opened later starts with the host's metadata").isEqualTo(Map.of("http", "http://127.0.0.1:8081"));
        });
        assertThat(h2.memberMetadata()).isEqualTo(Map.of("http", "http://127.0.0.1:8082"));

        await().atMost(WAIT).until(() -> a1.isWritablePrimary() || a2.isWritablePrimary());
        ClusterNode primary = a1.isWritablePrimary() ? a1 : a2;
        primary.addDocument(List.of());
        primary.refresh();
        await().atMost(WAIT).untilAsserted(() -> assertThat(a2.members()).allSatisfy(m -> assertThat(m.searchingVersion()).isPositive()));
        assertThat(seenBy(a2, 1)).as("progress reports keep the metadata").isEqualTo(Map.of("http", "http://127.0.0.1:8081"));

        assertThatThrownBy(() -> h1.setMemberMetadata(Map.of("bad key", "x")))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("memberMetadata");
        assertThat(h1.memberMetadata()).isEqualTo(Map.of("http", "http://127.0.0.1:8081"));
        assertThatThrownBy(() -> host(3, dir, "x").memberMetadata(Map.of("k", "v".repeat(2000))).build())
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("memberMetadata.k");
      } finally {
        for (AutoCloseable c : open.reversed()) {
          c.close();
        }
      }
    }
  }
}

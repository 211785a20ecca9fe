package io.nrtcluster.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.transport.TestCertificates;
import io.nrtcluster.transport.TlsConfig;
import io.nrtcluster.transport.TransportConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real primary and real replicas replicating over mutually authenticated TLS, with certificates
 * made at run time: NRT points and a merge pre-copy arrive intact (file data goes in chunks, never
 * {@code FileRegion}), and a replica whose certificate another authority signed gets nothing while
 * the others keep replicating.
 */
@Timeout(120)
class TlsReplicationTest {
  private static TestCertificates.Authority ca;

  @TempDir Path dir;

  @BeforeAll
  static void authority() {
    ca = TestCertificates.authority("mini-ca");
  }

  private TransportConfig tls(TlsConfig.Builder material) {
    // Hostname verification on: every node's certificate names 127.0.0.1, the address replicas dial.
    return MiniCluster.fastTransport().toBuilder().tls(material.hostnameVerification(true).build()).build();
  }

  private TransportConfig pemNode(String name, TestCertificates.Authority issuer) throws IOException {
    return tls(issuer.issueLoopback(name).pem(dir.resolve("tls-" + name), ca));
  }

  @Test
  void replicasCopyNrtPointsAndMergesOverTls() throws Exception {
    long seed = TestSeeds.seed();
    TransportConfig replicaWithStores = tls(ca.issueLoopback("r2").keyStores(dir.resolve("tls-r2"), "r2-secret", ca));
    try (MiniCluster cluster = new MiniCluster(dir, seed, 2, pemNode("p0", ca), pemNode("r1", ca))
        .replicaTransport(1, replicaWithStores).start()) {
      for (int round = 0; round < 4; round++) {
        cluster.addDocs(150);
        cluster.updateDocs(20);
        cluster.deleteDocs(5);
        long version = cluster.refresh();
        cluster.awaitReplicasAt(version, Duration.ofSeconds(60));
      }
      long preCopies = cluster.replica(0).stats().preCopiesCompleted();
      cluster.primary().writer().forceMerge(1);
      long merged = cluster.refresh();
      cluster.awaitReplicasAt(merged, Duration.ofSeconds(60));
      for (Replica r : cluster.replicas()) {
        MiniCluster.View view = MiniCluster.view(r);
        assertThat(view.counts()).as("seed %d: R%d at version %d", seed, r.nodeId(), view.version())
            .isEqualTo(cluster.expected(view.version()));
        assertThat(r.stats().checksumMismatches()).isZero();
      }
      assertThat(cluster.replica(0).stats().preCopiesCompleted()).as("the merged segment was pre-copied over TLS")
          .isGreaterThan(preCopies);
    }
  }

  @Test
  void aReplicaWithACertificateOfAnotherAuthorityGetsNothing() throws Exception {
    long seed = TestSeeds.seed();
    TestCertificates.Authority other = TestCertificates.authority("other-ca");
    try (MiniCluster cluster = new MiniCluster(dir, seed, 2, pemNode("p0", ca), pemNode("r1", ca))
        .replicaTransport(1, pemNode("stranger", other)).start()) {
      Replica stranger = cluster.replica(1);
      long start = stranger.searchingVersion();
      cluster.addDocs(200);
      long version = cluster.refresh();
      await().atMost(Duration.ofSeconds(60)).until(() -> cluster.replica(0).searchingVersion() >= version);
      // The stranger keeps trying (and keeps being refused) while the trusted replica replicates.
      cluster.addDocs(50);
      long next = cluster.refresh();
      await().atMost(Duration.ofSeconds(60)).until(() -> cluster.replica(0).searchingVersion() >= next);
      assertThat(stranger.searchingVersion()).as("seed %d", seed).isEqualTo(start);
      assertThat(stranger.stats().bytesCopied()).isZero();
      assertThat(cluster.primary().replicaCount()).isEqualTo(1);
    }
  }
}

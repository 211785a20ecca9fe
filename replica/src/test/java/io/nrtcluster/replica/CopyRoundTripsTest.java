package io.nrtcluster.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.nrtcluster.transport.FaultInjection;
import io.nrtcluster.transport.TransportConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Over a long link (the "linkDelay" fault point on both nodes), a new version costs the replica at
 * most one exchange it waits on: the NRT point brings the copy-state, and the requests for all the
 * new files go out together. Counted on the wire by a relay between the nodes ({@link WireTap}), not
 * timed: a round is a burst of requests the replica sends after the primary's last answer.
 */
@Timeout(180)
class CopyRoundTripsTest {
  private static final Logger LOG = LoggerFactory.getLogger(CopyRoundTripsTest.class);
  /** What the replica sends and then waits on (wire codes, docs/protocol.md): GET_COPY_STATE, FETCH_FILE, NEW_REPLICA. */
  private static final Set<Integer> REQUESTS = Set.of(10, 13, 21);
  /**
   * What the primary sends that a replica request may follow: ERROR, COPY_STATE, FILE_HEADER,
   * FILE_CHUNK, NRT_POINT (and its form with a copy-state).
   */
  private static final Set<Integer> ANSWERS = Set.of(3, 11, 14, 15, 20, 25);

  @TempDir Path dir;

  @Test
  void aVersionCostsTheReplicaOneRoundTripOverADelayedLink() throws Exception {
    long seed = TestSeeds.seed();
    TransportConfig delayed = MiniCluster.faulty(FaultInjection.builder().linkDelayMillis(30).seed(seed).build());
    try (MiniCluster cluster = new MiniCluster(dir, seed, 1, delayed, delayed)) {
      cluster.startPrimary();
      try (WireTap tap = new WireTap(cluster.primary().address())) {
        cluster.replicaSettings(b -> b.primary(tap.address()));
        cluster.startReplicas();
        cluster.addDocs(100);
        cluster.awaitReplicasAt(cluster.refresh(), Duration.ofSeconds(60));
        List<Integer> rounds = new ArrayList<>();
        for (int v = 0; v < 6; v++) {
          cluster.addDocs(200);
          cluster.updateDocs(20);
          cluster.deleteDocs(10);
          long from = System.nanoTime();
          long version = cluster.refresh();
          cluster.awaitReplicasAt(version, Duration.ofSeconds(60));
          long to = System.nanoTime();
          List<WireTap.Frame> frames = tap.frames().stream().filter(f -> f.nanos() >= from && f.nanos() <= to).toList();
          int r = rounds(frames);
          LOG.info("seed {}: version {} took {} rounds: {}", seed, version, r, frames.stream()
              .map(f -> (f.toPrimary() ? ">" : "<") + f.type()).collect(Collectors.joining(" ")));
          rounds.add(r);
          MiniCluster.View view = MiniCluster.view(cluster.replica(0));
          assertThat(view.counts()).as("seed %d", seed).isEqualTo(cluster.expected(view.version()));
        }
        assertThat(rounds).as("seed %d: request rounds per version (the NRT point's one-way hop not counted)", seed)
            .allSatisfy(r -> assertThat(r).isLessThanOrEqualTo(1));
      }
    }
  }

  /** Bursts of replica requests, each begun after an answer from the primary passed. */
  private static int rounds(List<WireTap.Frame> frames) {
    int rounds = 0;
    boolean answered = true;
    for (WireTap.Frame f : frames) {
      if (!f.toPrimary() && ANSWERS.contains(f.type())) {
        answered = true;
      } else if (f.toPrimary() && REQUESTS.contains(f.type()) && answered) {
        rounds++;
        answered = false;
      }
    }
    return rounds;
  }
}

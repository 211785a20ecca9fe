package io.nrtcluster.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.transport.Connection;
import io.nrtcluster.transport.Endpoint;
import io.nrtcluster.transport.Message;
import io.nrtcluster.transport.PeerRole;
import io.nrtcluster.transport.Transport;
import io.nrtcluster.transport.TransportConfig;
import io.nrtcluster.transport.TransportServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Defect 3 of the state-machine issue: a primary that takes a copy-state request and never answers
 * keeps the replica's copy thread waiting up to the request timeout, but never the readers: the log
 * prefix's generation, the status and the member record's inputs answer at once meanwhile.
 */
@Timeout(90)
class UnresponsivePrimaryTest {
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

  @TempDir Path dir;

  /** Announces NRT point 5 of generation 1 to every replica, then never answers a copy-state request. */
  private static final class SilentPrimary implements Endpoint {
    final AtomicInteger copyStateRequests = new AtomicInteger();

    @Override
    public int nodeId() {
      return 99;
    }

    @Override
    public long primaryGeneration() {
      return 1;
    }

    @Override
    public PeerRole role() {
      return PeerRole.PRIMARY;
    }

    @Override
    public void onRequest(Connection c, Message request) {
      switch (request) {
        case Message.Ping p -> c.reply(new Message.Ack(p.requestId()));
        case Message.NewReplica n -> {
          c.reply(new Message.Ack(n.requestId()));
          c.send(new Message.NrtPoint(c.nextRequestId(), 1, 5));
        }
        case Message.GetCopyState g -> copyStateRequests.incrementAndGet();
        case Message.ReleaseCopyState r -> c.reply(new Message.Ack(r.requestId()));
        default -> {}
      }
    }
  }

  @Test
  void readersStayResponsiveWhileTheCopyStateRequestHangs() throws Exception {
    TransportConfig transport = MiniCluster.fastTransport().toBuilder().requestTimeout(REQUEST_TIMEOUT)
        .readTimeout(REQUEST_TIMEOUT.multipliedBy(2)).build();
    SilentPrimary silent = new SilentPrimary();
    try (Transport primarySide = Transport.create("P99", transport)) {
      TransportServer server = primarySide.bind("127.0.0.1", 0, MiniCluster.CLUSTER);
      server.register(MiniCluster.INDEX, silent);
      ReplicaConfig config = ReplicaConfig.builder().nodeId(1).cluster(MiniCluster.CLUSTER).index(MiniCluster.INDEX)
          .dataDir(dir.resolve("r1")).primary(server.localAddress()).transport(transport).build();
      try (Replica r = Replica.open(config)) {
        await("R1 asked for the copy-state").atMost(Duration.ofSeconds(20)).until(() -> silent.copyStateRequests.get() > 0);

        // What a log line's prefix, the status and the member record read, each bounded far below
        // the request timeout the copy thread is waiting out.
        CompletableFuture<String> readers = CompletableFuture.supplyAsync(() -> "gen=" + r.primaryGen()
            + " searching=" + r.searchingVersion() + " copying=" + r.isCopying() + " commit=" + r.lastCommitVersion()
            + " behind=" + r.versionsBehind() + " lastCopy=" + r.stats().lastCopyCompletedMillis()
            + " connected=" + r.isConnected() + " state=" + r.state());
        String seen = readers.get(2, TimeUnit.SECONDS);
        assertThat(seen).contains("gen=1", "state=RUNNING");
        assertThat(silent.copyStateRequests.get()).as("still waiting for the answer").isEqualTo(1);
      }
    }
  }
}

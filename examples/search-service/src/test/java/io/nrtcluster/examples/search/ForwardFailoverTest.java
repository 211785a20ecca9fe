package io.nrtcluster.examples.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.transport.FaultInjection;
import io.nrtcluster.transport.TransportConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Writes sent through the replicas while the primary is cut off from both (ZooKeeper still
 * reachable): the replicas depose the primary within a second or two, and each write must be
 * acknowledged by the new primary then, not after the forward's timeout; the replica that takes
 * over applies the write it was forwarding itself. Real nodes, ZooKeeper,
 * sockets: the primary's replication frames are held back a minute (the transport's "linkDelay"
 * point) and its HTTP port is reached through a relay that, once cut, drops everything (the forward
 * to it hangs as over a partition) or refuses and resets every connection (as a port nothing
 * listens on: the forward fails at once, and must wait for the failover rather than give up).
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class ForwardFailoverTest {
  /** Long, so that waiting it out cannot be mistaken for following the failover. */
  static final Duration FORWARD_TIMEOUT = Duration.ofSeconds(30);
  /** A third of the forward timeout; a failover here (suspicion 500 ms, settle 200 ms) takes about a second. */
  static final Duration BOUND = Duration.ofSeconds(10);

  /** How the primary's HTTP link fails. */
  enum HttpCut {
    /** Packets dropped: the forward hangs. */
    DROP,
    /** Connections reset and refused: the forward fails at once. */
    REFUSE
  }

  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(HttpCut.class)
  void aWriteThroughAReplicaIsAcknowledgedByTheNewPrimaryWhenTheOldOneIsCutOff(HttpCut httpCut) throws Exception {
    long seed = SearchServiceEndToEndTest.seed();
    System.out.println("ForwardFailoverTest seed " + seed);
    Random random = new Random(seed);
    String why = "seed " + seed;
    TransportConfig transport = TransportConfig.builder().ioThreads(1).requestThreads(4)
        .faults(FaultInjection.builder().switchable(true).seed(seed).build()).build();
    try (TestingServer zk = new TestingServer(true);
        ServiceCluster cluster = new ServiceCluster(dir, zk.getConnectString(),
            b -> b.forwardTimeout(FORWARD_TIMEOUT).refreshInterval(Duration.ofMillis(200)), h -> h.transport(transport));
        Http http = new Http()) {
      List<SearchNode> nodes = new ArrayList<>();
      for (int id = 1; id <= 3; id++) {
        nodes.add(cluster.start(id));
      }
      SearchNode old = SearchServiceEndToEndTest.awaitPrimary(http, nodes, why);
      SearchNode through = nodes.stream().filter(n -> n != old).findFirst().orElseThrow();
      try (CuttableRelay relay = new CuttableRelay(old.httpUrl())) {
        // Peers reach the primary's HTTP API through the relay only.
        old.host().setMemberMetadata(HttpAddressBook.metadata(relay.uri()));
        await("the replicas know the primary by the relay").atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
          for (SearchNode n : nodes) {
            if (n != old) {
              assertThat(http.get(n.httpUrl(), "/status").json().at("/indexes/docs/primary/http").asText())
                  .isEqualTo(relay.uri().toString());
            }
          }
        });
        Http.Reply whole = http.post(through.httpUrl(), "/indexes/docs/docs", SearchServiceEndToEndTest.docs(random, 0, 10, true));
        assertThat(whole.status()).as(why + ": %s", whole.text()).isEqualTo(200);
        assertThat(whole.header(WriteForwarder.FORWARDED_TO)).contains(relay.uri().toString());

        long cutAt = System.nanoTime();
        old.host().transport().updateLinkDelay(FaultInjection.MAX_LINK_DELAY_MILLIS);
        if (httpCut == HttpCut.DROP) {
          relay.cut();
        } else {
          relay.refuse();
        }
        // Through both replicas at once: one of them takes over and applies its write itself.
        List<SearchNode> replicas = nodes.stream().filter(n -> n != old).toList();
        List<CompletableFuture<Http.Reply>> sent = new ArrayList<>();
        for (int i = 0; i < replicas.size(); i++) {
          SearchNode r = replicas.get(i);
          Object batch = SearchServiceEndToEndTest.docs(random, 10 + 10 * i, 20 + 10 * i, true);
          sent.add(CompletableFuture.supplyAsync(() -> http.post(r.httpUrl(), "/indexes/docs/docs?refresh=true", batch,
              FORWARD_TIMEOUT.multipliedBy(3))));
        }
        long version = -1;
        for (int i = 0; i < replicas.size(); i++) {
          Http.Reply reply = sent.get(i).get();
          Duration took = Duration.ofNanos(System.nanoTime() - cutAt);
          System.out.println("ForwardFailoverTest " + httpCut + ": the write through N" + replicas.get(i).nodeId()
              + " was answered within " + took + " of the cut, status " + reply.status() + ": " + reply.text());
          assertThat(reply.status()).as(why + ": answered within %s: %s", took, reply.text()).isEqualTo(200);
          assertThat(reply.json().get("node").asInt()).as(why + ": acknowledged by the new primary").isNotEqualTo(old.nodeId());
          assertThat(took).as(why + ": the forward followed the failover instead of waiting out its %s timeout",
              FORWARD_TIMEOUT).isLessThan(BOUND);
          assertThat(reply.header(WriteForwarder.ABANDONED)).as(why + ": the reply names the attempt given up on")
              .hasValueSatisfying(v -> assertThat(v).startsWith(relay.uri().toString()));
          version = Math.max(version, reply.json().get("version").asLong());
        }

        // What the new primary acknowledged is there: every survivor finds both batches.
        long newest = version;
        for (SearchNode n : replicas) {
          await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            Http.Reply found = http.get(n.httpUrl(), "/indexes/docs/search?q=common&size=100&min_version=" + newest);
            assertThat(found.status()).as(why + " N%d: %s", n.nodeId(), found.text()).isEqualTo(200);
            assertThat(SearchServiceEndToEndTest.ids(found.json())).as(why).contains("d10", "d19", "d20", "d29");
          });
        }
      } finally {
        old.host().transport().updateLinkDelay(0);
      }
    }
  }
}

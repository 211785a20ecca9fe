package io.nrtcluster.stress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The harness routes writes as a client of the cluster: it writes to the primary ZooKeeper names and
 * leaves a target (a write in flight included) as soon as the view names another node or generation,
 * instead of waiting out a long timeout on a paused, deposed node (seed 20261121: about 15 s of
 * writes to a node deposed 0.5 s after its pause).
 */
class WriteRouteTest {
  private static final long MS = 1_000_000L;

  @Test
  @Timeout(10)
  void theTargetIsLeftAsSoonAsAViewReadAfterItNamesAnotherNodeOrGeneration() {
    // N1 leads generation 3 from t=0; it is paused at t=1000 and N2 leads generation 4 from t=1500.
    long since = 0;
    assertThat(WriteRoute.leave(1, 3, since, new WriteRoute.View(1, 3, 100 * MS))).isNull();
    assertThat(WriteRoute.leave(1, 3, since, new WriteRoute.View(1, 3, 1_100 * MS)))
        .as("a paused primary the view still names is waited on").isNull();
    assertThat(WriteRoute.leave(1, 3, since, new WriteRoute.View(2, 4, 1_500 * MS)))
        .as("the view names the new primary: leave at once").contains("N2").contains("4");
    assertThat(WriteRoute.leave(1, 3, since, new WriteRoute.View(-1, -1, 1_500 * MS)))
        .as("no primary named: the old one no longer leads").isNotNull();
    assertThat(WriteRoute.leave(1, 3, since, new WriteRoute.View(1, 5, 1_500 * MS)))
        .as("the same node at a new generation may have lost unpublished writes: resync").contains("5");
    assertThat(WriteRoute.leave(1, 3, since, null)).as("ZooKeeper not answering: no view, no move").isNull();

    // After the resync at t=2000 to N2 generation 4, a view read before it is stale, not a change.
    long resynced = 2_000 * MS;
    assertThat(WriteRoute.leave(2, 4, resynced, new WriteRoute.View(1, 3, 1_950 * MS))).isNull();
    assertThat(WriteRoute.leave(2, 4, resynced, new WriteRoute.View(-1, -1, 1_990 * MS))).isNull();
    assertThat(WriteRoute.leave(2, 4, resynced, new WriteRoute.View(2, 4, 2_050 * MS))).isNull();
    assertThat(WriteRoute.leave(2, 4, resynced, new WriteRoute.View(3, 5, 2_050 * MS))).contains("N3");
  }

  /** A write to a node that never answers returns as soon as the route gives it up, not after its timeout. */
  @Test
  @Timeout(60)
  void aWriteToANodeThatNeverAnswersIsGivenUpWhenTheRouteSaysSo() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/ops", ex -> {
      try {
        release.await(60, TimeUnit.SECONDS); // a paused process: reads the request, never answers
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      ex.close();
    });
    server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    server.start();
    try {
      JsonClient client = new JsonClient("N1", "127.0.0.1", server.getAddress().getPort());
      long start = System.nanoTime();
      long giveUpAt = start + 300 * MS;
      assertThatThrownBy(() -> client.post("/ops", null, Duration.ofSeconds(30), Object.class,
          () -> System.nanoTime() >= giveUpAt ? "ZooKeeper names N2 (generation 4) now" : null))
          .isInstanceOf(AgentException.class).hasMessageContaining("N2");
      long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      assertThat(tookMs).as("given up well before the 30 s timeout").isLessThan(10_000);
    } finally {
      release.countDown();
      server.stop(0);
    }
  }
}

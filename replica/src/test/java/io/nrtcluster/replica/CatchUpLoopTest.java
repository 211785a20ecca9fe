package io.nrtcluster.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.common.NodeLog;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/**
 * The catch-up loop's retry discipline, with a step that records what it was asked and reports a
 * copy in flight, as the replica's does. The backoff here is an hour, so any attempt during it is
 * one that should not have happened.
 */
@Timeout(30)
class CatchUpLoopTest {
  private static final Duration HOUR = Duration.ofHours(1);

  private final List<Long> attempts = new CopyOnWriteArrayList<>();
  private final CatchUpLoop loop = new CatchUpLoop(new NodeLog(LoggerFactory.getLogger(CatchUpLoopTest.class), "R9", () -> 1),
      (gen, version) -> {
        attempts.add(version);
        return CatchUpLoop.Outcome.IN_FLIGHT;
      }, HOUR, HOUR);

  @Test
  void afterAFailedCopyNewPointsWaitForTheBackoffAndASuccessEndsIt() {
    loop.start();
    try {
      loop.announce(1, 10);
      await().until(() -> attempts.size() == 1);

      // The copy failed (a full disk): however often the primary refreshes, no attempt until the backoff ends.
      loop.retryLater();
      for (long v = 11; v <= 30; v++) {
        loop.announce(1, v);
      }
      await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> attempts.size() == 1);

      // Progress (here: another copy that was installed) ends the backoff, and the loop aims at the newest point.
      loop.copySucceeded();
      await().until(() -> attempts.size() == 2);
      assertThat(attempts).containsExactly(10L, 30L);

      // No longer backing off: an announcement is tried at once.
      loop.announce(1, 31);
      await().until(() -> attempts.size() == 3);
    } finally {
      loop.close(5000);
    }
  }

  @Test
  void aReconnectEndsTheBackoffAtOnce() {
    loop.start();
    try {
      loop.announce(1, 10);
      await().until(() -> attempts.size() == 1);
      loop.retryLater();
      loop.announce(1, 11);
      loop.wakeUp();
      await().until(() -> attempts.size() >= 2);
      assertThat(attempts).containsExactly(10L, 11L);
    } finally {
      loop.close(5000);
    }
  }
}

package io.nrtcluster.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The wait for a primary without ZooKeeper: no node up is "no primary", and the wait is bounded. */
@Timeout(30)
class WritablePrimaryTest {
  private static final List<ClusterNode> ALL_DOWN = Arrays.asList(null, null, null);

  @Test
  void noNodeUpIsNoPrimary() {
    assertThat(WritablePrimary.find(List.of())).isEqualTo(-1);
    assertThat(WritablePrimary.find(ALL_DOWN)).isEqualTo(-1);
    assertThat(WritablePrimary.describe(ALL_DOWN)).isEqualTo("N1 down, N2 down, N3 down");
  }

  @Test
  void theWaitEndsAtItsDeadlineAskingForTheNodesOnEveryPoll() throws Exception {
    AtomicInteger asked = new AtomicInteger();
    long start = System.nanoTime();
    int p = WritablePrimary.await(() -> {
      asked.incrementAndGet();
      return ALL_DOWN;
    }, Duration.ofMillis(300), Duration.ofMillis(20));
    long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertThat(p).isEqualTo(-1);
    assertThat(tookMs).isBetween(300L, 5_000L);
    assertThat(asked.get()).as("polls in 300 ms every 20 ms").isBetween(3, 20);
  }

  @Test
  void anInterruptedWaitSaysSo() {
    Thread.currentThread().interrupt();
    assertThatThrownBy(() -> WritablePrimary.await(() -> ALL_DOWN, Duration.ofSeconds(10), Duration.ofMillis(10)))
        .isInstanceOf(InterruptedException.class);
    assertThat(Thread.interrupted()).as("the flag is cleared, as InterruptedException says").isFalse();
  }
}

package io.nrtcluster.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class PoolShareTest {
  private final ElasticPool pool = new ElasticPool("t-share", 2, Duration.ofSeconds(30));

  @AfterEach
  void stop() throws InterruptedException {
    pool.shutdownNow();
    pool.awaitTermination(5, TimeUnit.SECONDS);
  }

  @Test
  void tasksRunAtTheSameTimeAndTerminationWaitsForThisShareOnly() throws Exception {
    PoolShare mine = new PoolShare("mine", pool);
    PoolShare other = new PoolShare("other", pool);
    CountDownLatch bothRunning = new CountDownLatch(2);
    CountDownLatch release = new CountDownLatch(1);
    for (int i = 0; i < 2; i++) {
      mine.execute(() -> {
        bothRunning.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
    }
    assertThat(bothRunning.await(5, TimeUnit.SECONDS)).isTrue();
    other.shutdown();
    assertThat(other.awaitTermination(1, TimeUnit.SECONDS)).isTrue();
    mine.shutdown();
    assertThatThrownBy(() -> mine.execute(() -> { })).isInstanceOf(RejectedExecutionException.class);
    assertThat(mine.awaitTermination(100, TimeUnit.MILLISECONDS)).isFalse();
    release.countDown();
    assertThat(mine.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void shutdownNowInterruptsRunningTasksSkipsWaitingOnesAndLeavesThePoolClean() throws Exception {
    ElasticPool one = new ElasticPool("t-one", 1, Duration.ofSeconds(30));
    try {
      PoolShare share = new PoolShare("stopped", one);
      CountDownLatch started = new CountDownLatch(1);
      CountDownLatch neverReleased = new CountDownLatch(1);
      AtomicBoolean interrupted = new AtomicBoolean();
      share.execute(() -> {
        started.countDown();
        try {
          neverReleased.await(30, TimeUnit.SECONDS); // blocks until interrupted (bounded)
        } catch (InterruptedException e) {
          interrupted.set(true);
        }
      });
      AtomicBoolean waitingRan = new AtomicBoolean();
      share.execute(() -> waitingRan.set(true));
      assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
      share.shutdownNow();
      assertThat(share.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
      assertThat(interrupted).isTrue();
      assertThat(waitingRan).isFalse();
      AtomicBoolean next = new AtomicBoolean(true);
      CountDownLatch done = new CountDownLatch(1);
      new PoolShare("next", one).execute(() -> {
        next.set(Thread.currentThread().isInterrupted());
        done.countDown();
      });
      assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
      assertThat(next).isFalse();
    } finally {
      one.shutdownNow();
    }
  }
}

package io.nrtcluster.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class ElasticPoolTest {
  private ElasticPool pool;

  @AfterEach
  void stop() throws InterruptedException {
    if (pool != null) {
      pool.shutdownNow();
      pool.awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  @Test
  void aThreadIsAddedOnlyWhenEveryThreadIsBusy() throws Exception {
    pool = new ElasticPool("t-grow", 8, Duration.ofSeconds(30));
    for (int i = 0; i < 20; i++) {
      CountDownLatch done = new CountDownLatch(1);
      pool.execute(done::countDown);
      assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
      // The worker goes idle just after the task: the next task must find it, not a new thread.
      await().atMost(Duration.ofSeconds(5)).until(() -> pool.busyThreads() == 0);
    }
    assertThat(pool.largestThreads()).isEqualTo(1);
  }

  @Test
  void atMostMaxThreadsRunAndTheRestWaitForOne() throws Exception {
    pool = new ElasticPool("t-max", 3, Duration.ofSeconds(30));
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger running = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    java.util.Queue<Integer> order = new java.util.concurrent.ConcurrentLinkedQueue<>();
    CountDownLatch all = new CountDownLatch(10);
    for (int i = 0; i < 10; i++) {
      int id = i;
      pool.execute(() -> {
        most.accumulateAndGet(running.incrementAndGet(), Math::max);
        try {
          if (id < 3) {
            release.await();
          } else {
            order.add(id);
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } finally {
          running.decrementAndGet();
          all.countDown();
        }
      });
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> pool.busyThreads() == 3);
    assertThat(pool.threads()).isEqualTo(3);
    assertThat(pool.queuedTasks()).isEqualTo(7);
    release.countDown();
    assertThat(all.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(most.get()).isEqualTo(3);
    assertThat(pool.largestThreads()).isEqualTo(3);
    // Queued tasks ran on the three threads there were, none on a fourth.
    assertThat(order).containsExactlyInAnyOrder(3, 4, 5, 6, 7, 8, 9);
  }

  @Test
  void idleThreadsEndAfterTheKeepAliveEvenUnderASteadyTrickle() throws Exception {
    pool = new ElasticPool("t-shrink", 8, Duration.ofMillis(300));
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch started = new CountDownLatch(6);
    for (int i = 0; i < 6; i++) {
      pool.execute(() -> {
        started.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
    }
    assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(pool.threads()).isEqualTo(6);
    release.countDown();
    // One short task every 20 ms: one thread serves them all, and the five others end (a FIFO
    // hand-off, as ThreadPoolExecutor's, would keep all six alive).
    AtomicBoolean trickle = new AtomicBoolean(true);
    Thread feeder = new Thread(() -> {
      while (trickle.get()) {
        pool.execute(() -> { });
        try {
          Thread.sleep(20);
        } catch (InterruptedException e) {
          return;
        }
      }
    });
    feeder.start();
    try {
      await().atMost(Duration.ofSeconds(10)).until(() -> pool.threads() <= 2);
    } finally {
      trickle.set(false);
      feeder.interrupt();
      feeder.join();
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> pool.threads() == 0);
  }

  @Test
  void aFailingTaskOrAnInterruptLeftBehindDoesNotReachTheNextTask() throws Exception {
    pool = new ElasticPool("t-robust", 1, Duration.ofSeconds(30));
    pool.execute(() -> {
      throw new IllegalStateException("expected by the test");
    });
    pool.execute(() -> Thread.currentThread().interrupt());
    AtomicBoolean sawInterrupt = new AtomicBoolean(true);
    CountDownLatch done = new CountDownLatch(1);
    pool.execute(() -> {
      sawInterrupt.set(Thread.currentThread().isInterrupted());
      done.countDown();
    });
    assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(sawInterrupt).isFalse();
    assertThat(pool.largestThreads()).isEqualTo(1);
  }

  @Test
  void shutdownRunsWhatIsQueuedRefusesMoreAndEndsEveryThread() throws Exception {
    pool = new ElasticPool("t-shutdown", 1, Duration.ofSeconds(30));
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger ran = new AtomicInteger();
    pool.execute(() -> {
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      ran.incrementAndGet();
    });
    pool.execute(ran::incrementAndGet);
    pool.shutdown();
    assertThatThrownBy(() -> pool.execute(() -> { })).isInstanceOf(RejectedExecutionException.class)
        .hasMessageContaining("t-shutdown");
    assertThat(pool.awaitTermination(100, TimeUnit.MILLISECONDS)).isFalse();
    release.countDown();
    assertThat(pool.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    assertThat(ran.get()).isEqualTo(2);
    assertThat(pool.threads()).isZero();
  }

  @Test
  void settingsAreValidated() {
    assertThatThrownBy(() -> new ElasticPool("x", 0, Duration.ofSeconds(1))).hasMessageContaining("maxThreads");
    assertThatThrownBy(() -> new ElasticPool("x", 1, Duration.ZERO)).hasMessageContaining("keepAlive");
  }
}

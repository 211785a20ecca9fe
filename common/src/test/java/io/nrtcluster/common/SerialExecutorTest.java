package io.nrtcluster.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class SerialExecutorTest {
  private ElasticPool pool;
  private ScheduledThreadPoolExecutor timer;

  @BeforeEach
  void start() {
    pool = new ElasticPool("t-pool", 4, Duration.ofSeconds(30));
    timer = new ScheduledThreadPoolExecutor(1, new NamedThreadFactory("t-timer"));
    timer.setRemoveOnCancelPolicy(true);
  }

  @AfterEach
  void stop() throws InterruptedException {
    timer.shutdownNow();
    pool.shutdownNow();
    pool.awaitTermination(5, TimeUnit.SECONDS);
  }

  /** A counter only its own executor's tasks touch, without any lock: wrong unless they run one at a time, in order. */
  private static final class Component {
    final SerialExecutor executor;
    int next;
    final AtomicInteger running = new AtomicInteger();
    final AtomicBoolean overlapped = new AtomicBoolean();
    final AtomicBoolean outOfOrder = new AtomicBoolean();

    Component(SerialExecutor executor) {
      this.executor = executor;
    }

    void step(int expected) {
      if (running.incrementAndGet() != 1) {
        overlapped.set(true);
      }
      if (next != expected) {
        outOfOrder.set(true);
      }
      next = expected + 1;
      running.decrementAndGet();
    }
  }

  @Test
  void manyExecutorsOnFewThreadsEachRunTheirTasksOneAtATimeInOrder() throws Exception {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    List<Component> components = new ArrayList<>();
    for (int c = 0; c < 40; c++) {
      components.add(new Component(new SerialExecutor("c" + c, pool, timer)));
    }
    int perComponent = 500;
    List<Thread> submitters = new ArrayList<>();
    for (Component c : components) {
      int pauseEvery = 50 + random.nextInt(100);
      Thread t = new Thread(() -> {
        for (int i = 0; i < perComponent; i++) {
          int step = i;
          c.executor.execute(() -> c.step(step));
          if (i % pauseEvery == 0) {
            Thread.yield();
          }
        }
      });
      submitters.add(t);
      t.start();
    }
    for (Thread t : submitters) {
      t.join();
    }
    await("every task ran (seed " + seed + ")").atMost(Duration.ofSeconds(20)).until(() -> {
      for (Component c : components) {
        CountDownLatch l = new CountDownLatch(1);
        c.executor.execute(l::countDown);
        if (!l.await(5, TimeUnit.SECONDS)) {
          return false;
        }
      }
      return true;
    });
    for (Component c : components) {
      assertThat(c.overlapped).as("overlap in %s (seed %d)", c.executor, seed).isFalse();
      assertThat(c.outOfOrder).as("order in %s (seed %d)", c.executor, seed).isFalse();
      assertThat(c.next).isEqualTo(perComponent);
    }
    assertThat(pool.largestThreads()).isLessThanOrEqualTo(4);
  }

  @Test
  void aBusyExecutorGivesThePoolThreadBackToOthers() throws Exception {
    ElasticPool one = new ElasticPool("t-one", 1, Duration.ofSeconds(30));
    try {
      SerialExecutor busy = new SerialExecutor("busy", one, timer);
      SerialExecutor other = new SerialExecutor("other", one, timer);
      CountDownLatch gate = new CountDownLatch(1);
      AtomicInteger busyRan = new AtomicInteger();
      busy.execute(() -> {
        try {
          gate.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      for (int i = 0; i < 10 * SerialExecutor.BATCH; i++) {
        busy.execute(busyRan::incrementAndGet);
      }
      AtomicInteger busyRanBeforeOther = new AtomicInteger(-1);
      CountDownLatch otherRan = new CountDownLatch(1);
      other.execute(() -> {
        busyRanBeforeOther.set(busyRan.get());
        otherRan.countDown();
      });
      gate.countDown();
      assertThat(otherRan.await(5, TimeUnit.SECONDS)).isTrue();
      assertThat(busyRanBeforeOther.get()).isLessThan(SerialExecutor.BATCH);
      await().atMost(Duration.ofSeconds(5)).until(() -> busyRan.get() == 10 * SerialExecutor.BATCH);
    } finally {
      one.shutdownNow();
    }
  }

  @Test
  void isCurrentThreadTellsItsOwnTasksFromAnythingElse() throws Exception {
    SerialExecutor e = new SerialExecutor("mine", pool, timer);
    SerialExecutor other = new SerialExecutor("other", pool, timer);
    assertThat(e.isCurrentThread()).isFalse();
    assertThat(e.submit(e::isCurrentThread).get(5, TimeUnit.SECONDS)).isTrue();
    assertThat(other.submit(e::isCurrentThread).get(5, TimeUnit.SECONDS)).isFalse();
    assertThat(e.submit(() -> Thread.currentThread().getName()).get(5, TimeUnit.SECONDS)).endsWith("/mine");
  }

  @Test
  void aFailingTaskDoesNotStopTheNextOnes() throws Exception {
    SerialExecutor e = new SerialExecutor("failing", pool, timer);
    e.execute(() -> {
      throw new IllegalStateException("expected by the test");
    });
    assertThat(e.submit(() -> 42).get(5, TimeUnit.SECONDS)).isEqualTo(42);
  }

  @Test
  void delayedTasksRunNoSoonerThanDueInDueOrderAndCancelledOnesNever() throws Exception {
    SerialExecutor e = new SerialExecutor("timed", pool, timer);
    List<String> ran = java.util.Collections.synchronizedList(new ArrayList<>());
    long start = System.nanoTime();
    AtomicReference<Long> lateRanAfter = new AtomicReference<>();
    e.schedule(() -> {
      lateRanAfter.set(System.nanoTime() - start);
      ran.add("late");
    }, 300, TimeUnit.MILLISECONDS);
    ScheduledFuture<?> cancelled = e.schedule(() -> ran.add("cancelled"), 100, TimeUnit.MILLISECONDS);
    ScheduledFuture<String> early = e.schedule(() -> {
      ran.add("early");
      return "done";
    }, 50, TimeUnit.MILLISECONDS);
    assertThat(cancelled.getDelay(TimeUnit.MILLISECONDS)).isBetween(1L, 100L);
    assertThat(cancelled.cancel(false)).isTrue();
    assertThat(early.get(5, TimeUnit.SECONDS)).isEqualTo("done");
    await().atMost(Duration.ofSeconds(5)).until(() -> ran.size() == 2);
    assertThat(ran).containsExactly("early", "late");
    assertThat(lateRanAfter.get()).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(300));
    assertThat(cancelled.isCancelled()).isTrue();
  }

  @Test
  void periodicTasksRepeatUntilCancelledOrShutDown() throws Exception {
    SerialExecutor e = new SerialExecutor("periodic", pool, timer);
    AtomicInteger fixedDelay = new AtomicInteger();
    AtomicInteger fixedRate = new AtomicInteger();
    ScheduledFuture<?> f = e.scheduleWithFixedDelay(fixedDelay::incrementAndGet, 0, 10, TimeUnit.MILLISECONDS);
    e.scheduleAtFixedRate(fixedRate::incrementAndGet, 0, 10, TimeUnit.MILLISECONDS);
    await().atMost(Duration.ofSeconds(5)).until(() -> fixedDelay.get() >= 5 && fixedRate.get() >= 5);
    f.cancel(false);
    int afterCancel = fixedDelay.get();
    e.shutdown();
    assertThat(e.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    int afterShutdown = fixedRate.get();
    // Nothing is armed any more: run something else on the pool for a while and look again.
    SerialExecutor probe = new SerialExecutor("probe", pool, timer);
    probe.schedule(() -> { }, 100, TimeUnit.MILLISECONDS).get(5, TimeUnit.SECONDS);
    assertThat(fixedDelay.get()).isLessThanOrEqualTo(afterCancel + 1);
    assertThat(fixedRate.get()).isEqualTo(afterShutdown);
    assertThatThrownBy(() -> e.schedule(() -> { }, 1, TimeUnit.MILLISECONDS)).isInstanceOf(RejectedExecutionException.class);
  }

  @Test
  void shutdownNowInterruptsTheRunningTaskDropsTheQueuedOnesAndTheInterruptStaysWithIt() throws Exception {
    ElasticPool one = new ElasticPool("t-one", 1, Duration.ofSeconds(30));
    try {
      SerialExecutor e = new SerialExecutor("stopped", one, timer);
      CountDownLatch started = new CountDownLatch(1);
      CountDownLatch neverReleased = new CountDownLatch(1);
      AtomicBoolean interrupted = new AtomicBoolean();
      e.execute(() -> {
        started.countDown();
        try {
          neverReleased.await(30, TimeUnit.SECONDS); // blocks until interrupted (bounded)
        } catch (InterruptedException x) {
          interrupted.set(true);
        }
      });
      AtomicBoolean queuedRan = new AtomicBoolean();
      e.execute(() -> queuedRan.set(true));
      assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
      assertThat(e.shutdownNow()).hasSize(1);
      assertThat(e.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
      assertThat(interrupted).isTrue();
      assertThat(queuedRan).isFalse();
      // The same pool thread runs another component's task next: not interrupted.
      SerialExecutor next = new SerialExecutor("next", one, timer);
      Future<Boolean> seen = next.submit(() -> Thread.currentThread().isInterrupted());
      assertThat(seen.get(5, TimeUnit.SECONDS)).isFalse();
      assertThatThrownBy(() -> e.execute(() -> { })).isInstanceOf(RejectedExecutionException.class)
          .hasMessageContaining("stopped");
    } finally {
      one.shutdownNow();
    }
  }

  @Test
  void shutdownLetsQueuedTasksRunAndAwaitTerminationWaitsForThem() throws Exception {
    SerialExecutor e = new SerialExecutor("draining", pool, timer);
    CountDownLatch gate = new CountDownLatch(1);
    AtomicInteger ran = new AtomicInteger();
    e.execute(() -> {
      try {
        gate.await();
      } catch (InterruptedException x) {
        Thread.currentThread().interrupt();
      }
      ran.incrementAndGet();
    });
    e.execute(ran::incrementAndGet);
    e.shutdown();
    assertThat(e.isShutdown()).isTrue();
    assertThat(e.awaitTermination(100, TimeUnit.MILLISECONDS)).isFalse();
    gate.countDown();
    assertThat(e.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    assertThat(e.isTerminated()).isTrue();
    assertThat(ran.get()).isEqualTo(2);
  }

  @Test
  void anOwnThreadExecutorStartsItsThreadOnDemandAndEndsItWithShutdown() throws Exception {
    SerialExecutor e = SerialExecutor.ownThread("t-own");
    AtomicReference<Thread> thread = new AtomicReference<>();
    e.submit(() -> thread.set(Thread.currentThread())).get(5, TimeUnit.SECONDS);
    assertThat(thread.get().getName()).startsWith("t-own-1");
    assertThat(thread.get().isDaemon()).isTrue();
    assertThat(e.schedule(() -> 7, 20, TimeUnit.MILLISECONDS).get(5, TimeUnit.SECONDS)).isEqualTo(7);
    e.shutdown();
    assertThat(e.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    await().atMost(Duration.ofSeconds(5)).until(() -> !thread.get().isAlive());
  }
}

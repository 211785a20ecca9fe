package io.nrtcluster.cli;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Turns SIGTERM and Ctrl-C (SIGINT) into a graceful stop of a long-running command, through a
 * shutdown hook: {@code onStop} runs once, and the hook waits (at most {@code hookWait}) until the
 * command has wound down and {@linkplain #done reported} its exit code. When the command line owns
 * the process, the hook then ends it with that code (a signal would otherwise make it 130 or 143,
 * and {@code System.exit} cannot run while the JVM shuts down).
 */
final class StopSignal implements AutoCloseable {
  private final Runnable onStop;
  private final boolean ownsJvm;
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final CountDownLatch finished = new CountDownLatch(1);
  private final Thread hook;
  private volatile Integer exitCode;

  private StopSignal(String name, Runnable onStop, boolean ownsJvm, Duration hookWait) {
    this.onStop = onStop;
    this.ownsJvm = ownsJvm;
    this.hook = new Thread(() -> {
      stop();
      try {
        finished.await(hookWait.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      Integer code = exitCode;
      if (this.ownsJvm && code != null) {
        Runtime.getRuntime().halt(code);
      }
    }, name + "-shutdown");
  }

  /**
   * Starts listening. {@code ownsJvm}: the process is the command line's own ({@link Main#ownsJvm()}),
   * so the hook may end it with the command's exit code; false inside tests.
   */
  static StopSignal install(String name, Runnable onStop, boolean ownsJvm, Duration hookWait) {
    StopSignal s = new StopSignal(name, onStop, ownsJvm, hookWait);
    Runtime.getRuntime().addShutdownHook(s.hook);
    return s;
  }

  private void stop() {
    if (stopping.compareAndSet(false, true)) {
      onStop.run();
    }
  }

  /** The command is done with {@code code}; returns it (for {@code return signal.done(code)}). */
  int done(int code) {
    exitCode = code;
    finished.countDown();
    return code;
  }

  /** Removes the shutdown hook (or, while the JVM shuts down, lets it finish). */
  @Override
  public void close() {
    finished.countDown();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // The JVM is shutting down: the hook runs and returns now.
    }
  }
}

package io.nrtcluster.stress.net;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Runs one short system command ({@code ip}, {@code tc}) with a bounded wait and captures its output. */
final class Cmd {
  static final Duration TIMEOUT = Duration.ofSeconds(15);

  /** What a command printed and how it exited. */
  record Result(List<String> command, int exit, String out, String err) {
    boolean ok() {
      return exit == 0;
    }

    /** The command's stdout; a failure (non-zero exit) as a {@link NetLabException} naming command and stderr. */
    String orThrow() throws NetLabException {
      if (!ok()) {
        throw new NetLabException("netlab: `" + String.join(" ", command) + "` exited " + exit + ": " + err.strip());
      }
      return out;
    }
  }

  private Cmd() {}

  /** Runs {@code command} and returns its stdout; throws when it fails, hangs or cannot be started. */
  static String check(String... command) throws NetLabException {
    return run(List.of(command)).orThrow();
  }

  /** Runs {@code command}; a non-zero exit is returned, not thrown (for removals that may find nothing to remove). */
  static Result run(List<String> command) throws NetLabException {
    return run(command, TIMEOUT);
  }

  static Result run(List<String> command, Duration timeout) throws NetLabException {
    String shown = String.join(" ", command);
    Process p;
    try {
      p = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
    } catch (IOException e) {
      throw new NetLabException("netlab: cannot start `" + shown + "`: " + e.getMessage(), e);
    }
    // Both streams are drained while the command runs, so a chatty command cannot block on a full pipe.
    CompletableFuture<String> out = drain(p.getInputStream());
    CompletableFuture<String> err = drain(p.getErrorStream());
    try {
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        throw new NetLabException("netlab: `" + shown + "` did not finish within " + timeout.toMillis() + " ms");
      }
      return new Result(List.copyOf(command), p.exitValue(), out.get(5, TimeUnit.SECONDS), err.get(5, TimeUnit.SECONDS));
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new NetLabException("netlab: interrupted while running `" + shown + "`", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new NetLabException("netlab: cannot read the output of `" + shown + "`", e);
    }
  }

  private static CompletableFuture<String> drain(InputStream in) {
    CompletableFuture<String> f = new CompletableFuture<>();
    Thread.ofVirtual().start(() -> {
      try (in) {
        f.complete(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      } catch (IOException e) {
        f.completeExceptionally(new UncheckedIOException(e));
      }
    });
    return f;
  }
}

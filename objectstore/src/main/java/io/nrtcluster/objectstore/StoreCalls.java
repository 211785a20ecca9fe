package io.nrtcluster.objectstore;

import io.nrtcluster.common.Backoff;
import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.NrtClusterException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The request path of one {@link BlobStore}: sends each of its calls as attempts, every attempt through
 * the {@link SharedClient}'s connection gate and counted in the store's metrics, retries what failed
 * transiently with jittered backoff, and types what failed for good. It keeps the retry, deadline and
 * interrupt guarantees that {@link BlobStore} states; a store and each of its views have their own.
 *
 * <p>No attempt holds a connection of the gate while it sleeps its backoff: the connection goes back
 * as soon as the attempt ends, whatever its outcome.
 */
final class StoreCalls {
  /** One call, unbounded by any deadline. */
  @FunctionalInterface
  interface Call<T> {
    T run() throws IOException;
  }

  /** One attempt of a call; {@code limit} goes on its request and bounds it to a deadline, if any. */
  @FunctionalInterface
  interface BoundCall<T> {
    T run(Consumer<AwsRequestOverrideConfiguration.Builder> limit) throws IOException;
  }

  /** A named injection point in every call's request path: tests delay or block an attempt here. */
  @FunctionalInterface
  interface AttemptHook {
    AttemptHook NONE = (what, key, attempt) -> {};

    /**
     * Runs on the calling thread before attempt {@code attempt} (from 1) of {@code what} on {@code
     * key}, before the attempt's deadline check: an attempt held here past its call's deadline is
     * not sent.
     */
    void before(String what, String key, int attempt);
  }

  private final ObjectStoreConfig config;
  private final SharedClient client;
  private final ObjectStoreMetrics metrics;
  private final NodeLog log;
  private volatile AttemptHook beforeAttempt = AttemptHook.NONE;

  StoreCalls(ObjectStoreConfig config, SharedClient client, ObjectStoreMetrics metrics, NodeLog log) {
    this.config = config;
    this.client = client;
    this.metrics = metrics;
    this.log = log;
  }

  /** For tests: {@code hook} runs before each request attempt of every call. */
  void beforeAttempt(AttemptHook hook) {
    beforeAttempt = hook;
  }

  <T> T call(String what, String key, Call<T> call) throws IOException {
    return call(what, key, Deadline.NONE, limit -> call.run());
  }

  /**
   * Runs {@code call} until it succeeds, fails for good, runs out of attempts or reaches {@code
   * deadline}. Each attempt first takes one of the client's connections ({@link SharedClient#acquire},
   * waiting at most until the deadline), then checks the deadline, after {@link #beforeAttempt the
   * hook}; an attempt may take only the time left, and a backoff that would end past the deadline is
   * not slept: no request of this call is sent from the deadline on, however slow the store.
   */
  <T> T call(String what, String key, Deadline deadline, BoundCall<T> call) throws IOException {
    Backoff backoff = new Backoff(config.backoffMin(), config.backoffMax());
    Exception last = null;
    for (int attempt = 1; ; attempt++) {
      beforeAttempt.before(what, key, attempt);
      if (client.closed()) {
        throw closed(what, key, attempt - 1, null);
      }
      try {
        if (!client.acquire(deadline)) {
          throw leaseExpired(what, key, deadline, attempt - 1, last);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        InterruptedIOException ie = new InterruptedIOException("interrupted before " + what + " " + key);
        ie.initCause(last);
        throw ie;
      }
      long remaining = deadline.remainingNanos();
      if (remaining <= 0) {
        client.release();
        throw leaseExpired(what, key, deadline, attempt - 1, last);
      }
      Exception failure;
      metrics.requested();
      try {
        return call.run(limit(deadline, remaining));
      } catch (S3Exception e) {
        int status = e.statusCode();
        if (status == 401 || status == 403) {
          throw new ObjectStoreAccessException(config.bucket(),
              "bucket " + config.bucket() + " refused " + what + " " + key + " (HTTP " + status + " "
                  + errorCode(e) + "): check the credentials and the bucket's permissions", e);
        }
        if (noSuchBucket(e) || (status == 404 && key.isEmpty())) {
          throw new ObjectStoreAccessException(config.bucket(), "bucket " + config.bucket() + " does not exist", e);
        }
        if (!((status >= 500 && status != 501) || status == 429 || status == 408)) {
          throw new NrtClusterException(ErrorCode.INTERNAL,
              "bucket " + config.bucket() + " rejected " + what + " " + key + ": HTTP " + status + " " + errorCode(e), e);
        }
        failure = e;
      } catch (SdkClientException | UncheckedIOException e) {
        NrtClusterException typed = typedCause(e);
        if (typed != null) {
          throw typed; // ours, raised inside the SDK (a source that failed its check): final
        }
        failure = e;
      } catch (IOException e) {
        if (e instanceof NrtClusterException || e instanceof InterruptedIOException) {
          throw e;
        }
        failure = e; // the sink's or the source's I/O; a new attempt starts it over
      } catch (IllegalStateException e) {
        if (client.closed()) {
          throw closed(what, key, attempt, e); // the pool shut down under this attempt
        }
        throw e;
      } finally {
        client.release();
      }
      metrics.requestFailed();
      last = failure;
      if (Thread.currentThread().isInterrupted()) {
        InterruptedIOException ie = new InterruptedIOException("interrupted: " + what + " " + key);
        ie.initCause(failure);
        throw ie;
      }
      if (deadline.remainingNanos() <= 0) {
        throw leaseExpired(what, key, deadline, attempt, failure); // an attempt cut at the deadline
      }
      if (attempt >= config.maxAttempts()) {
        throw new ObjectStoreUnavailableException("bucket " + config.bucket() + ": " + what + " " + key + " failed "
            + attempt + " times, last: " + failure, attempt, failure);
      }
      long delay = backoff.next().toMillis();
      if (TimeUnit.MILLISECONDS.toNanos(delay) >= deadline.remainingNanos()) {
        // No attempt could start before the deadline once this backoff is over: stop now.
        throw leaseExpired(what, key, deadline, attempt, failure);
      }
      log.debug("{} {} failed (attempt {} of {}), retrying in {} ms: {}", what, key, attempt, config.maxAttempts(),
          delay, failure.toString());
      try {
        Thread.sleep(delay);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        InterruptedIOException ie = new InterruptedIOException("interrupted: " + what + " " + key);
        ie.initCause(failure);
        throw ie;
      }
    }
  }

  /**
   * Sends one request once, without retry or deadline, and only logs its failure: for a cleanup
   * whose loss leaves nothing visible (a multipart upload's abort). It still waits for a connection.
   */
  void once(String what, String key, Runnable request) {
    try {
      client.acquire(Deadline.NONE);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // the SDK would refuse to send it anyway
      log.debug("{} {} not sent: interrupted", what, key);
      return;
    }
    try {
      metrics.requested();
      request.run();
    } catch (SdkException | IllegalStateException e) {
      log.debug("could not {} {}: {}", what, key, e.toString());
    } finally {
      client.release();
    }
  }

  /** What bounds one attempt: the time left before {@code deadline}, when there is one. */
  private static Consumer<AwsRequestOverrideConfiguration.Builder> limit(Deadline deadline, long remainingNanos) {
    if (!deadline.bounded()) {
      return o -> {};
    }
    Duration left = Duration.ofMillis(Math.max(1, TimeUnit.NANOSECONDS.toMillis(remainingNanos)));
    return o -> o.apiCallAttemptTimeout(left).apiCallTimeout(left);
  }

  private ObjectStoreUnavailableException closed(String what, String key, int attempts, Exception cause) {
    return new ObjectStoreUnavailableException("bucket " + config.bucket() + ": " + what + " " + key
        + " not sent: the store client is closed", attempts, cause);
  }

  private LeaseExpiredException leaseExpired(String what, String key, Deadline deadline, int attempts, Exception last) {
    return new LeaseExpiredException("bucket " + config.bucket() + ": " + what + " " + key + " stopped at "
        + deadline + " after " + attempts + " attempt(s); nothing more is sent"
        + (last == null ? "" : ", last failure: " + last), attempts, last);
  }

  private static NrtClusterException typedCause(Throwable e) {
    for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
      if (c instanceof NrtClusterException typed) {
        return typed;
      }
    }
    return null;
  }

  /** Whether the store said the bucket itself is missing (a 404 that is not about a key). */
  static boolean noSuchBucket(S3Exception e) {
    return e.statusCode() == 404 && "NoSuchBucket".equals(errorCode(e));
  }

  /** The store's error code, or empty when its answer carried none. */
  static String errorCode(S3Exception e) {
    return e.awsErrorDetails() == null ? "" : String.valueOf(e.awsErrorDetails().errorCode());
  }
}

package io.nrtcluster.objectstore;

/**
 * A deadline-bound store call ({@link Deadline}) reached its deadline before it succeeded: no request
 * attempt was started at or after the deadline, and the attempt under way when it came was cut there.
 * An attempt started before the deadline may still be applied by the store (within the lease
 * arguments' clock margin). Caught inside this package: a sweep stops, a backup is abandoned.
 */
final class LeaseExpiredException extends ObjectStoreUnavailableException {
  private static final long serialVersionUID = 1L;

  LeaseExpiredException(String message, int attempts, Throwable lastFailure) {
    super(message, attempts, lastFailure);
  }
}

package io.nrtcluster.election;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.Experimental;

/**
 * The last time a node gave its epoch up by itself, as its member record publishes it (so {@code nrt
 * status} shows it on any node).
 *
 * @param reason the kind of failure
 * @param message the failure's own text (bounded to {@value #MAX_MESSAGE} characters)
 * @param atMillis wall-clock millis of the step-down
 */
@Experimental
public record StepDown(StepDownReason reason, String message, long atMillis) {
  /** Longest message kept: a member record stays small. */
  public static final int MAX_MESSAGE = 300;

  public StepDown {
    Checks.notNull("reason", reason);
    message = message == null ? "" : message.length() > MAX_MESSAGE ? message.substring(0, MAX_MESSAGE) : message;
  }
}

package io.nrtcluster.stress;

import java.net.http.HttpTimeoutException;

/**
 * Why a refresh that asked for a replicated acknowledgement was not acknowledged, as the write path
 * counts it. Each leaves the writes it would have covered unacknowledged (indeterminate) until a
 * later replicated refresh on the same primary generation covers them.
 */
enum RefreshRefusal {
  /** The library's {@code NotEnoughReplicasException}: published, but too few in-sync replicas hold it. */
  NOT_ENOUGH_REPLICAS,
  /** {@code NotPrimaryException}: the node no longer (or not yet) leads. */
  NOT_PRIMARY,
  /** {@code NotPublishedException}: ZooKeeper could not record the version or the in-sync set. */
  NOT_PUBLISHED,
  /** No answer within the request's deadline, or the library's own TIMEOUT. */
  TIMEOUT,
  /** Given up by the write path: ZooKeeper's view named another primary or generation meanwhile. */
  GIVEN_UP,
  /** The node could not be reached (killed, paused, cut off) or the connection broke. */
  UNREACHABLE,
  /** Any other refusal (another library error, a role switch during the refresh, a bad answer). */
  OTHER;

  /** The refusal an {@link AgentException} of a refresh stands for. */
  static RefreshRefusal of(AgentException e) {
    return switch (e.error()) {
      case "NOT_ENOUGH_REPLICAS" -> NOT_ENOUGH_REPLICAS;
      case "NOT_PRIMARY" -> NOT_PRIMARY;
      case "NOT_PUBLISHED" -> NOT_PUBLISHED;
      case "TIMEOUT" -> TIMEOUT;
      case "GIVEN_UP" -> GIVEN_UP;
      case AgentException.UNREACHABLE -> timedOut(e) ? TIMEOUT : UNREACHABLE;
      default -> OTHER;
    };
  }

  private static boolean timedOut(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof HttpTimeoutException) {
        return true;
      }
    }
    return false;
  }
}

package io.nrtcluster.stress;

import java.io.IOException;

/**
 * A node's control endpoint refused a request ({@code error} is the library's error code name, such
 * as NOT_PRIMARY) or could not be reached ({@code error} is UNREACHABLE): the harness treats both
 * as "this write is not acknowledged".
 */
public final class AgentException extends IOException {
  static final String UNREACHABLE = "UNREACHABLE";
  private final String error;

  public AgentException(String error, String message) {
    super(message);
    this.error = error;
  }

  public AgentException(String message, Throwable cause) {
    super(message, cause);
    this.error = UNREACHABLE;
  }

  public String error() {
    return error;
  }

  public boolean notPrimary() {
    return "NOT_PRIMARY".equals(error);
  }
}

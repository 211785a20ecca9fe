package io.nrtcluster.examples.search;

import java.util.Map;

/**
 * A request the API answers with an error: the kind ({@link ApiError}), a message for people and
 * optional extra fields for programs (for example the {@code version} that expired).
 */
public final class ApiException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final ApiError error;
  private final transient Map<String, Object> details;

  public ApiException(ApiError error, String message) {
    this(error, message, Map.of(), null);
  }

  public ApiException(ApiError error, String message, Map<String, Object> details) {
    this(error, message, details, null);
  }

  public ApiException(ApiError error, String message, Map<String, Object> details, Throwable cause) {
    super(message, cause);
    this.error = error;
    this.details = Map.copyOf(details);
  }

  public ApiError error() {
    return error;
  }

  /** Extra fields of the JSON error body. */
  public Map<String, Object> details() {
    return details;
  }
}

package io.nrtcluster.common;

import java.time.Duration;
import java.util.Objects;

/**
 * Bounds checks for configuration builders. Every failure is an {@link IllegalArgumentException}
 * whose message starts with the name of the offending field, so a bad setting is found at once.
 */
@Internal
public final class Checks {
  private Checks() {}

  public static <T> T notNull(String field, T value) {
    if (value == null) {
      throw new IllegalArgumentException(field + " must be set");
    }
    return value;
  }

  public static String notBlank(String field, String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(field + " must be a non-blank string");
    }
    return value;
  }

  /** A name that is safe in a path, a ZooKeeper node and a log line: letters, digits, '-', '_', '.'. */
  public static String safeName(String field, String value) {
    notBlank(field, value);
    if (value.length() > 128 || !value.matches("[A-Za-z0-9][A-Za-z0-9_.-]*")) {
      throw new IllegalArgumentException(
          field + " must be 1-128 of [A-Za-z0-9_.-] starting with a letter or digit, got '" + value + "'");
    }
    return value;
  }

  public static long inRange(String field, long value, long min, long max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          field + " must be in [" + min + ", " + max + "], got " + value);
    }
    return value;
  }

  public static int inRange(String field, int value, int min, int max) {
    return (int) inRange(field, (long) value, min, max);
  }

  public static double probability(String field, double value) {
    if (!(value >= 0.0 && value <= 1.0)) {
      throw new IllegalArgumentException(field + " must be in [0, 1], got " + value);
    }
    return value;
  }

  public static Duration positive(String field, Duration value) {
    Objects.requireNonNull(value, field);
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(field + " must be positive, got " + value);
    }
    return value;
  }

  public static Duration atMost(String field, Duration value, Duration max) {
    positive(field, value);
    if (value.compareTo(max) > 0) {
      throw new IllegalArgumentException(field + " must be at most " + max + ", got " + value);
    }
    return value;
  }
}

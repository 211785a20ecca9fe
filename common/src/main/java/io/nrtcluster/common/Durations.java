package io.nrtcluster.common;

import java.time.Duration;

/** Durations the way people write them in messages and options: {@code 2m}, {@code 10s}, {@code 500ms}. */
@Internal
public final class Durations {
  private Durations() {}

  public static String format(Duration d) {
    long ms = d.toMillis();
    if (ms >= 60_000 && ms % 60_000 == 0) {
      return ms / 60_000 + "m";
    }
    if (ms % 1000 == 0) {
      return ms / 1000 + "s";
    }
    return ms + "ms";
  }
}

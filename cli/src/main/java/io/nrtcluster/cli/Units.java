package io.nrtcluster.cli;

import io.nrtcluster.common.Durations;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/** How the command line writes times and sizes. */
final class Units {
  private Units() {}

  static long millis(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(nanos);
  }

  /** {@code 2.5s}: nanos as seconds with one decimal. */
  static String seconds(long nanos) {
    return String.format(Locale.ROOT, "%.1fs", nanos / 1e9);
  }

  /** {@code 2m}, {@code 20s}, {@code 300ms}: a duration the way {@link DurationConverter} reads it. */
  static String human(Duration d) {
    return Durations.format(d);
  }


  static String bytes(long n) {
    if (n < 1024) {
      return n + " B";
    }
    if (n < 1024 * 1024) {
      return String.format(Locale.ROOT, "%.1f KiB", n / 1024.0);
    }
    if (n < 1024L * 1024 * 1024) {
      return String.format(Locale.ROOT, "%.1f MiB", n / (1024.0 * 1024));
    }
    return String.format(Locale.ROOT, "%.2f GiB", n / (1024.0 * 1024 * 1024));
  }
}

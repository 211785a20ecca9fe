package io.nrtcluster.objectstore;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.Stable;
import java.time.Duration;

/**
 * Which manifests retention keeps: the newest {@code keepLast} (at least 1, so the newest backup is
 * never removed), and every manifest the store wrote less than {@code keepNewerThan} ago (zero: none
 * by age). Files are kept exactly as long as a kept manifest (or a backup under way) names them.
 */
@Stable
public record RetentionPolicy(int keepLast, Duration keepNewerThan) {
  /** Validates both fields; throws {@link IllegalArgumentException} naming the bad one. */
  public RetentionPolicy {
    Checks.inRange("keepLast", keepLast, 1, 1_000_000);
    Checks.notNull("keepNewerThan", keepNewerThan);
    if (keepNewerThan.isNegative()) {
      throw new IllegalArgumentException("keepNewerThan must not be negative, got " + keepNewerThan);
    }
  }

  /** Keeps the newest {@code n} manifests, whatever their age. */
  public static RetentionPolicy keepLast(int n) {
    return new RetentionPolicy(n, Duration.ZERO);
  }
}

package io.nrtcluster.common;

import java.security.SecureRandom;

/**
 * Names for runs of an index's in-memory state: each opening of an index from disk (a replica's
 * start or reopen, a primary's open) gets a new one, never 0 (which means "not named"). A node that
 * reopens from its commit has lost the points it searched but had not committed; a new name makes
 * sure nothing recorded about the old run (the in-sync set) is taken for the new one.
 */
@Internal
public final class Incarnations {
  private static final SecureRandom RANDOM = new SecureRandom();

  private Incarnations() {}

  /** A fresh, non-zero incarnation. */
  public static long next() {
    long v;
    do {
      v = RANDOM.nextLong();
    } while (v == 0);
    return v;
  }
}

package io.nrtcluster.replica;

/**
 * The seed of a randomized test: {@code -Dnrt.test.seed=N} to reproduce, otherwise a fresh one.
 * Tests print it in their failure messages.
 */
final class TestSeeds {
  private TestSeeds() {}

  static long seed() {
    String s = System.getProperty("nrt.test.seed");
    if (s != null && !s.isBlank()) {
      return Long.parseLong(s.trim());
    }
    return System.nanoTime() ^ 0x5DEECE66DL;
  }
}

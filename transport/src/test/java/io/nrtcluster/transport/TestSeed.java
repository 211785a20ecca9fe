package io.nrtcluster.transport;

import java.util.Random;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * Per-test random seed for tests that use random data. Taken from {@code -Dnrt.test.seed} when set
 * (so a failure can be replayed), otherwise random; mixed with the test's name so every test gets
 * its own stream. The seed is printed when a test fails.
 *
 * <pre>{@code @RegisterExtension final TestSeed seed = new TestSeed();}</pre>
 */
final class TestSeed implements BeforeEachCallback, TestWatcher {
  private static final long BASE = baseSeed();

  private long seed;

  private static long baseSeed() {
    Long fixed = Long.getLong("nrt.test.seed");
    return fixed != null ? fixed : new Random().nextLong();
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    seed = BASE * 31 + context.getUniqueId().hashCode();
  }

  /** This test's seed. */
  long seed() {
    return seed;
  }

  /** A random source seeded with {@link #seed()}. */
  Random random() {
    return new Random(seed);
  }

  @Override
  public void testFailed(ExtensionContext context, Throwable cause) {
    System.err.printf(
        "%s failed; test seed=%d; reproduce with -Dnrt.test.seed=%d%n", context.getDisplayName(), seed, BASE);
  }
}

package io.nrtcluster.node;

import io.nrtcluster.common.Experimental;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * What this process costs now: its live threads, by kind, and its heap in use. For the measurement
 * of the cost of an index (open N more, measure again, divide the difference): tests and benchmarks
 * use it, and an operator can call it from a service's diagnostics.
 *
 * @param threads live threads of the JVM (platform threads, daemons included)
 * @param threadsByKind live threads by name with every run of digits replaced by {@code #} (so
 *     {@code nrt-copy-N2-17} counts as {@code nrt-copy-N#-#}), sorted by name
 * @param heapBytes heap in use: after a collection when measured by {@link #afterGc()}
 */
@Experimental
public record ProcessFootprint(int threads, Map<String, Integer> threadsByKind, long heapBytes) {
  private static final Pattern DIGITS = Pattern.compile("[0-9]+");

  public ProcessFootprint {
    threadsByKind = Collections.unmodifiableMap(new TreeMap<>(threadsByKind));
  }

  /** The threads now and the heap in use now (no collection: cheap, but the heap figure includes garbage). */
  public static ProcessFootprint now() {
    return new ProcessFootprint(ManagementFactory.getThreadMXBean().getThreadCount(), threadKinds(),
        ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
  }

  /**
   * The threads now and the heap in use after full collections: the least of three, each after a
   * {@link System#gc()} (a request the JVM may ignore with {@code -XX:+DisableExplicitGC}; then
   * the figure includes garbage). Takes some hundred milliseconds: not for a hot path.
   */
  public static ProcessFootprint afterGc() throws InterruptedException {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    long least = Long.MAX_VALUE;
    for (int i = 0; i < 3; i++) {
      System.gc();
      // Let reference processing and cleaners run before looking.
      Thread.sleep(50);
      least = Math.min(least, memory.getHeapMemoryUsage().getUsed());
    }
    return new ProcessFootprint(ManagementFactory.getThreadMXBean().getThreadCount(), threadKinds(), least);
  }

  /** Live threads by kind ({@link #threadsByKind}). */
  public static Map<String, Integer> threadKinds() {
    Map<String, Integer> kinds = new TreeMap<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      kinds.merge(DIGITS.matcher(t.getName()).replaceAll("#"), 1, Integer::sum);
    }
    return kinds;
  }

  /**
   * The kinds of thread that are more numerous here than in {@code before}, with how many more,
   * e.g. {@code {nrt-link-R#-#=20}}.
   */
  public Map<String, Integer> grownSince(ProcessFootprint before) {
    Map<String, Integer> grown = new TreeMap<>();
    threadsByKind.forEach((kind, n) -> {
      int more = n - before.threadsByKind.getOrDefault(kind, 0);
      if (more > 0) {
        grown.put(kind, more);
      }
    });
    return grown;
  }
}

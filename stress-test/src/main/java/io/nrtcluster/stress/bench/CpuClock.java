package io.nrtcluster.stress.bench;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;

/**
 * This process's CPU time (all threads, user and system), in nanoseconds; the JDK counts it in the
 * system's clock ticks (10 ms on Linux), so a difference is exact to a tick at each end.
 */
final class CpuClock {
  private static final OperatingSystemMXBean OS =
      (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  private CpuClock() {}

  static long cpuNanos() {
    return OS.getProcessCpuTime();
  }
}

package io.nrtcluster.stress.bench;

import java.lang.management.ManagementFactory;

/** This process's CPU time (all threads, user and system), in nanoseconds. */
final class CpuClock {
  private static final com.sun.management.OperatingSystemMXBean OS =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  private CpuClock() {}

  static long cpuNanos() {
    return OS.getProcessCpuTime();
  }
}

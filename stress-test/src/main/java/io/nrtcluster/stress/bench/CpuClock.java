package io.nrtcluster.stress.bench;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;

/** This process's CPU time (all threads, user and system), in nanoseconds. */
final class CpuClock {
  private static final OperatingSystemMXBean OS =
      (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  private CpuClock() {}

  static long cpuNanos() {
    return OS.getProcessCpuTime();
  }
}

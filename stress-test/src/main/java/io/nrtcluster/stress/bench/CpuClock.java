package io.nrtcluster.stress.bench;

import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * This process's CPU time (all threads, user and system), in nanoseconds; the JDK counts it in the
 * system's clock ticks (10 ms on Linux), so a difference is exact to a tick at each end.
 */
final class CpuClock {
  private static final OperatingSystemMXBean OS =
      (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  /** USER_HZ: the unit of the CPU times in {@code /proc}, fixed by the Linux ABI. */
  private static final long NANOS_PER_TICK = 10_000_000L;
  private static final Path STAT = Path.of("/proc/self/stat");

  private CpuClock() {}

  static long cpuNanos() {
    return OS.getProcessCpuTime();
  }

  /**
   * This process's user-mode CPU time (all threads), from {@code /proc/self/stat}; -1 where there is
   * none. The rest of {@link #cpuNanos()} is the kernel's work for the process: system calls (a copy's
   * socket reads and file writes), page faults. Exact to a tick (10 ms) at each end, like it.
   */
  static long userNanos() {
    try {
      String stat = Files.readString(STAT);
      // Field 14 (utime) counted from the state, field 3, which follows the name in parentheses.
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(fields[11]) * NANOS_PER_TICK;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }
}

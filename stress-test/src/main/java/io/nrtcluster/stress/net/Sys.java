package io.nrtcluster.stress.net;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/** What the lab needs from the machine: root, the {@code ip} and {@code tc} tools, and process liveness. */
final class Sys {
  private static final List<String> SBIN = List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin");

  private Sys() {}

  /** The effective uid of this process, from /proc/self/status; empty if it cannot be read. */
  static OptionalLong effectiveUid() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("Uid:")) {
          String[] f = line.substring(4).trim().split("\\s+");
          return OptionalLong.of(Long.parseLong(f[1]));
        }
      }
    } catch (IOException | RuntimeException e) {
      return OptionalLong.empty();
    }
    return OptionalLong.empty();
  }

  /** An executable named {@code tool} on the PATH or in the usual sbin directories. */
  static Optional<Path> find(String tool) {
    List<String> dirs = new ArrayList<>();
    String path = System.getenv("PATH");
    if (path != null) {
      dirs.addAll(List.of(path.split(":")));
    }
    dirs.addAll(SBIN);
    for (String d : dirs) {
      if (d.isEmpty()) {
        continue;
      }
      Path p = Path.of(d, tool);
      if (Files.isRegularFile(p) && Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /** Refuses, naming why, unless the effective uid is 0 and {@code ip} was found. */
  static void requireUsable(OptionalLong euid, Optional<Path> ip) throws NetLabException {
    if (euid.isEmpty() || euid.getAsLong() != 0) {
      throw new NetLabException("netlab: network namespaces need root (effective uid is "
          + (euid.isPresent() ? euid.getAsLong() : "unknown") + ")");
    }
    if (ip.isEmpty()) {
      throw new NetLabException("netlab: the `ip` tool (iproute2) is not installed");
    }
  }

  static boolean alive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }
}

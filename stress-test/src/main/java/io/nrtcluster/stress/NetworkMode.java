package io.nrtcluster.stress;

import java.util.Arrays;
import java.util.Locale;

/** Where the chaos harness puts its hosts. */
public enum NetworkMode {
  /** Every node and ZooKeeper server on the machine's loopback: links cannot be cut. */
  LOOPBACK,
  /**
   * Every node JVM and ZooKeeper server in its own network namespace on a bridge the harness makes
   * and removes: links can be cut one way or both and slowed. Needs root.
   */
  NAMESPACES;

  /** Parses {@code loopback} or {@code namespaces}, case-insensitively. */
  public static NetworkMode parse(String s) {
    for (NetworkMode m : values()) {
      if (m.name().equalsIgnoreCase(s)) {
        return m;
      }
    }
    throw new IllegalArgumentException("unknown network mode '" + s + "'; known: "
        + Arrays.stream(values()).map(m -> m.name().toLowerCase(Locale.ROOT)).toList());
  }
}

package io.nrtcluster.stress;

import java.util.Arrays;

/**
 * The faults the chaos harness injects, each switchable. The JSON key names the report's counter.
 */
public enum FaultKind {
  /** SIGKILL of the primary's process. */
  PRIMARY_KILL("primaryKill"),
  /** SIGKILL of a replica's process. */
  REPLICA_KILL("replicaKill"),
  /** A JVM crash (SIGSEGV to the process, or {@code Runtime.halt} through its endpoint) of any node. */
  JVM_CRASH("jvmCrash"),
  /** SIGSTOP, then SIGCONT after a while, sometimes longer than the ZooKeeper session timeout. */
  PAUSE("pause"),
  /** Bit flips and throttling on every node's wire for a while, through the transport's fault point. */
  WIRE("wire"),
  /** One ZooKeeper server of the ensemble crashes and restarts. */
  ZK_RESTART("zkServerRestart"),
  /** Every node is killed at once and started again. */
  FULL_RESTART("fullClusterRestart"),
  /** An operator promotes a random replica (graceful hand-off). */
  PROMOTION("promotion");

  private final String key;

  FaultKind(String key) {
    this.key = key;
  }

  /** Name of this fault's counter in {@code chaos-report.json}. */
  public String key() {
    return key;
  }

  /** Parses a key or an enum name, case-insensitively ("pause", "PRIMARY_KILL", "primaryKill"). */
  public static FaultKind parse(String s) {
    for (FaultKind k : values()) {
      if (k.key.equalsIgnoreCase(s) || k.name().equalsIgnoreCase(s) || k.name().replace("_", "").equalsIgnoreCase(s)) {
        return k;
      }
    }
    throw new IllegalArgumentException("unknown fault kind '" + s + "'; known: " + Arrays.stream(values())
        .map(FaultKind::key).toList());
  }
}

package io.nrtcluster.stress;

import java.util.List;

/**
 * The verdict of a chaos run, as written to {@code chaos-report.json}. {@code valid} is true only when
 * no acknowledged write was lost, no node disagreed with another at the same version, every index
 * passed CheckIndex with no unreferenced files, and the cluster converged at the end.
 */
public record ChaosReport(
    long seed,
    long durationSec,
    int nodes,
    Ops ops,
    Faults faults,
    int failovers,
    Millis failoverMs,
    Lag replicationLagMs,
    long versionMismatches,
    long versionChecks,
    int checkIndexFailures,
    int unreferencedFiles,
    long searches,
    long finalVersion,
    boolean converged,
    boolean valid,
    List<String> problems,
    List<FaultPlan.Planned> schedule,
    List<Timeline.Event> events) {

  /**
   * @param attempted writes the harness logged
   * @param acknowledged writes a primary acknowledged (first time or on replay)
   * @param lost documents whose final acknowledged write is missing or has another revision on some node
   * @param unexpected documents present on some node although the log deleted (or never wrote) them
   * @param replayed writes re-sent after failovers, from the new primary's replay position
   */
  public record Ops(long attempted, long acknowledged, long lost, long unexpected, long replayed) {}

  /** How many faults of each kind were injected, and what the wire faults did. */
  public record Faults(
      int primaryKill,
      int replicaKill,
      int jvmCrash,
      int pause,
      int wire,
      long bitFlipsInjected,
      long bitFlipsDetected,
      int zkServerRestart,
      int fullClusterRestart,
      int promotion,
      int promotionsRefused,
      int killsDuringCopy,
      int killsDuringPreCopy,
      int planned,
      int skipped,
      int recoveryTimeouts) {}

  public record Millis(long p50, long max) {}

  public record Lag(long p50, long p99, long max, int samples) {}
}
